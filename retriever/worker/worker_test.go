package worker

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hookctl/hookctl/retriever"
	"github.com/hookctl/hookctl/retriever/settings"
)

// TestNewDistillerBuildsTheChoice: NewDistiller builds the backend retriever.ChooseDistiller
// chose (whose own rows are in TestChooseDistiller), and passes its refusal on.
func TestNewDistillerBuildsTheChoice(t *testing.T) {
	prog := filepath.Join(t.TempDir(), "distill")
	if err := os.WriteFile(prog, []byte("#!/bin/sh\necho ok\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		cfg  settings.Config
		env  []string
		want string
	}{
		{settings.Config{Distiller: "anthropic"}, []string{"ANTHROPIC_API_KEY=k"}, "anthropic"},
		{settings.Config{Distiller: "openai", OpenAI: settings.OpenAIConfig{BaseURL: "http://127.0.0.1:9/v1", Model: "m"}}, nil, "openai"},
		{settings.Config{Distiller: "claude-cli", ClaudeCLI: settings.ClaudeCLIConfig{Path: prog}}, []string{"CLAUDE_CODE_OAUTH_TOKEN=t"}, "claude-cli"},
		{settings.Config{Distiller: "command", Command: settings.CommandConfig{Argv: []string{prog, "-x"}}}, nil, "command"},
		{settings.Config{Distiller: "extract"}, nil, "extract"},
	} {
		d, err := NewDistiller(c.cfg, c.env, nil)
		if err != nil || d.Name() != c.want {
			t.Errorf("%s: %v %v", c.want, d, err)
		}
	}
	if _, err := NewDistiller(settings.Config{Distiller: "anthropic"}, nil, nil); err == nil || !strings.Contains(err.Error(), "$ANTHROPIC_API_KEY is not set") {
		t.Errorf("no key: %v", err)
	}
	if d, _ := NewDistiller(settings.Config{Distiller: "command", Command: settings.CommandConfig{Argv: []string{prog, "-x"}}}, nil, nil); d != nil {
		if argv := d.(*commandDistiller).argv; len(argv) != 2 || argv[0] != prog || argv[1] != "-x" {
			t.Errorf("command argv %q", argv)
		}
	}
}

// TestNewSearchBuildsTheChoice: exactly one of Searcher and SearchDistiller, the one chosen.
func TestNewSearchBuildsTheChoice(t *testing.T) {
	for _, c := range []struct {
		cfg  settings.Config
		env  []string
		want string
	}{
		{settings.Config{Search: "anthropic", Distiller: "anthropic"}, []string{"ANTHROPIC_API_KEY=k"}, "anthropic"},
		{settings.Config{Search: "searxng", SearXNG: settings.SearXNGConfig{URL: "http://127.0.0.1:8888/"}}, nil, "searxng"},
		{settings.Config{Search: "brave"}, []string{"BRAVE_API_KEY=b"}, "brave"},
	} {
		s, sd, err := NewSearch(c.cfg, c.env)
		switch {
		case err != nil:
			t.Errorf("%s: %v", c.want, err)
		case (s == nil) == (sd == nil):
			t.Errorf("%s: want exactly one of Searcher and SearchDistiller", c.want)
		case s != nil && s.Name() != c.want, sd != nil && sd.Name() != c.want:
			t.Errorf("%s: got %v %v", c.want, s, sd)
		}
	}
	if s, _, _ := NewSearch(settings.Config{Search: "searxng", SearXNG: settings.SearXNGConfig{URL: "http://127.0.0.1:8888/"}}, nil); s != nil {
		if e := s.(*searxngSearcher).endpoint; e != "http://127.0.0.1:8888/search" {
			t.Errorf("searxng endpoint %q", e)
		}
	}
}

// TestMainRefusesAnotherBuild: the worker reads a request only from a hookctl of its own build,
// before it does anything else (it would isolate this process otherwise).
func TestMainRefusesAnotherBuild(t *testing.T) {
	for _, in := range []string{
		`{"request":{"Kind":"fetch","URL":"https://example.com/"},"build":"hookctl 0.9, stamp old"}`,
		`{"request":{"Kind":"fetch","URL":"https://example.com/"}}`,
	} {
		var out strings.Builder
		if code := Main(strings.NewReader(in), &out); code != 1 {
			t.Errorf("%s: exit %d", in, code)
		}
		var res retriever.WorkerResult
		if err := json.Unmarshal([]byte(out.String()), &res); err != nil || !strings.Contains(res.Error, "hookctl-network is from another build") ||
			res.Isolation != "" || len(res.Documents) != 0 {
			t.Errorf("%s: %+v %v", in, res, err)
		}
	}
	var out strings.Builder
	if code := Main(strings.NewReader("{"), &out); code != 1 || !strings.Contains(out.String(), "failed to read the request") {
		t.Errorf("truncated input: exit %d %s", code, out.String())
	}
}
