package retriever

import (
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hookctl/hookctl/internal/clip"
	"github.com/hookctl/hookctl/retriever/settings"
)

// configHelp is shown when no distiller can be chosen: every way to configure one.
const configHelp = `Configure one in the [retriever] section of $HOOKCTL_HOME/config.toml (default ~/.config/hookctl/config.toml), for example:

  # The Anthropic API, with the key in $ANTHROPIC_API_KEY:
  [retriever]
  distiller = "anthropic"
  [retriever.anthropic]
  api_key_env = "ANTHROPIC_API_KEY"   # the name of the variable, not the key
  model = "` + settings.DefaultAnthropicModel + `"

  # A local chat-completions server (Ollama, llama.cpp, vLLM):
  [retriever]
  distiller = "openai"
  [retriever.openai]
  base_url = "http://127.0.0.1:11434/v1"
  model = "llama3.1"

  # The Claude Code CLI, run as claude -p with no tools and no hooks. It runs without your
  # home directory, so it needs a token in the environment: run claude setup-token and
  # export what it prints as CLAUDE_CODE_OAUTH_TOKEN (or set ANTHROPIC_API_KEY).
  [retriever]
  distiller = "claude-cli"
  [retriever.claude_cli]
  path = "/usr/local/bin/claude"      # default: claude on PATH

  # Any program that reads the prompt on stdin and prints the answer:
  [retriever]
  distiller = "command"
  [retriever.command]
  argv = ["ollama", "run", "llama3.1"]

distiller = "extract" uses no model at all: answers are the pages' own text, marked untrusted.`

// DistillerChoice is the distiller backend a config names, checked against the environment
// and PATH but not yet built. The front uses it to resolve "auto" and doctor to report it; the
// worker builds the backend from it.
type DistillerChoice struct {
	Backend string // settings.BackendAnthropic, …; never "auto"
	// Endpoint is the API's base URL, checked by checkEndpoint (anthropic, openai).
	Endpoint string
	// KeyEnv names the variable that holds the API key, which is set (anthropic, and openai
	// when it names one).
	KeyEnv string
	Model  string // anthropic, openai, claude-cli
	// Argv is the program, resolved to a path, and its arguments (claude-cli: the program only;
	// command: argv).
	Argv []string
}

// ChooseDistiller returns the distiller cfg.Distiller names. "auto" (or "") picks the first
// usable of anthropic (its key variable is set), openai (openai.base_url is set), claude-cli
// (claude_cli.path is set or claude is on PATH, and a credential it can use without a home
// directory is in the environment) and command (command.argv is set); extract is never picked
// automatically, because it hands the page's own text to the caller. A named backend that cannot
// work is an error that says why. environ is the environment the keys are read from and programs
// are run with; lookPath finds programs (nil means exec.LookPath).
func ChooseDistiller(cfg *settings.Config, environ []string, lookPath func(string) (string, error)) (*DistillerChoice, error) {
	if lookPath == nil {
		lookPath = exec.LookPath
	}
	name := cfg.Distiller
	if name == "" {
		name = settings.BackendAuto
	}
	switch name {
	case settings.BackendAuto:
		var why []string
		for _, b := range []string{settings.BackendAnthropic, settings.BackendOpenAI, settings.BackendClaudeCLI, settings.BackendCommand} {
			ok, reason := backendConfigured(b, cfg, environ, lookPath)
			if ok {
				c, err := checkBackend(b, cfg, environ, lookPath)
				if err != nil {
					return nil, fmt.Errorf("failed to set up the %s distiller (chosen by distiller = \"auto\"): %w", b, err)
				}
				return c, nil
			}
			why = append(why, "  "+b+": "+reason)
		}
		return nil, fmt.Errorf("failed to choose a distiller: none is available:\n%s\n\n%s", strings.Join(why, "\n"), configHelp)
	case settings.BackendAnthropic, settings.BackendOpenAI, settings.BackendClaudeCLI, settings.BackendCommand, settings.BackendExtract:
		if ok, reason := backendConfigured(name, cfg, environ, lookPath); !ok {
			return nil, fmt.Errorf("failed to set up the %s distiller: %s", name, reason)
		}
		c, err := checkBackend(name, cfg, environ, lookPath)
		if err != nil {
			return nil, fmt.Errorf("failed to set up the %s distiller: %w", name, err)
		}
		return c, nil
	default:
		return nil, fmt.Errorf("failed to set up the distiller: unknown distiller %q (want auto, anthropic, openai, claude-cli, command or extract)", name)
	}
}

// backendConfigured reports whether backend b has what it needs to be chosen, and if not, why.
func backendConfigured(b string, cfg *settings.Config, environ []string, lookPath func(string) (string, error)) (bool, string) {
	switch b {
	case settings.BackendAnthropic:
		env := anthropicKeyEnv(cfg)
		if EnvValue(environ, env) == "" {
			return false, "$" + env + " is not set"
		}
	case settings.BackendOpenAI:
		if cfg.OpenAI.BaseURL == "" {
			return false, "openai.base_url is not set"
		}
	case settings.BackendClaudeCLI:
		if cfg.ClaudeCLI.Path == "" {
			if _, err := lookPath("claude"); err != nil {
				return false, "claude is not on PATH and claude_cli.path is not set"
			}
		}
		// The worker runs claude without the user's home directory, so without the login it
		// keeps there: only a credential in the environment reaches it.
		if !slices.ContainsFunc(ClaudeCLICredentialEnv, func(k string) bool { return EnvValue(environ, k) != "" }) {
			return false, "claude runs in the retriever's sandbox, without your home directory and its login; " +
				"run `claude setup-token` and export the token it prints as CLAUDE_CODE_OAUTH_TOKEN (or set ANTHROPIC_API_KEY)"
		}
	case settings.BackendCommand:
		if len(cfg.Command.Argv) == 0 || cfg.Command.Argv[0] == "" {
			return false, "command.argv is not set"
		}
	}
	return true, ""
}

// checkBackend checks the rest of a configured backend's settings: its endpoint, key, model and
// program.
func checkBackend(b string, cfg *settings.Config, environ []string, lookPath func(string) (string, error)) (*DistillerChoice, error) {
	c := &DistillerChoice{Backend: b}
	switch b {
	case settings.BackendAnthropic:
		return chooseAnthropic(cfg, environ)
	case settings.BackendOpenAI:
		if env := cfg.OpenAI.APIKeyEnv; env != "" {
			if EnvValue(environ, env) == "" {
				return nil, fmt.Errorf("openai.api_key_env names $%s, which is not set", env)
			}
			c.KeyEnv = env
		}
		u, err := checkEndpoint("openai.base_url", cfg.OpenAI.BaseURL, c.KeyEnv != "")
		if err != nil {
			return nil, err
		}
		if cfg.OpenAI.Model == "" {
			return nil, errors.New("openai.model is not set (e.g. model = \"llama3.1\" for Ollama)")
		}
		c.Endpoint, c.Model = u.String(), cfg.OpenAI.Model
	case settings.BackendClaudeCLI:
		name := cfg.ClaudeCLI.Path
		if name == "" {
			name = "claude"
		}
		path, err := resolveProgram("claude_cli.path", name, lookPath)
		if err != nil {
			return nil, err
		}
		c.Argv, c.Model = []string{path}, cfg.ClaudeCLI.Model
		if c.Model == "" {
			c.Model = settings.DefaultClaudeCLIModel
		}
	case settings.BackendCommand:
		path, err := resolveProgram("command.argv[0]", cfg.Command.Argv[0], lookPath)
		if err != nil {
			return nil, err
		}
		c.Argv = append([]string{path}, cfg.Command.Argv[1:]...)
	case settings.BackendExtract:
	default:
		return nil, fmt.Errorf("unknown distiller %q", b)
	}
	return c, nil
}

// chooseAnthropic checks the Anthropic Messages API settings, for the distiller and for search.
func chooseAnthropic(cfg *settings.Config, environ []string) (*DistillerChoice, error) {
	env := anthropicKeyEnv(cfg)
	if EnvValue(environ, env) == "" {
		return nil, fmt.Errorf("$%s is not set", env)
	}
	base := cfg.Anthropic.BaseURL
	if base == "" {
		base = settings.DefaultAnthropicBaseURL
	}
	u, err := checkEndpoint("anthropic.base_url", base, true)
	if err != nil {
		return nil, err
	}
	model := cfg.Anthropic.Model
	if model == "" {
		model = settings.DefaultAnthropicModel
	}
	return &DistillerChoice{Backend: settings.BackendAnthropic, Endpoint: u.String(), KeyEnv: env, Model: model}, nil
}

// SearchChoice is the search provider a config names, checked but not yet built.
type SearchChoice struct {
	Provider string // settings.SearchAnthropic, settings.SearchSearXNG or settings.SearchBrave
	Endpoint string // searxng: the instance's base URL, checked
	KeyEnv   string // brave: the variable that holds the key, which is set
	// Anthropic is the Messages API that searches and distills in one call (anthropic).
	Anthropic *DistillerChoice
}

// ChooseSearch returns the search provider cfg.Search names. "anthropic" searches and distills
// in one Messages API call, so it sends the results to Anthropic whatever distiller is
// configured; it is therefore allowed only when the distiller is Anthropic too (distiller =
// "anthropic", or "auto" with the key set). "searxng" needs searxng.url; "brave" needs its key
// variable (default BRAVE_API_KEY). "" or "auto" picks anthropic when the distiller is
// Anthropic, else searxng, else brave, whichever is configured.
func ChooseSearch(cfg *settings.Config, environ []string) (*SearchChoice, error) {
	anthropicDistills := (cfg.Distiller == settings.BackendAnthropic || cfg.Distiller == settings.BackendAuto || cfg.Distiller == "") &&
		EnvValue(environ, anthropicKeyEnv(cfg)) != ""
	braveEnv := cfg.Brave.APIKeyEnv
	if braveEnv == "" {
		braveEnv = settings.DefaultBraveKeyEnv
	}
	name := cfg.Search
	if name == "" || name == "auto" {
		switch {
		case anthropicDistills:
			name = settings.SearchAnthropic
		case cfg.SearXNG.URL != "":
			name = settings.SearchSearXNG
		case EnvValue(environ, braveEnv) != "":
			name = settings.SearchBrave
		default:
			return nil, errors.New("failed to choose a search provider: none is configured. In the [retriever] section of config.toml set " +
				"search = \"searxng\" with [retriever.searxng] url = \"http://127.0.0.1:8888\", or search = \"brave\" with the key in $" + braveEnv +
				", or search = \"anthropic\" with distiller = \"anthropic\" and $" + anthropicKeyEnv(cfg) + " set")
		}
	}
	switch name {
	case settings.SearchAnthropic:
		if !anthropicDistills {
			d := cfg.Distiller
			if d == "" {
				d = settings.BackendAuto
			}
			return nil, fmt.Errorf("failed to set up search: search = \"anthropic\" searches and distills in one Anthropic API call, "+
				"so it needs distiller = \"anthropic\" (or \"auto\") with $%s set; the distiller is %q", anthropicKeyEnv(cfg), d)
		}
		a, err := chooseAnthropic(cfg, environ)
		if err != nil {
			return nil, fmt.Errorf("failed to set up search: %w", err)
		}
		return &SearchChoice{Provider: name, Anthropic: a}, nil
	case settings.SearchSearXNG:
		if cfg.SearXNG.URL == "" {
			return nil, errors.New("failed to set up search: search = \"searxng\" needs [retriever.searxng] url, e.g. url = \"http://127.0.0.1:8888\"")
		}
		u, err := checkEndpoint("searxng.url", cfg.SearXNG.URL, false)
		if err != nil {
			return nil, fmt.Errorf("failed to set up search: %w", err)
		}
		return &SearchChoice{Provider: name, Endpoint: u.String()}, nil
	case settings.SearchBrave:
		if EnvValue(environ, braveEnv) == "" {
			return nil, fmt.Errorf("failed to set up search: search = \"brave\" needs the API key in $%s, which is not set", braveEnv)
		}
		return &SearchChoice{Provider: name, KeyEnv: braveEnv}, nil
	default:
		return nil, fmt.Errorf("failed to set up search: unknown search provider %q (want anthropic, searxng or brave)", name)
	}
}

func anthropicKeyEnv(cfg *settings.Config) string {
	if cfg.Anthropic.APIKeyEnv != "" {
		return cfg.Anthropic.APIKeyEnv
	}
	return settings.DefaultAnthropicKeyEnv
}

// checkEndpoint validates a configured API base URL: http or https, a host, no credentials, no
// query. A key is never sent over plain http except to a loopback address.
func checkEndpoint(what, raw string, sendsKey bool) (*url.URL, error) {
	u, err := url.Parse(strings.TrimRight(raw, "/"))
	if err != nil {
		return nil, fmt.Errorf("%s is not a URL: %w", what, err)
	}
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		return nil, fmt.Errorf("%s must be an http or https URL, not %q", what, clip.String(raw, 200))
	case u.Host == "":
		return nil, fmt.Errorf("%s has no host: %q", what, clip.String(raw, 200))
	case u.User != nil:
		return nil, fmt.Errorf("%s must not carry credentials; name an environment variable for the key instead", what)
	case u.RawQuery != "" || u.Fragment != "":
		return nil, fmt.Errorf("%s must not have a query or fragment", what)
	case sendsKey && u.Scheme == "http" && !isLoopbackHost(u.Hostname()):
		return nil, fmt.Errorf("%s is plain http to %s: the API key would travel unencrypted; use https", what, u.Hostname())
	}
	return u, nil
}

func isLoopbackHost(h string) bool {
	if strings.EqualFold(h, "localhost") {
		return true
	}
	a, err := netip.ParseAddr(h)
	return err == nil && a.Zone() == "" && a.Unmap().IsLoopback()
}

// resolveProgram finds a program named in the config: an absolute path is used as is (it must
// exist), a bare name is looked up on PATH, and a relative path is refused because the program
// runs in a temporary directory.
func resolveProgram(what, name string, lookPath func(string) (string, error)) (string, error) {
	switch {
	case filepath.IsAbs(name):
		fi, err := os.Stat(name)
		if err != nil {
			return "", fmt.Errorf("%s %s: %w", what, name, err)
		}
		if fi.IsDir() || fi.Mode()&0o111 == 0 {
			return "", fmt.Errorf("%s %s is not an executable file", what, name)
		}
		return name, nil
	case strings.ContainsRune(name, filepath.Separator) || strings.ContainsRune(name, '/'):
		return "", fmt.Errorf("%s %q is a relative path; give an absolute path or a program name on PATH", what, name)
	default:
		p, err := lookPath(name)
		if err != nil {
			return "", fmt.Errorf("%s %q is not on PATH", what, name)
		}
		return p, nil
	}
}
