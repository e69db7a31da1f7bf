package hook

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseConfigErrorsNameFileAndLine(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"read_only_agents = [\n", "/c.toml:1: "},
		{"\n\nread_only_agents = [\"a\", 2]\n", "line 3"},
		{"read_only_agents = 3\n", "line 1"},
		{"# comment\nx = 1\n", `/c.toml:2: unknown key "x"`},
		{"[table]\nkey = 1\n", `/c.toml:1: unknown key "table"`},
		{"read_only_agents = [\"\"]\n", "empty name"},
		{"default_mode = \"yolo\"\n", `/c.toml:1: default_mode: unknown mode "yolo"`},
	} {
		_, err := ParseConfig("/c.toml", c.text)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "/c.toml") {
			t.Errorf("%q: error %v, want it to contain %q", c.text, err, c.want)
		}
	}
}

func TestConfigOnlyAddsReadOnlyAgents(t *testing.T) {
	c, err := ParseConfig("/c.toml", `read_only_agents = ["reviewer"]`)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range []string{"Explore", "Plan", "reviewer"} {
		if !c.ReadOnlyAgent(a) {
			t.Errorf("%s is not read-only", a)
		}
	}
	for _, a := range []string{"", "explore", "general-purpose", "Explore "} {
		if c.ReadOnlyAgent(a) {
			t.Errorf("%q is read-only; agent types match exactly", a)
		}
	}
}

func TestLoadConfig(t *testing.T) {
	home := t.TempDir()
	c, err := LoadConfig(home)
	if err != nil || len(c.ReadOnlyAgents) != 0 || c.Path != "" {
		t.Fatalf("missing file: %+v %v", c, err)
	}
	path := filepath.Join(home, "config.toml")
	os.WriteFile(path, []byte(strings.Repeat("#", MaxConfigSize+1)), 0o600)
	if _, err := LoadConfig(home); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("oversized: %v", err)
	}
	os.WriteFile(path, []byte(strings.Repeat("#", MaxConfigSize)), 0o600)
	if _, err := LoadConfig(home); err != nil {
		t.Errorf("at the cap: %v", err)
	}
	os.Remove(path)
	os.Mkdir(path, 0o700) // unreadable as a file
	if _, err := LoadConfig(home); err == nil {
		t.Errorf("a directory as config: no error")
	}
}

func TestHome(t *testing.T) {
	t.Setenv("HOOKCTL_HOME", "/h")
	if h, _ := Home(); h != "/h" {
		t.Errorf("HOOKCTL_HOME: %s", h)
	}
	t.Setenv("HOOKCTL_HOME", "")
	t.Setenv("XDG_CONFIG_HOME", "/x")
	if h, _ := Home(); h != "/x/hookctl" {
		t.Errorf("XDG_CONFIG_HOME: %s", h)
	}
	t.Setenv("XDG_CONFIG_HOME", "relative")
	t.Setenv("HOME", "/home/u")
	if h, _ := Home(); h != "/home/u/.config/hookctl" {
		t.Errorf("relative XDG_CONFIG_HOME ignored: %s", h)
	}
}
