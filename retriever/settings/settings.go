// Package settings is the [retriever] section of hookctl's config.toml, its defaults and the
// retriever's limits. It is data only: no I/O and no network code, so that package config,
// which the hook process loads on every tool call, can hold these types without linking the
// retriever. Every hookctl process that reads the config uses it: the hook, the retriever's
// front (hookctl retrieve) and its isolated worker, which gets the section from the front.
package settings

import "time"

// Config is the [retriever] section of the user's config.toml (global only: a project file
// cannot configure where content is sent).
type Config struct {
	Distiller string          `toml:"distiller"` // auto | anthropic | openai | claude-cli | command | extract
	Search    string          `toml:"search"`    // anthropic | searxng | brave
	Anthropic AnthropicConfig `toml:"anthropic"`
	OpenAI    OpenAIConfig    `toml:"openai"`
	ClaudeCLI ClaudeCLIConfig `toml:"claude_cli"`
	Command   CommandConfig   `toml:"command"`
	SearXNG   SearXNGConfig   `toml:"searxng"`
	Brave     BraveConfig     `toml:"brave"`
	GitHub    GitHubConfig    `toml:"github"`
	Research  ResearchConfig  `toml:"research"`
	// MaxBytes caps a fetched body; 0 means DefaultMaxBytes.
	MaxBytes int64 `toml:"max_bytes"`
}

// ResearchConfig is the distiller's research budget: after the caller's own retrieval, the
// model may search, fetch, read GitHub and read a repository snapshot, within these. Each is
// capped (ResearchMax…) whatever the config says; zero or less means the default.
type ResearchConfig struct {
	// Enabled turns the research loop on (the default) or off: off, the distiller answers from
	// the caller's own retrieval alone, in one call, as before.
	Enabled *bool `toml:"enabled"`
	Steps   int   `toml:"steps"`   // model calls
	Pages   int   `toml:"pages"`   // documents read from the network, the caller's included
	Bytes   int64 `toml:"bytes"`   // bytes received from the network
	Seconds int   `toml:"seconds"` // wall-clock time, the final answer included
	// Protocol is how tools are offered: "" uses the backend's native tool calling where it has
	// one (anthropic, openai) and the text protocol elsewhere; "text" forces the text protocol
	// (a local chat-completions server whose model has no tool calling).
	Protocol string `toml:"protocol"`
}

// Budget is a research budget with the defaults and caps applied.
type Budget struct {
	Steps, Pages int
	Bytes        int64
	Time         time.Duration
}

// Research budget defaults and caps. The time fits the retrieval hook's deadline (110 s inside
// the client's 120 s); the caps bound what one retrieval costs whatever the config says.
const (
	DefaultResearchSteps   = 6
	DefaultResearchPages   = 6
	DefaultResearchBytes   = 4 << 20
	DefaultResearchSeconds = 80
	ResearchMaxSteps       = 16
	ResearchMaxPages       = 24
	ResearchMaxBytes       = 32 << 20
	ResearchMaxSeconds     = 100
)

// On reports whether the research loop runs.
func (r ResearchConfig) On() bool { return r.Enabled == nil || *r.Enabled }

// Budget applies the defaults and caps.
func (r ResearchConfig) Budget() Budget {
	pick := func(v, def, max int64) int64 {
		if v <= 0 {
			return def
		}
		return min(v, max)
	}
	return Budget{
		Steps: int(pick(int64(r.Steps), DefaultResearchSteps, ResearchMaxSteps)),
		Pages: int(pick(int64(r.Pages), DefaultResearchPages, ResearchMaxPages)),
		Bytes: pick(r.Bytes, DefaultResearchBytes, ResearchMaxBytes),
		Time:  time.Duration(pick(int64(r.Seconds), DefaultResearchSeconds, ResearchMaxSeconds)) * time.Second,
	}
}

type AnthropicConfig struct {
	BaseURL   string `toml:"base_url"`    // default DefaultAnthropicBaseURL
	APIKeyEnv string `toml:"api_key_env"` // default DefaultAnthropicKeyEnv
	Model     string `toml:"model"`
}

type OpenAIConfig struct {
	BaseURL   string `toml:"base_url"` // chat-completions compatible, e.g. http://127.0.0.1:11434/v1
	APIKeyEnv string `toml:"api_key_env"`
	Model     string `toml:"model"`
}

type ClaudeCLIConfig struct {
	Path  string `toml:"path"` // default: claude on PATH
	Model string `toml:"model"`
}

type CommandConfig struct {
	Argv []string `toml:"argv"` // a program that reads the prompt on stdin and prints the answer
}

type SearXNGConfig struct {
	URL string `toml:"url"` // the instance's base URL; /search?format=json is appended
}

type BraveConfig struct {
	APIKeyEnv string `toml:"api_key_env"` // default DefaultBraveKeyEnv
}

type GitHubConfig struct {
	// EnterpriseHosts are the GitHub Enterprise hosts the retriever may reach.
	EnterpriseHosts []string `toml:"enterprise_hosts"`
	// PrivateRepos are the repositories ("OWNER/REPO", or "OWNER/*" for all of one owner's) a
	// snapshot is read with the token; every other snapshot is read without it, so public only.
	PrivateRepos []string `toml:"private_repos"`
}

// Distiller backends, the values of distiller.
const (
	BackendAuto      = "auto"
	BackendAnthropic = "anthropic"
	BackendOpenAI    = "openai"
	BackendClaudeCLI = "claude-cli"
	BackendCommand   = "command"
	BackendExtract   = "extract"
)

// Search providers, the values of search.
const (
	SearchAnthropic = "anthropic"
	SearchSearXNG   = "searxng"
	SearchBrave     = "brave"
)

// Defaults of the backends' settings.
const (
	DefaultAnthropicBaseURL = "https://api.anthropic.com"
	DefaultAnthropicKeyEnv  = "ANTHROPIC_API_KEY"
	// DefaultAnthropicModel is a current small model: distilling is reading, not reasoning.
	DefaultAnthropicModel = "claude-haiku-4-5"
	// DefaultClaudeCLIModel is the client's alias for its current small model.
	DefaultClaudeCLIModel = "haiku"
	DefaultBraveKeyEnv    = "BRAVE_API_KEY"
)

// Limits.
const (
	DefaultMaxBytes   = 5 << 20
	ConnectTimeout    = 10 * time.Second
	TotalTimeout      = 60 * time.Second
	MaxRedirects      = 5
	DistillTimeout    = 90 * time.Second
	MaxDistilledBytes = 64 << 10
)
