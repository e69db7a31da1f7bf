// Package settings is the [retriever] section of hookctl's config.toml, its defaults and the
// retriever's limits. It is data only: no I/O and no network code, so that package hook, which
// loads the config in the hook process on every tool call, can hold these types without linking
// the retriever. Every hookctl process that reads the config uses it: the hook, the retriever's
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
	// MaxBytes caps a fetched body; 0 means DefaultMaxBytes.
	MaxBytes int64 `toml:"max_bytes"`
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
