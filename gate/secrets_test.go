package gate

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hookctl/hookctl/config"
	"github.com/hookctl/hookctl/hook"
	"github.com/hookctl/hookctl/internal/shellglob"
	"github.com/hookctl/hookctl/policy"
)

// secretsWorld is a home with credential stores and a project with secret files, for the
// sensitive-file rule's tests; HOME points at the home for the test.
func secretsWorld(t *testing.T) (home, project string) {
	t.Helper()
	root := t.TempDir()
	home, project = filepath.Join(root, "home"), filepath.Join(root, "project")
	for _, f := range []string{"home/.aws/credentials", "home/.netrc", "home/.ssh/id_ed25519", "home/.ssh/known_hosts",
		"project/.env", "project/.env.example", "project/README.md", "project/config/.env"} {
		os.MkdirAll(filepath.Dir(filepath.Join(root, f)), 0o755)
		if err := os.WriteFile(filepath.Join(root, f), []byte("SECRET=1\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("HOME", home)
	return home, project
}

// TestSensitiveFiles: a read of a credential store is refused in every mode to the Read tool
// and in read-only mode to the shell, on every word the program may open (option values, git's
// REV:PATH, loop words, after cd); a project secret file only where read-only rules bind. Names
// in patterns, names listed and public files are not reads of a secret.
func TestSensitiveFiles(t *testing.T) {
	home, project := secretsWorld(t)
	p := &policy.Policy{World: shellglob.World{}, Client: testClient, Config: &config.Config{}, ResolveReads: ResolveReads}
	shell := func(cmd string, st hook.Mode, agent string) hook.Decision {
		return p.Decide(&hook.ToolCall{Tool: "Bash", Kind: hook.KindShell, Command: cmd, Cwd: project, AgentType: agent}, policy.SessionState{Mode: st})
	}
	read := func(path string, st hook.Mode, agent string) hook.Decision {
		return p.Decide(&hook.ToolCall{Tool: "Read", Kind: hook.KindFileRead, ReadPaths: []string{path}, Cwd: project, AgentType: agent}, policy.SessionState{Mode: st})
	}
	for _, c := range []struct{ cmd, want string }{
		{"cat " + home + "/.aws/credentials", "credential store"},
		{"head -5 ../home/.netrc", "credential store"},
		{"cat " + home + "/.ssh/id_ed25519", "SSH private keys"},
		{"grep -r key " + home + "/.aws", "credential store"}, // a walk of it
		{"cat /etc/shadow", "credential store"},
		{"cat .env", "environment file"},
		{"cat config/.env", "environment file"},
		{"cd config && cat .env", "environment file"},
		{"date --file .env", "environment file"},
		{"date -f.env", "environment file"}, // an attached value
		{"sort --files0-from .env", "environment file"},
		{"grep --exclude-from .env x README.md", "environment file"},
		{"grep -f .env README.md", "environment file"},
		{"git cat-file -p HEAD:.env", "environment file"},
		{"git show HEAD:.ssh/id_rsa", "SSH private key"},
		{"git show HEAD -- .env", "environment file"},
		{"git log -p -- certs/server.pem", "private key"},
		{"jq . .env", "environment file"},
		{"sha256sum .env", "environment file"},
		{"for f in README.md .env; do cat \"$f\"; done", "environment file"},
		{"wc -l .env.local", "environment file"},
	} {
		d := shell(c.cmd, hook.ModeReadOnly, "")
		if d.Verdict != hook.Deny || !strings.Contains(d.Reason, c.want) || !strings.Contains(d.Reason, "allow_read") {
			t.Errorf("read-only %q: %s %q, want refused as %q with a hint", c.cmd, d.Verdict, d.Reason, c.want)
		}
	}
	for _, cmd := range []string{
		"cat .env.example", "cat README.md", "ls -la " + home + "/.ssh", "cat " + home + "/.ssh/known_hosts",
		"grep -rn .env README.md", // a pattern, not a file
		"jq .env README.md",       // jq's filter
		"find . -name .env",       // names only
		"stat .env",               // metadata only
		"git log --oneline -- README.md",
	} {
		if d := shell(cmd, hook.ModeReadOnly, ""); d.Verdict != hook.Allow {
			t.Errorf("read-only %q: %s %q, want allowed", cmd, d.Verdict, d.Reason)
		}
	}
	// The Read tool: credential stores in every mode, project secrets where read-only binds.
	for _, c := range []struct {
		path  string
		mode  hook.Mode
		agent string
		deny  bool
	}{
		{home + "/.aws/credentials", hook.ModeEdit, "", true},
		{home + "/.aws/credentials", hook.ModeReadOnly, "", true},
		{"../home/.netrc", hook.ModeEdit, "", true},
		{project + "/.env", hook.ModeReadOnly, "", true},
		{project + "/.env", hook.ModeReview, "", true},
		{project + "/.env", hook.ModeEdit, "Explore", true},
		{project + "/.env", hook.ModeEdit, "", false}, // edit mode works on the project
		{project + "/.env.example", hook.ModeReadOnly, "", false},
		{home + "/.ssh/known_hosts", hook.ModeEdit, "", false},
		{project + "/README.md", hook.ModeReadOnly, "", false},
	} {
		d := read(c.path, c.mode, c.agent)
		if (d.Verdict == hook.Deny) != c.deny {
			t.Errorf("Read %s in %v (agent %q): %s %q, want deny=%v", c.path, c.mode, c.agent, d.Verdict, d.Reason, c.deny)
		}
	}
	if d := shell("cat .env", hook.ModeEdit, ""); d.Verdict == hook.Deny {
		t.Errorf("edit mode: cat .env refused (%q): the project is edit mode's to read", d.Reason)
	}
}

// TestSensitiveFilesThroughLinks: a symbolic link in the project to a credential store or a
// secret file, and a hard link to a credential file, are refused as what they reach.
func TestSensitiveFilesThroughLinks(t *testing.T) {
	home, project := secretsWorld(t)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Symlink(filepath.Join(home, ".aws", "credentials"), filepath.Join(project, "notes.txt")))
	must(os.Symlink(".env", filepath.Join(project, "settings.txt")))
	must(os.Symlink(filepath.Join(home, ".aws"), filepath.Join(project, "cloud")))
	must(os.Link(filepath.Join(home, ".netrc"), filepath.Join(project, "hosts.txt")))
	p := &policy.Policy{World: shellglob.World{}, Client: testClient, Config: &config.Config{}, ResolveReads: ResolveReads}
	for _, c := range []struct{ cmd, want string }{
		{"cat notes.txt", "through a link"},
		{"cat settings.txt", "environment file"},
		{"cat cloud/credentials", "AWS credentials"},
		{"cat hosts.txt", "hard link"},
	} {
		d := p.Decide(&hook.ToolCall{Tool: "Bash", Kind: hook.KindShell, Command: c.cmd, Cwd: project}, policy.SessionState{})
		if d.Verdict != hook.Deny || !strings.Contains(d.Reason, c.want) {
			t.Errorf("%q: %s %q, want refused (%q)", c.cmd, d.Verdict, d.Reason, c.want)
		}
		file := strings.TrimPrefix(c.cmd, "cat ")
		d = p.Decide(&hook.ToolCall{Tool: "Read", Kind: hook.KindFileRead, ReadPaths: []string{filepath.Join(project, file)}, Cwd: project}, policy.SessionState{})
		if d.Verdict != hook.Deny {
			t.Errorf("Read %s: %s, want refused", file, d.Verdict)
		}
	}
	// Without the resolver (the policy's pure part), the link's name is all there is.
	if d := (&policy.Policy{World: shellglob.World{}, Client: testClient, Config: &config.Config{}}).Decide(&hook.ToolCall{Tool: "Bash", Kind: hook.KindShell, Command: "cat notes.txt", Cwd: project}, policy.SessionState{}); d.Verdict != hook.Allow {
		t.Errorf("without ResolveReads: %s %q, want allowed (the control: the refusal above comes from resolving)", d.Verdict, d.Reason)
	}
}

// TestSensitiveFilesAllowRead: the user's own allow_read opens a path or a name; a project's
// .hookctl.toml cannot.
func TestSensitiveFilesAllowRead(t *testing.T) {
	home, project := secretsWorld(t)
	cfg, err := ParseConfig("config.toml", `allow_read = ["~/.aws/credentials", ".env", "`+project+`/config"]`)
	if err != nil {
		t.Fatal(err)
	}
	p := &policy.Policy{World: shellglob.World{}, Client: testClient, Config: cfg, ResolveReads: ResolveReads}
	for _, cmd := range []string{"cat " + home + "/.aws/credentials", "cat .env", "cat config/.env"} {
		if d := p.Decide(&hook.ToolCall{Tool: "Bash", Kind: hook.KindShell, Command: cmd, Cwd: project}, policy.SessionState{}); d.Verdict != hook.Allow {
			t.Errorf("allowed by allow_read: %q %s %q", cmd, d.Verdict, d.Reason)
		}
	}
	if d := p.Decide(&hook.ToolCall{Tool: "Bash", Kind: hook.KindShell, Command: "cat ../home/.netrc", Cwd: project}, policy.SessionState{}); d.Verdict != hook.Deny {
		t.Errorf("cat ../home/.netrc: %s, want refused (not in allow_read)", d.Verdict)
	}
	// A name without a slash never opens a credential store.
	cfg2, _ := ParseConfig("config.toml", `allow_read = ["credentials"]`)
	if d := (&policy.Policy{World: shellglob.World{}, Client: testClient, Config: cfg2}).Decide(&hook.ToolCall{Tool: "Bash", Kind: hook.KindShell, Command: "cat " + home + "/.aws/credentials", Cwd: project}, policy.SessionState{}); d.Verdict != hook.Deny {
		t.Errorf("allow_read = [\"credentials\"] opened ~/.aws/credentials: %s", d.Verdict)
	}
	if _, err := ParseConfig("config.toml", `allow_read = ["relative/path"]`); err == nil {
		t.Error("allow_read accepted a relative path with a slash")
	}
	// The project's own file may not set it.
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, config.ProjectConfigName), []byte(`allow_read = ["/"]`+"\n"), 0o644)
	hk := t.TempDir()
	c, err := LoadConfigFor(hk, dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.AllowRead) != 0 || len(c.Warnings) == 0 {
		t.Errorf("a project's allow_read was taken (%q) or not warned about (%q)", c.AllowRead, c.Warnings)
	}
}

// TestRecursiveReadsSkipSecrets runs the rewrites of recursive searches, with real rg and grep,
// over a tree holding secret files: what runs prints the ordinary file and none of the secrets,
// even with --hidden, -uuu and a user glob or --include that would take them. The control, a
// plain recursive grep, prints them.
func TestRecursiveReadsSkipSecrets(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"a.go", ".env", "sub/.env.local", "k.pem", "tls.key", "id_rsa", ".ssh/work", ".aws/credentials"} {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, f)), 0o755)
		if err := os.WriteFile(filepath.Join(dir, f), []byte("SECRET in "+f+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run := func(command string) string {
		t.Helper()
		out, _ := runShellIn(dir, command)
		return out
	}
	if out := run("grep -rn SECRET ."); !strings.Contains(out, ".env") {
		t.Fatalf("control: grep -rn printed %q, without .env", out)
	}
	cmds := []string{"grep -rn SECRET .", "grep -r --include='*' SECRET .", "grep -R SECRET", "grep -d recurse SECRET .",
		"grep -rn SECRET --include='*' .", "grep -rn SECRET . --include='*' --exclude=x"}
	if _, err := exec.LookPath("rg"); err == nil {
		cmds = append(cmds, "rg -n SECRET", "rg --hidden -uuu SECRET", "rg --hidden -g '*' SECRET .", "rg --hidden --no-ignore SECRET -- .")
	} else {
		t.Log("rg is not installed: only grep is run")
	}
	for _, cmd := range cmds {
		rewritten, d := policyRewrite(cmd, dir)
		if d.Verdict != hook.Allow {
			t.Errorf("%s: refused (%s)", cmd, d.Reason)
			continue
		}
		out := run(rewritten)
		if !strings.Contains(out, "SECRET in a.go") {
			t.Errorf("%s ran as %s and printed %q, without a.go", cmd, rewritten, out)
		}
		for _, line := range strings.Split(out, "\n") {
			if _, file, ok := strings.Cut(line, "SECRET in "); ok && file != "a.go" {
				t.Errorf("%s ran as %s and printed the secret file %s: %q", cmd, rewritten, file, out)
			}
		}
	}
}

// TestRecursiveDiffSkipsSecrets: the rewrite of diff -r compares two trees without printing their
// secret files' lines; the control, the same diff as written, prints them.
func TestRecursiveDiffSkipsSecrets(t *testing.T) {
	dir := t.TempDir()
	for _, side := range []string{"a", "b"} {
		for _, f := range []string{"main.go", ".env", "certs/tls.key"} {
			os.MkdirAll(filepath.Dir(filepath.Join(dir, side, f)), 0o755)
			if err := os.WriteFile(filepath.Join(dir, side, f), []byte("SECRET "+side+" "+f+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	if out, _ := runShellIn(dir, "diff -r a b"); !strings.Contains(out, "SECRET a .env") {
		t.Fatalf("control: diff -r printed %q, without .env", out)
	}
	rewritten, d := policyRewrite("diff -ru a b", dir)
	if d.Verdict != hook.Allow {
		t.Fatal(d.Reason)
	}
	out, _ := runShellIn(dir, rewritten)
	if !strings.Contains(out, "SECRET a main.go") || strings.Contains(out, "SECRET a .env") || strings.Contains(out, "SECRET a certs/tls.key") {
		t.Errorf("diff -ru a b ran as %s and printed %q: want main.go's lines and no secret file's", rewritten, out)
	}
}

// policyRewrite is command as the hook has it run on the policy alone, without the launcher:
// what was judged, with the programs' pins.
func policyRewrite(command, cwd string) (string, hook.Decision) {
	d := (&policy.Policy{World: shellglob.World{}, Client: testClient, Config: &config.Config{}}).Decide(
		&hook.ToolCall{Tool: "Bash", Kind: hook.KindShell, Command: command, Cwd: cwd}, policy.SessionState{})
	return d.Command, d
}

// runShellIn runs command under bash in dir and returns its combined output.
func runShellIn(dir, command string) (string, error) {
	cmd := exec.Command("bash", "--norc", "--noprofile", "-c", command)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// TestEditModeCredentialReads: in edit mode the guard refuses a plain read of a credential
// store, and leaves project secrets and everything else to edit mode.
func TestEditModeCredentialReads(t *testing.T) {
	home, project := secretsWorld(t)
	p := &policy.Policy{World: shellglob.World{}, Client: testClient, Config: &config.Config{}, ResolveReads: ResolveReads, Protection: policy.Protection{Home: home, Paths: []string{home + "/.config/hookctl"}}}
	for _, c := range []struct {
		cmd  string
		deny bool
	}{
		{"cat " + home + "/.aws/credentials", true},
		{"cd " + home + "/.aws && cat credentials", true},
		{"grep -r x " + home + "/.ssh", true},
		{"cat .env", false},
		{"git config --get user.name", false},
		{"ls " + home + "/.ssh", false},
	} {
		d := p.Decide(&hook.ToolCall{Tool: "Bash", Kind: hook.KindShell, Command: c.cmd, Cwd: project}, policy.SessionState{Mode: hook.ModeEdit})
		if (d.Verdict == hook.Deny) != c.deny {
			t.Errorf("edit mode %q: %s %q, want deny=%v", c.cmd, d.Verdict, d.Reason, c.deny)
		}
	}
}

// TestSensitiveFilesGlobsAndInput: a glob's matches are the files a command reads, so each is
// checked when the hook judges (cat .* matches .env, head * matches a key); `< FILE` is a read;
// a glob that matches no secret passes.
func TestSensitiveFilesGlobsAndInput(t *testing.T) {
	_, project := secretsWorld(t)
	os.WriteFile(filepath.Join(project, "server.pem"), []byte("-----BEGIN"), 0o600)
	os.MkdirAll(filepath.Join(project, "src"), 0o755)
	os.WriteFile(filepath.Join(project, "src", "a.go"), []byte("package a\n"), 0o644)
	p := &policy.Policy{World: shellglob.World{}, Client: testClient, Config: &config.Config{}, ResolveReads: ResolveReads}
	for cmd, want := range map[string]string{
		"cat .*":                            "environment file",
		"cat .e*":                           "environment file",
		"head -5 *":                         "looks like",
		"wc -l */.env":                      "environment file",
		"cat < .env":                        "environment file",
		"wc -l src/*.go":                    "",
		"cat README.*":                      "",
		"head -3 src/*.go && cat README.md": "",
	} {
		d := p.Decide(&hook.ToolCall{Tool: "Bash", Kind: hook.KindShell, Command: cmd, Cwd: project}, policy.SessionState{Mode: hook.ModeReadOnly})
		switch {
		case want == "" && d.Verdict != hook.Allow:
			t.Errorf("%q: %v %q, want allowed", cmd, d.Verdict, d.Reason)
		case want != "" && (d.Verdict != hook.Deny || !strings.Contains(d.Reason, want)):
			t.Errorf("%q: %v %q, want refused as %q", cmd, d.Verdict, d.Reason, want)
		}
	}
}
