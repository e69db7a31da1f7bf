package config

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hookctl/hookctl/hook"
	"github.com/hookctl/hookctl/session"
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
		{"default_mode = \"review\"\n", `/c.toml:1: default_mode: "review" is chosen per session`}, // publishing is never a default
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

// TestProjectConfigOnlyTightens: a project's .hookctl.toml adds read-only agents and denied
// programs, and its global-only keys are ignored with a warning.
func TestProjectConfigOnlyTightens(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", t.TempDir()) // the walk up stops below the user's home, not here
	os.WriteFile(filepath.Join(home, "config.toml"), []byte("read_only_agents = [\"mine\"]\ndefault_mode = \"read-only\"\n"), 0o600)
	proj := t.TempDir()
	sub := filepath.Join(proj, "a", "b")
	os.MkdirAll(sub, 0o755)
	os.WriteFile(filepath.Join(proj, ProjectConfigName), []byte("read_only_agents = [\"theirs\"]\ndeny_programs = [\"jq\"]\ndefault_mode = \"edit\"\n"), 0o644)

	c, err := LoadConfigFor(home, sub) // found two levels up
	if err != nil {
		t.Fatal(err)
	}
	if !c.ReadOnlyAgent("mine") || !c.ReadOnlyAgent("theirs") || !c.ReadOnlyAgent("Explore") || !c.ProgramDenied("jq") {
		t.Errorf("merged: %+v", c)
	}
	if c.SessionDefault() != hook.ModeReadOnly {
		t.Errorf("the project set the default mode to %v", c.SessionDefault())
	}
	if len(c.Warnings) != 1 || !strings.Contains(c.Warnings[0], "default_mode") || c.Project != filepath.Join(proj, ProjectConfigName) {
		t.Errorf("warnings %v, project %q", c.Warnings, c.Project)
	}

	// A broken project file refuses, naming it.
	os.WriteFile(filepath.Join(proj, ProjectConfigName), []byte("deny_programs = 3\n"), 0o644)
	if _, err := LoadConfigFor(home, sub); err == nil || !strings.Contains(err.Error(), ProjectConfigName) {
		t.Errorf("broken project file: %v", err)
	}
	// No project file: the global config alone.
	c, err = LoadConfigFor(home, t.TempDir())
	if err != nil || c.Project != "" || len(c.ReadOnlyAgents) != 1 {
		t.Errorf("no project file: %+v %v", c, err)
	}
}

func TestGlobalDefaultMode(t *testing.T) {
	c, err := ParseConfig("/c.toml", `default_mode = "edit"`)
	if err != nil || c.SessionDefault() != hook.ModeEdit {
		t.Errorf("%+v %v", c, err)
	}
	if (&Config{}).SessionDefault() != hook.ModeReadOnly {
		t.Error("the default is not read-only")
	}
}

// TestConfigFilesThatAreNotFiles: a dangling symbolic link is an error, not "no config" (the
// user meant a file to be there); a FIFO is refused at once instead of blocking the hook.
func TestConfigFilesThatAreNotFiles(t *testing.T) {
	home := t.TempDir()
	if err := os.Symlink(filepath.Join(home, "gone.toml"), filepath.Join(home, "config.toml")); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadConfig(home); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("dangling symlink: %v", err)
	}
	// A link to a real file is followed: dotfile managers link config files.
	os.WriteFile(filepath.Join(home, "gone.toml"), []byte(`deny_programs = ["jq"]`), 0o600)
	if c, err := LoadConfig(home); err != nil || !c.ProgramDenied("jq") {
		t.Errorf("linked config: %+v %v", c, err)
	}
	fifo := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(fifo, "config.toml"), 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, err := LoadConfig(fifo); done <- err }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "FIFO") {
			t.Errorf("FIFO: %v", err)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("reading a FIFO config hung")
	}
}

// TestNegativeSizesAreRefused: a negative size cap was accepted silently.
func TestNegativeSizesAreRefused(t *testing.T) {
	for _, text := range []string{"[audit]\nmax_bytes = -1\n", "[retriever]\nmax_bytes = -5\n"} {
		if _, err := ParseConfig("/c.toml", text); err == nil || !strings.Contains(err.Error(), "negative") || !strings.Contains(err.Error(), ":2:") {
			t.Errorf("%q: %v", text, err)
		}
	}
}

// TestNetworkConfig: [network] is the user's alone; its values are checked when the config
// loads, naming the line, so that a bad entry never reaches a command.
func TestNetworkConfig(t *testing.T) {
	c, err := ParseConfig("/c.toml", "[network]\nedit = \"full\"\nallow = [\"npm.corp.example:8443\", \"*.corp.example\"]\n")
	if err != nil || !c.FullNetwork() || len(c.Network.Allow) != 2 {
		t.Errorf("%+v %v", c, err)
	}
	if c, _ := ParseConfig("/c.toml", ""); c.FullNetwork() {
		t.Error("the default is the egress proxy, not the full network")
	}
	for text, want := range map[string]string{
		"[network]\nedit = \"open\"\n":                         `:2: network.edit must be "proxy" or "full"`,
		"[network]\n\nallow = [\"http://registry.example\"]\n": ":3: network.allow:",
		"[network]\nallow = [\"evil.example:0\"]\n":            ":2: network.allow:",
		"[network]\nallow = \"registry.example\"\n":            "", // a type error: the decoder's message
		"[network]\nproxy = \"http://corp:3128\"\n":            `unknown key "network.proxy"`,
	} {
		_, err := ParseConfig("/c.toml", text)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", text, err, want)
		}
	}
	// A project cannot open a host or choose the full network.
	home, proj := t.TempDir(), t.TempDir()
	t.Setenv("HOME", t.TempDir())
	os.WriteFile(filepath.Join(proj, ProjectConfigName), []byte("[network]\nedit = \"full\"\nallow = [\"evil.example\"]\n"), 0o644)
	c, err = LoadConfigFor(home, proj)
	if err != nil || c.FullNetwork() || len(c.Network.Allow) != 0 || len(c.Warnings) != 1 || !strings.Contains(c.Warnings[0], "network") {
		t.Errorf("a project's [network]: %+v %v", c, err)
	}
}

// TestProjectRemotes reads the remotes of a repository, a worktree of one and a subdirectory of
// one; a directory outside any repository has none.
func TestProjectRemotes(t *testing.T) {
	repo := t.TempDir()
	os.MkdirAll(filepath.Join(repo, ".git", "worktrees", "wt"), 0o755)
	os.WriteFile(filepath.Join(repo, ".git", "config"), []byte("[remote \"origin\"]\n\turl = https://github.com/o/r\n"), 0o644)
	os.WriteFile(filepath.Join(repo, ".git", "worktrees", "wt", "commondir"), []byte("../..\n"), 0o644)
	wt := t.TempDir()
	os.WriteFile(filepath.Join(wt, ".git"), []byte("gitdir: "+filepath.Join(repo, ".git", "worktrees", "wt")+"\n"), 0o644)
	sub := filepath.Join(repo, "a", "b")
	os.MkdirAll(sub, 0o755)
	for dir, want := range map[string]string{repo: "github.com", wt: "github.com", sub: "github.com", t.TempDir(): "", "": ""} {
		got := strings.Join(session.ProjectRemotes(dir), ",")
		if got != want {
			t.Errorf("ProjectRemotes(%q) = %q, want %q", dir, got, want)
		}
	}
}

// TestTelemetryConfig: a [telemetry] section the exporter could not use as written is refused,
// naming the file, the line and the key; one it can is kept as written.
func TestTelemetryConfig(t *testing.T) {
	good := "[telemetry]\notlp_endpoint = \"https://collector.corp:4318\"\notlp_protocol = \"grpc\"\n" +
		"otlp_headers = { authorization = \"Bearer t\", \"x-tenant\" = \"dev\" }\notlp_certificate = \"/etc/ssl/ca.pem\"\n" +
		"otlp_client_certificate = \"/etc/ssl/me.pem\"\notlp_client_key = \"/etc/ssl/me.key\"\n"
	c, err := ParseConfig("c.toml", good)
	if err != nil {
		t.Fatal(err)
	}
	tc := c.Telemetry
	if !tc.Enabled() || tc.OTLPProtocol() != OTLPGRPC || tc.Headers["x-tenant"] != "dev" || tc.ClientKey != "/etc/ssl/me.key" {
		t.Errorf("parsed %+v", tc)
	}
	if c, _ := ParseConfig("c.toml", "[telemetry]\notlp_endpoint = \"http://collector:4318\"\n"); c.Telemetry.OTLPProtocol() != OTLPHTTP {
		t.Errorf("default protocol %q", c.Telemetry.OTLPProtocol())
	}
	if c, _ := ParseConfig("c.toml", ""); c.Telemetry.Enabled() {
		t.Error("no section, yet enabled")
	}
	for _, bad := range []struct{ text, want string }{
		{"[telemetry]\notlp_endpoint = \"collector:4318\"\n", "c.toml:2: telemetry.otlp_endpoint must be an http:// or https:// URL"},
		{"[telemetry]\notlp_endpoint = \"ftp://c\"\n", "c.toml:2: telemetry.otlp_endpoint must be"},
		{"[telemetry]\notlp_endpoint = \"http://u:p@c:4318\"\n", "c.toml:2: telemetry.otlp_endpoint holds a user name or password"},
		{"[telemetry]\notlp_endpoint = \"http://c:4318\"\notlp_protocol = \"http/json\"\n", "c.toml:3: telemetry.otlp_protocol must be \"http/protobuf\" or \"grpc\", not \"http/json\""},
		{"[telemetry]\notlp_endpoint = \"http://c:4317/x\"\notlp_protocol = \"grpc\"\n", "c.toml:2: telemetry.otlp_endpoint \"http://c:4317/x\" has a path"},
		{"[telemetry]\notlp_protocol = \"grpc\"\n", "c.toml:2: telemetry.otlp_protocol is set but telemetry.otlp_endpoint is not"},
		{"[telemetry]\notlp_endpoint = \"http://c:4318\"\notlp_headers = { \"a b\" = \"x\" }\n", "c.toml:3: telemetry.otlp_headers: \"a b\" is not a header name"},
		{"[telemetry]\notlp_endpoint = \"http://c:4318\"\notlp_headers = { a = \"x\\ny\" }\n", "telemetry.otlp_headers: the value of a holds a line break"},
		{"[telemetry]\notlp_endpoint = \"https://c:4318\"\notlp_certificate = \"ca.pem\"\n", "c.toml:3: telemetry.otlp_certificate \"ca.pem\" is not an absolute path"},
		{"[telemetry]\notlp_endpoint = \"http://c:4318\"\notlp_certificate = \"/ca.pem\"\n", "TLS files need an https:// endpoint"},
		{"[telemetry]\notlp_endpoint = \"https://c:4318\"\notlp_client_key = \"/k\"\n", "mTLS needs both"},
		{"[telemetry]\notlp_endpoint = \"https://c:4318\"\notlp_compression = \"gzip\"\n", "c.toml:3: unknown key \"telemetry.otlp_compression\""},
	} {
		_, err := ParseConfig("c.toml", bad.text)
		if err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%q: got %v, want %q", bad.text, err, bad.want)
		}
	}
}
