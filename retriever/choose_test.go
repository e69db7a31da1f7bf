package retriever

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hookctl/hookctl/retriever/settings"
)

// autoRow is one ChooseDistiller case: the config, the environment, whether claude is on PATH, and
// the backend chosen or the error expected.
type autoRow struct {
	name    string
	cfg     settings.Config
	env     []string
	onPath  bool // claude is on PATH
	want    string
	wantErr string
}

func TestChooseDistiller(t *testing.T) {
	claude := fakeProgram(t, "claude")
	argv := []string{fakeProgram(t, "distill")}
	rows := []autoRow{
		{name: "anthropic key wins", env: []string{"ANTHROPIC_API_KEY=k"}, onPath: true,
			cfg: settings.Config{OpenAI: settings.OpenAIConfig{BaseURL: "http://127.0.0.1:1/v1", Model: "m"}, Command: settings.CommandConfig{Argv: argv}}, want: "anthropic"},
		{name: "empty key is unset", env: []string{"ANTHROPIC_API_KEY=", "CLAUDE_CODE_OAUTH_TOKEN=t"}, onPath: true, want: "claude-cli"},
		{name: "custom key variable", env: []string{"MY_KEY=k"}, cfg: settings.Config{Anthropic: settings.AnthropicConfig{APIKeyEnv: "MY_KEY"}}, want: "anthropic"},
		{name: "custom key variable unset", env: []string{"ANTHROPIC_API_KEY=k"}, cfg: settings.Config{Anthropic: settings.AnthropicConfig{APIKeyEnv: "MY_KEY"}},
			wantErr: "$MY_KEY is not set"},
		{name: "openai base url", onPath: true, cfg: settings.Config{OpenAI: settings.OpenAIConfig{BaseURL: "http://127.0.0.1:11434/v1", Model: "llama3.1"}}, want: "openai"},
		{name: "openai without model", cfg: settings.Config{OpenAI: settings.OpenAIConfig{BaseURL: "http://127.0.0.1:11434/v1"}}, wantErr: "openai.model is not set"},
		{name: "claude on PATH", onPath: true, env: []string{"CLAUDE_CODE_OAUTH_TOKEN=t"}, cfg: settings.Config{Command: settings.CommandConfig{Argv: argv}}, want: "claude-cli"},
		{name: "claude on PATH without a credential", onPath: true, cfg: settings.Config{Command: settings.CommandConfig{Argv: argv}}, want: "command"},
		{name: "claude path configured", env: []string{"CLAUDE_CODE_OAUTH_TOKEN=t"}, cfg: settings.Config{ClaudeCLI: settings.ClaudeCLIConfig{Path: claude}}, want: "claude-cli"},
		{name: "claude path configured, gateway token", env: []string{"ANTHROPIC_AUTH_TOKEN=t"}, cfg: settings.Config{ClaudeCLI: settings.ClaudeCLIConfig{Path: claude}}, want: "claude-cli"},
		{name: "claude alone, no credential", onPath: true, wantErr: "claude-cli: claude runs in the retriever's sandbox"},
		{name: "explicit claude-cli without a credential", onPath: true, cfg: settings.Config{Distiller: "claude-cli"}, wantErr: "claude setup-token"},
		{name: "command", cfg: settings.Config{Command: settings.CommandConfig{Argv: argv}}, want: "command"},
		{name: "extract never automatic", cfg: settings.Config{}, wantErr: "none is available"},
		{name: "explicit extract", cfg: settings.Config{Distiller: "extract"}, want: "extract"},
		{name: "explicit anthropic without key", cfg: settings.Config{Distiller: "anthropic"}, onPath: true, wantErr: "failed to set up the anthropic distiller: $ANTHROPIC_API_KEY is not set"},
		{name: "explicit openai without url", cfg: settings.Config{Distiller: "openai"}, wantErr: "openai.base_url is not set"},
		{name: "explicit claude-cli missing", cfg: settings.Config{Distiller: "claude-cli"}, wantErr: "claude is not on PATH"},
		{name: "explicit claude-cli bad path", env: []string{"CLAUDE_CODE_OAUTH_TOKEN=t"}, cfg: settings.Config{Distiller: "claude-cli", ClaudeCLI: settings.ClaudeCLIConfig{Path: "/nonexistent/claude"}}, wantErr: "claude_cli.path /nonexistent/claude"},
		{name: "explicit command missing", cfg: settings.Config{Distiller: "command"}, wantErr: "command.argv is not set"},
		{name: "command relative path", cfg: settings.Config{Distiller: "command", Command: settings.CommandConfig{Argv: []string{"./distill"}}}, wantErr: "is a relative path"},
		{name: "explicit openai over the one in auto", cfg: settings.Config{Distiller: "openai", OpenAI: settings.OpenAIConfig{BaseURL: "https://api.example.com/v1", Model: "m"}},
			env: []string{"ANTHROPIC_API_KEY=k"}, want: "openai"},
		{name: "unknown name", cfg: settings.Config{Distiller: "gpt"}, wantErr: `unknown distiller "gpt"`},
		{name: "key over plain http", env: []string{"ANTHROPIC_API_KEY=k"}, cfg: settings.Config{Anthropic: settings.AnthropicConfig{BaseURL: "http://proxy.example"}},
			wantErr: "the API key would travel unencrypted"},
		{name: "key over loopback http", env: []string{"ANTHROPIC_API_KEY=k"}, cfg: settings.Config{Anthropic: settings.AnthropicConfig{BaseURL: "http://127.0.0.1:9"}}, want: "anthropic"},
		{name: "credentials in url", cfg: settings.Config{OpenAI: settings.OpenAIConfig{BaseURL: "http://u:p@127.0.0.1/v1", Model: "m"}}, wantErr: "must not carry credentials"},
		{name: "openai key variable unset", cfg: settings.Config{OpenAI: settings.OpenAIConfig{BaseURL: "https://api.openai.com/v1", Model: "m", APIKeyEnv: "OPENAI_API_KEY"}},
			wantErr: "$OPENAI_API_KEY, which is not set"},
	}
	for _, r := range rows {
		lookPath := func(name string) (string, error) {
			if name == "claude" && r.onPath {
				return claude, nil
			}
			return "", errors.New("not found")
		}
		d, err := ChooseDistiller(&r.cfg, r.env, lookPath)
		switch {
		case r.wantErr != "":
			if err == nil || !strings.Contains(err.Error(), r.wantErr) {
				t.Errorf("%s: err = %v, want it to contain %q", r.name, err, r.wantErr)
			}
		case err != nil:
			t.Errorf("%s: %v", r.name, err)
		case d.Backend != r.want:
			t.Errorf("%s: chose %s, want %s", r.name, d.Backend, r.want)
		}
	}
}

func TestChooseDistillerNoBackendShowsConfig(t *testing.T) {
	_, err := ChooseDistiller(&settings.Config{}, nil, func(string) (string, error) { return "", errors.New("no") })
	if err == nil {
		t.Fatal("no error without any backend")
	}
	msg := err.Error()
	for _, s := range []string{
		"anthropic: $ANTHROPIC_API_KEY is not set", "openai: openai.base_url is not set",
		"claude-cli: claude is not on PATH", "command: command.argv is not set",
		"config.toml", "[retriever]", `distiller = "anthropic"`, "[retriever.openai]", `base_url = "http://127.0.0.1:11434/v1"`,
		"[retriever.claude_cli]", "[retriever.command]", `argv = [`, `distiller = "extract"`,
	} {
		if !strings.Contains(msg, s) {
			t.Errorf("the error lacks %q:\n%s", s, msg)
		}
	}
}

func TestChooseSearch(t *testing.T) {
	for _, r := range []struct {
		name    string
		cfg     settings.Config
		env     []string
		want    string
		wantErr string
	}{
		{name: "anthropic with anthropic distiller", cfg: settings.Config{Search: "anthropic", Distiller: "anthropic"}, env: []string{"ANTHROPIC_API_KEY=k"}, want: "anthropic"},
		{name: "anthropic with auto", cfg: settings.Config{Search: "anthropic"}, env: []string{"ANTHROPIC_API_KEY=k"}, want: "anthropic"},
		{name: "anthropic with another distiller", cfg: settings.Config{Search: "anthropic", Distiller: "openai"}, env: []string{"ANTHROPIC_API_KEY=k"},
			wantErr: `needs distiller = "anthropic"`},
		{name: "anthropic without key", cfg: settings.Config{Search: "anthropic"}, wantErr: "$ANTHROPIC_API_KEY set"},
		{name: "searxng", cfg: settings.Config{Search: "searxng", SearXNG: settings.SearXNGConfig{URL: "http://127.0.0.1:8888/"}}, want: "searxng"},
		{name: "searxng without url", cfg: settings.Config{Search: "searxng"}, wantErr: "needs [retriever.searxng] url"},
		{name: "searxng bad url", cfg: settings.Config{Search: "searxng", SearXNG: settings.SearXNGConfig{URL: "file:///etc"}}, wantErr: "http or https"},
		{name: "brave", cfg: settings.Config{Search: "brave"}, env: []string{"BRAVE_API_KEY=b"}, want: "brave"},
		{name: "brave custom variable", cfg: settings.Config{Search: "brave", Brave: settings.BraveConfig{APIKeyEnv: "B"}}, env: []string{"B=b"}, want: "brave"},
		{name: "brave without key", cfg: settings.Config{Search: "brave"}, wantErr: "$BRAVE_API_KEY, which is not set"},
		{name: "auto prefers anthropic", env: []string{"ANTHROPIC_API_KEY=k", "BRAVE_API_KEY=b"}, cfg: settings.Config{SearXNG: settings.SearXNGConfig{URL: "http://127.0.0.1:8888"}}, want: "anthropic"},
		{name: "auto searxng", env: []string{"BRAVE_API_KEY=b"}, cfg: settings.Config{SearXNG: settings.SearXNGConfig{URL: "http://127.0.0.1:8888"}}, want: "searxng"},
		{name: "auto brave", env: []string{"BRAVE_API_KEY=b"}, want: "brave"},
		{name: "auto none", wantErr: "failed to choose a search provider"},
		{name: "unknown", cfg: settings.Config{Search: "google"}, wantErr: `unknown search provider "google"`},
	} {
		c, err := ChooseSearch(&r.cfg, r.env)
		if r.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), r.wantErr) {
				t.Errorf("%s: err = %v, want %q", r.name, err, r.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", r.name, err)
			continue
		}
		if c.Provider != r.want || (c.Anthropic != nil) != (r.want == settings.SearchAnthropic) {
			t.Errorf("%s: got %+v, want %s", r.name, c, r.want)
		}
	}
}

// fakeProgram writes an executable shell script named name that prints "ok", for tests that
// need a program to exist.
func fakeProgram(t *testing.T, name string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte("#!/bin/sh\necho ok\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}
