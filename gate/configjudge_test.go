package gate

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hookctl/hookctl/config"
	"github.com/hookctl/hookctl/hook"
	"github.com/hookctl/hookctl/internal/shellglob"
	"github.com/hookctl/hookctl/policy"
)

// TestEditConfig: [edit] sudo and allow (the guard's families), checked when the file is read,
// global only; $TMPDIR is read with the config, and the edit-mode decision uses all three.
func TestEditConfig(t *testing.T) {
	c, err := ParseConfig("/c.toml", "[edit]\nsudo = [\"apt-get install\", \"systemctl restart nginx\"]\nallow = [\"databases\"]\n")
	if err != nil || len(c.SudoPrefixes()) != 2 || c.SudoPrefixes()[1][2] != "nginx" || c.Edit.Allow[0] != "databases" {
		t.Fatalf("%+v %v", c, err)
	}
	for text, want := range map[string]string{
		"[edit]\nallow = [\"rm\"]\n":  `:2: edit.allow: "rm" is not one of the edit guard's families`,
		"[edit]\nsudo = [\" \"]\n":    ":2: edit.sudo holds an empty command",
		"[edit]\nexclude = [\"x\"]\n": `unknown key "edit.exclude"`,
		"[edit]\nallow = \"cloud\"\n": "", // a type error: the decoder's message
	} {
		if _, err := ParseConfig("/c.toml", text); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", text, err, want)
		}
	}
	// A repository cannot loosen the guard.
	home, proj := t.TempDir(), t.TempDir()
	t.Setenv("HOME", t.TempDir())
	t.Setenv("TMPDIR", "/var/folders/xy/T/")
	os.WriteFile(filepath.Join(proj, config.ProjectConfigName), []byte("[edit]\nsudo = [\"rm\"]\nallow = [\"databases\"]\n"), 0o644)
	c, err = LoadConfigFor(home, proj)
	if err != nil || len(c.Edit.Sudo) != 0 || len(c.Edit.Allow) != 0 || len(c.Warnings) != 1 || !strings.Contains(c.Warnings[0], "edit") {
		t.Errorf("a project's [edit]: %+v %v", c, err)
	}
	if c.TempDir != "/var/folders/xy/T" {
		t.Errorf("TempDir = %q, want $TMPDIR cleaned", c.TempDir)
	}

	decide := func(conf *config.Config, cmd string) hook.Verdict {
		p := &policy.Policy{World: shellglob.World{}, Client: testClient, Config: conf, Binary: "/opt/hookctl",
			Protection: policy.Protection{Home: "/home/u", Paths: policy.ProtectedPaths(testClient, "/home/u/.config/hookctl", "/home/u", "/opt/hookctl", "/home/u/proj")}}
		return p.Decide(&hook.ToolCall{Tool: "Bash", Kind: hook.KindShell, Cwd: "/home/u/proj", Command: cmd}, policy.SessionState{Mode: hook.ModeEdit}).Verdict
	}
	loose := &config.Config{Edit: config.EditConfig{Sudo: []string{"apt-get install"}, Allow: []string{"databases"}}, TempDir: "/var/folders/xy/T"}
	for _, cmd := range []string{"sudo apt-get install -y jq", `psql -c "DROP TABLE t"`, `rm -rf "$TMPDIR/build"`} {
		if v := decide(&config.Config{}, cmd); v != hook.Deny {
			t.Errorf("%q with no [edit]: %v, want Deny", cmd, v)
		}
		if v := decide(loose, cmd); v == hook.Deny {
			t.Errorf("%q with [edit] and $TMPDIR: Deny, want it run", cmd)
		}
	}
	if v := decide(loose, "sudo rm -rf /"); v != hook.Deny {
		t.Errorf("sudo rm with apt-get install allowed: %v", v)
	}
}

// TestManagedKeysHold: for every key the organisation's file can set, a user's file that tries
// to loosen it does not. Control: the user's file alone gives the looser value, so each row
// shows a loosening the managed file stopped. A row where the user tightens shows that is kept.
func TestManagedKeysHold(t *testing.T) {
	rows := []struct {
		key, managed, user string
		get                func(*config.Config) string
		want               string
	}{
		{"read_only_agents", `read_only_agents = ["auditor"]`, `read_only_agents = ["mine"]`, func(c *config.Config) string { return fmt.Sprint(c.ReadOnlyAgents) }, "[auditor mine]"},
		{"deny_programs", `deny_programs = ["curl"]`, `deny_programs = ["wc"]`, func(c *config.Config) string { return fmt.Sprint(c.DenyPrograms) }, "[curl wc]"},
		{"default_mode", `default_mode = "read-only"`, `default_mode = "edit"`, func(c *config.Config) string { return c.SessionDefault().String() }, "read-only"},
		{"direct_fetch", `direct_fetch = false`, `direct_fetch = true`, func(c *config.Config) string { return fmt.Sprint(c.DirectFetch) }, "false"},
		{"sandbox", `sandbox = "require"`, `sandbox = "auto"`, func(c *config.Config) string { return c.Sandbox }, "require"},
		{"allow_read", `allow_read = ["~/.aws/config"]`, `allow_read = ["~/.aws/config", "~/.ssh"]`, func(c *config.Config) string { return fmt.Sprint(c.AllowRead) }, "[~/.aws/config]"},
		{"pass_env", `pass_env = []`, `pass_env = ["AWS_SECRET_ACCESS_KEY"]`, func(c *config.Config) string { return fmt.Sprint(c.PassEnv) }, "[]"},
		{"read_only_runners", `read_only_runners = ["go test ./..."]`, `read_only_runners = ["go test ./...", "make"]`, func(c *config.Config) string { return fmt.Sprint(c.ReadOnlyRunners, len(c.Runners)) }, "[go test ./...] 1"},
		{"edit_writable", `edit_writable = []`, `edit_writable = ["/srv"]`, func(c *config.Config) string { return fmt.Sprint(c.EditWritable) }, "[]"},
		{"edit_auto_run_writable", `edit_auto_run_writable = []`, `edit_auto_run_writable = [".husky"]`, func(c *config.Config) string { return fmt.Sprint(c.EditAutoRunWritable) }, "[]"},
		{"edit_unix_sockets", `edit_unix_sockets = []`, `edit_unix_sockets = ["/run/docker.sock"]`, func(c *config.Config) string { return fmt.Sprint(c.EditUnixSockets) }, "[]"},
		{"network", "[network]\nedit = \"proxy\"\nallow = [\"example.com\"]\n", "[network]\nedit = \"full\"\nallow = [\"example.com\", \"evil.example\"]\n",
			func(c *config.Config) string { return fmt.Sprintf("%s %v", c.Network.Edit, c.Network.Allow) }, "proxy [example.com]"},
		{"command_timeout", `command_timeout = "1m"`, `command_timeout = "10m"`, func(c *config.Config) string { return c.CommandTimeout }, "1m"},
		{"retriever", "[retriever]\nmax_bytes = 1000\n", "[retriever]\nmax_bytes = 9000000\n", func(c *config.Config) string { return fmt.Sprint(c.Retriever.MaxBytes) }, "1000"},
		{"audit", "[audit]\nkeep_raw = true\n", "[audit]\nkeep_raw = false\n", func(c *config.Config) string { return fmt.Sprint(c.Audit.KeepRaw) }, "true"},
		{"run", "[run]\nmodel_endpoints = []\n", "[run]\nmodel_endpoints = [\"http://127.0.0.1:9\"]\n", func(c *config.Config) string { return fmt.Sprint(c.Run.ModelEndpoints) }, "[]"},
		{"edit", "[edit]\nallow = []\n", "[edit]\nallow = [\"databases\"]\n", func(c *config.Config) string { return fmt.Sprint(c.Edit.Allow) }, "[]"},
		// The destination is locked whole: a user's own collector, headers or CA would send the
		// organisation's records elsewhere, or trust another server as the collector.
		{"telemetry", "[telemetry]\notlp_endpoint = \"https://collector.corp:4318\"\notlp_certificate = \"/etc/ssl/corp.pem\"\n",
			"[telemetry]\notlp_endpoint = \"http://127.0.0.1:4318\"\notlp_headers = { tenant = \"me\" }\n",
			func(c *config.Config) string {
				return fmt.Sprint(c.Telemetry.Endpoint, c.Telemetry.Headers, c.Telemetry.Certificate)
			}, "https://collector.corp:4318map[]/etc/ssl/corp.pem"},
		// A user may ask for a newer hookctl (newer), never an older one; the clients are locked.
		{"min_hookctl_version", `min_hookctl_version = "1.5.0"`, `min_hookctl_version = "1.0.0"`, func(c *config.Config) string { return c.MinHookctlVersion }, "1.5.0"},
		{"clients", "[clients.claude]\nmin_version = \"2.1.77\"\n", "[clients.claude]\nmin_version = \"1.0.0\"\n[clients.codex]\nmin_version = \"0.1.0\"\n",
			func(c *config.Config) string { return fmt.Sprint(c.Clients) }, "map[claude:{2.1.77 map[]}]"},
	}
	covered := map[string]bool{}
	for _, r := range rows {
		covered[r.key] = true
		t.Run(r.key, func(t *testing.T) {
			user, err := ParseConfig("/home/u/.config/hookctl/config.toml", r.user)
			if err != nil {
				t.Fatal(err)
			}
			if got := r.get(user); got == r.want {
				t.Fatalf("control: the user's file alone gives %s already; the row proves nothing", got)
			}
			m, err := ParseConfig(config.ManagedConfigPath, r.managed)
			if err != nil {
				t.Fatal(err)
			}
			user.ApplyManaged(m)
			if got := r.get(user); got != r.want {
				t.Errorf("with the managed file: %s, want %s", got, r.want)
			}
			if len(user.ManagedKeys) != 1 || user.ManagedKeys[0] != r.key || user.Managed != config.ManagedConfigPath {
				t.Errorf("managed keys %v from %q", user.ManagedKeys, user.Managed)
			}
			if len(user.Warnings) != 1 || !strings.Contains(user.Warnings[0], r.key) || !strings.Contains(user.Warnings[0], config.ManagedConfigPath) {
				t.Errorf("the user is not told: %q", user.Warnings)
			}
		})
	}
	for _, e := range config.ManagedMerge {
		if !covered[e.Key] {
			t.Errorf("managed key %s has no row", e.Key)
		}
	}
}

func TestSandboxSetting(t *testing.T) {
	if _, err := ParseConfig("c.toml", `sandbox = "off"`); err == nil || !strings.Contains(err.Error(), "c.toml:1: sandbox must be") {
		t.Errorf("sandbox = off: %v", err)
	}
	home, project := t.TempDir(), t.TempDir()
	writeFile(t, home+"/config.toml", `sandbox = "require"`)
	writeFile(t, project+"/"+config.ProjectConfigName, `sandbox = "auto"`)
	if c, err := LoadConfigFor(home, project); err != nil || c.Sandbox != config.SandboxRequire {
		t.Errorf("a project relaxed require: %+v %v", c, err)
	}
	writeFile(t, home+"/config.toml", ``)
	writeFile(t, project+"/"+config.ProjectConfigName, `sandbox = "require"`)
	if c, err := LoadConfigFor(home, project); err != nil || c.Sandbox != config.SandboxRequire {
		t.Errorf("a project could not require the sandbox: %+v %v", c, err)
	}
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestRunnerEntries(t *testing.T) {
	for _, bad := range []string{`"go test; rm -rf x"`, `"make $T"`, `"make test > out"`, `"cd x && make"`, `""`, `"make 'a|b'"`} {
		if _, err := ParseConfig("c.toml", "read_only_runners = ["+bad+"]"); err == nil {
			t.Errorf("read_only_runners = [%s] accepted", bad)
		}
	}
	cfg, err := ParseConfig("c.toml", `read_only_runners = ["go test ./...", "cargo test *"]`)
	if err != nil {
		t.Fatal(err)
	}
	p := &policy.Policy{World: shellglob.World{}, Config: cfg, Binary: "/bin/hookctl", Sandbox: func() policy.Isolation { return policy.Isolation{Available: true} }}
	for cmd, want := range map[string]hook.Verdict{
		"go test ./...":                      hook.Allow,
		"go test ./... 2>&1 | tail -20":      hook.Allow,
		"go test ./... | sh":                 hook.Deny,
		"go test":                            hook.Deny,
		"go test ./... -exec x":              hook.Deny,
		"cargo test":                         hook.Allow,
		"cargo test --release -- x":          hook.Allow,
		"cargo testx":                        hook.Deny,
		"for p in a; do go test ./...; done": hook.Deny,
	} {
		if d := p.Decide(&hook.ToolCall{Tool: "Bash", Kind: hook.KindShell, Command: cmd}, policy.SessionState{}); d.Verdict != want {
			t.Errorf("%q: %v (%s)", cmd, d.Verdict, d.Reason)
		}
	}
	if d := (&policy.Policy{World: shellglob.World{}, Config: cfg, Binary: "/bin/hookctl"}).Decide(&hook.ToolCall{Tool: "Bash", Kind: hook.KindShell, Command: "go test ./..."}, policy.SessionState{}); d.Verdict != hook.Deny {
		t.Errorf("the policy admitted a runner without the sandbox: %s %q", d.Command, d.Isolation)
	}
	home, project := t.TempDir(), t.TempDir()
	writeFile(t, home+"/config.toml", ``)
	writeFile(t, project+"/"+config.ProjectConfigName, `read_only_runners = ["make"]`)
	if c, err := LoadConfigFor(home, project); err != nil || len(c.Runners) != 0 || len(c.Warnings) != 1 {
		t.Errorf("a project named a runner: %+v %v", c, err)
	}
}
