package securerun

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// TestCredentialVariables: every variable the issue names as a hard failure is marked, with
// the kind the refusal shows; the names a plain run needs are not.
func TestCredentialVariables(t *testing.T) {
	for _, c := range []struct{ name, want string }{
		{"AWS_SECRET_ACCESS_KEY", "a secret (by its name)"},
		{"AWS_PROFILE", "a cloud credential or profile"},
		{"AWS_REGION", "a cloud credential or profile"},
		{"GOOGLE_APPLICATION_CREDENTIALS", "a secret (by its name)"},
		{"GOOGLE_CLOUD_PROJECT", "a cloud credential or profile"},
		{"AZURE_CLIENT_ID", "a cloud credential or profile"},
		{"GITHUB_TOKEN", "a secret (by its name)"},
		{"GH_TOKEN", "a secret (by its name)"},
		{"NPM_TOKEN", "a secret (by its name)"},
		{"ANTHROPIC_API_KEY", "a secret (by its name)"},
		{"DB_PASSWORD", "a secret (by its name)"},
		{"PGPASSWORD", "a secret (by its name)"},
		{"STRIPE_SECRET", "a secret (by its name)"},
		{"GITLAB_PAT", "a secret (by its name)"},
		{"my_api_key", "a secret (by its name)"},
		{"CI", "a CI job's variable"},
		{"GITHUB_ACTIONS", "a CI job's variable"},
		{"ACTIONS_ID_TOKEN_REQUEST_URL", "a secret (by its name)"},
		{"ACTIONS_CACHE_URL", "a secret (by its name)"}, // URL, CONNECTION, PASS: secrets.Variable
		{"CI_JOB_URL", "a secret (by its name)"},        // URL, CONNECTION, PASS: secrets.Variable
		{"BUILDKITE_AGENT_NAME", "a CI job's variable"},
		{"SSH_AUTH_SOCK", "a secret (by its name)"},
		{"SSH_AGENT_PID", "a channel to the user's keys or agents"},
		{"SSH_CONNECTION", "a secret (by its name)"}, // URL, CONNECTION, PASS: secrets.Variable
		{"GIT_ASKPASS", "a secret (by its name)"},    // URL, CONNECTION, PASS: secrets.Variable
		{"KRB5CCNAME", "a channel to the user's keys or agents"},
		{"DBUS_SESSION_BUS_ADDRESS", "a secret (by its name)"},
		{"DOCKER_HOST", "a channel to the user's keys or agents"},
		{"KUBECONFIG", "a channel to the user's keys or agents"},
		{"VAULT_ADDR", "a channel to the user's keys or agents"},
		{"FOO", ""}, {"DEBUG", ""}, {"RUST_LOG", ""}, {"MY_SETTING", ""},
	} {
		if got := CredentialKind(c.name); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

// TestPassedEnvHoldsNoCredential: the allowlist itself passes the check that forwarded
// variables fail.
func TestPassedEnvHoldsNoCredential(t *testing.T) {
	for _, n := range passedEnv {
		if k := CredentialKind(n); k != "" {
			t.Errorf("%s is on the allowlist and marks %s", n, k)
		}
	}
	for _, kv := range setEnv(Layout{Out: "/o"}) {
		n, _, _ := strings.Cut(kv, "=")
		if k := CredentialKind(n); k != "" {
			t.Errorf("the profile sets %s, which marks %s", n, k)
		}
	}
}

// TestBuildEnv: the environment is the allowlist, the forwarded variables and the profile's;
// a forwarded credential is a failure naming it and never its value; the rest of the caller's
// environment is dropped, its credentials named as withheld.
func TestBuildEnv(t *testing.T) {
	const secret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzzzSECRET"
	caller := []string{"PATH=/root/.pyenv/shims:/usr/local/bin:/usr/bin:/usr/bin:/bin", "LANG=C.UTF-8", "AWS_SECRET_ACCESS_KEY=" + secret,
		"GITHUB_TOKEN=ghp_x", "SSH_AUTH_SOCK=/tmp/agent", "HOME=/root", "MY_SETTING=1", "OTHER=2", "CI=true"}
	readable := []string{"/repo", "/usr", "/bin"}
	l := Layout{Out: "/out"}

	env, e, failures := BuildEnv(caller, []string{"MY_SETTING", "EXTRA=3"}, l, readable)
	if len(failures) != 0 {
		t.Fatalf("failures: %q", failures)
	}
	want := []string{"PATH=/usr/local/bin:/usr/bin:/bin", "LANG=C.UTF-8", "MY_SETTING=1", "EXTRA=3", "HOME=/out/home", "TMPDIR=/out/tmp",
		"XDG_CONFIG_HOME=/out/home/.config", "XDG_CACHE_HOME=/out/home/.cache", "XDG_DATA_HOME=/out/home/.local/share",
		"XDG_STATE_HOME=/out/home/.local/state", "HOOKCTL_RUN_OUT=/out/artifacts"}
	if !slices.Equal(env, want) {
		t.Errorf("env:\n%q\nwant\n%q", env, want)
	}
	if !slices.Equal(e.Withheld, []string{"AWS_SECRET_ACCESS_KEY", "CI", "GITHUB_TOKEN", "SSH_AUTH_SOCK"}) || e.Dropped != 2 {
		t.Errorf("withheld %q, dropped %d", e.Withheld, e.Dropped)
	}

	for _, c := range []struct {
		forward []string
		want    string
	}{
		{[]string{"AWS_SECRET_ACCESS_KEY"}, "--env AWS_SECRET_ACCESS_KEY: a secret (by its name); --credentials none forwards no credential"},
		{[]string{"AWS_SECRET_ACCESS_KEY=" + secret}, "--env AWS_SECRET_ACCESS_KEY: a secret (by its name)"},
		{[]string{"SSH_AUTH_SOCK"}, "--env SSH_AUTH_SOCK: "},
		{[]string{"CI"}, "--env CI: a CI job's variable"},
		{[]string{"AWS_REGION=eu-west-1"}, "--env AWS_REGION: a cloud credential or profile"},
		{[]string{"HOME=/root"}, "--env HOME: the profile sets it itself"},
		{[]string{"PATH"}, "--env PATH: the profile sets it itself"},
		{[]string{"UNSET_HERE"}, "--env UNSET_HERE: it is not set in your environment"},
	} {
		env, _, failures := BuildEnv(caller, c.forward, l, readable)
		if len(failures) != 1 || !strings.HasPrefix(failures[0], c.want) {
			t.Errorf("--env %q: %q, want %q", c.forward, failures, c.want)
		}
		for _, f := range failures {
			if strings.Contains(f, secret) {
				t.Errorf("a failure shows the secret's value: %s", f)
			}
		}
		for _, kv := range env {
			if strings.Contains(kv, secret) || strings.HasPrefix(kv, "SSH_AUTH_SOCK=") || strings.HasPrefix(kv, "CI=") {
				t.Errorf("--env %q: the command would get %s", c.forward, kv)
			}
		}
	}
	if _, e, _ := BuildEnv(nil, nil, l, readable); e.PATH != systemPath {
		t.Errorf("no PATH: %q", e.PATH)
	}
}

// TestScanNames: files that hold credentials by what they are.
func TestScanNames(t *testing.T) {
	for _, c := range []struct{ path, want string }{
		{".env", "an environment file"},
		{"config/.env.production", "an environment file"},
		{".envrc", "an environment file"},
		{"deploy/server.pem", "a private key or certificate"},
		{"tls/server.key", "a private key or certificate"},
		{"keys/id_ed25519", "an SSH private key"},
		{"store.p12", "a key store"},
		{"home/.aws/credentials", "AWS credentials"},
		{".aws", ""}, // a repository's: its credentials file is found by its own name
		{".aws/credentials", "AWS credentials"},
		{"fixtures/.ssh/id_rsa", "SSH private keys"},
		{".netrc", "netrc passwords"},
		{".git-credentials", "git credentials"},
		{".docker/config.json", "Docker registry credentials"},
		{".kube/config", "Kubernetes credentials"},
		{"android/release.jks", "a Java key store"},
		{"secrets.kdbx", "a KeePass password database"},
		{"putty.ppk", "a PuTTY private key"},
		{"infra/terraform.tfstate", "Terraform state (holds resources' secrets)"},
		{".htpasswd", "password hashes"},
		// Templates and public halves hold no secret.
		{".env.example", ""}, {".env.sample", ""}, {"keys/id_ed25519.pub", ""}, {"main.go", ""}, {"README.md", ""},
		{"certs/ca.crt", ""}, {".aws/config.example", ""},
	} {
		if got := ScanName(c.path); got != c.want {
			t.Errorf("%s: %q, want %q", c.path, got, c.want)
		}
	}
}

// TestScanContent: a private key by its header, wherever it is; a token in a well-known file;
// a password in a git remote's URL.
func TestScanContent(t *testing.T) {
	for _, c := range []struct {
		path, content string
		git           bool
		want          string
	}{
		{"testdata/k.txt", "x\n-----BEGIN RSA PRIVATE KEY-----\nMII…", false, "a private key (by its content)"},
		{"k.go", `const key = "-----BEGIN OPENSSH PRIVATE KEY-----\n"`, false, "a private key (by its content)"},
		{"k", "-----BEGIN EC PRIVATE KEY-----", false, "a private key (by its content)"},
		{"k", "-----BEGIN PRIVATE KEY-----", false, "a private key (by its content)"},
		{"k", "-----BEGIN ENCRYPTED PRIVATE KEY-----", false, "a private key (by its content)"},
		{"k.asc", "-----BEGIN PGP PRIVATE KEY BLOCK-----", false, "a private key (by its content)"},
		{"sa.json", `{"type": "service_account", "private_key": "-----BEGIN PRIVATE KEY-----\nMIIE"}`, false, "a private key (by its content)"},
		{"k", "PuTTY-User-Key-File-3: ssh-ed25519", false, "a private key (by its content)"},
		{".npmrc", "//registry.npmjs.org/:_authToken=npm_abc\n", false, "an npm registry token"},
		{"web/.npmrc", "registry=https://r.example\n", false, ""},
		{".yarnrc.yml", "npmAuthToken: abc\n", false, "a yarn registry token"},
		{".pypirc", "[pypi]\nusername = __token__\npassword = pypi-abc\n", false, "a PyPI password"},
		{".s3cfg", "secret_key = abc\n", false, "S3 credentials"},
		{".terraformrc", `credentials "app.terraform.io" { token = "x" }`, false, "a Terraform token"},
		{"config", "[remote \"origin\"]\n\turl = https://me:ghp_abc@github.com/o/r\n", true, "a password in a git remote's URL"},
		{"config", "[remote \"origin\"]\n\turl = https://github.com/o/r\n", true, ""},
		{"config", "url = https://me:ghp_abc@github.com/o/r\n", false, ""}, // a plain file named config
		{"objects/pack/x", "-----BEGIN RSA PRIVATE KEY-----", true, ""},    // history: out of scope
		{"cert.pem.txt", "-----BEGIN CERTIFICATE-----", false, ""},
		{"main.go", "package main\n", false, ""},
	} {
		if got := ScanContent(c.path, []byte(c.content), c.git); got != c.want {
			t.Errorf("%s %q: %q, want %q", c.path, c.content, got, c.want)
		}
	}
}

func write(t *testing.T, root, rel, content string) string {
	t.Helper()
	p := filepath.Join(root, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestScan walks a repository: it names every sensitive file (never its content), follows no
// link, does not block on a FIFO, looks into .git only for remote credentials, lets
// --allow-sensitive paths through, and lists the agent configuration.
func TestScan(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	write(t, root, "main.go", "package main\n")
	write(t, root, ".env", "DB_PASSWORD=hunter2\n")
	write(t, root, "deploy/prod.pem", "x")
	write(t, root, "testdata/embedded.txt", "fixture\n-----BEGIN RSA PRIVATE KEY-----\nMIIEsecret\n")
	write(t, root, ".git/config", "[remote \"origin\"]\n\turl = https://me:ghp_abcdef@github.com/o/r\n")
	write(t, root, ".git/objects/ab/cdef", "-----BEGIN RSA PRIVATE KEY-----")
	write(t, root, ".git/hooks/id_rsa", "x") // git's own files are not judged by name
	write(t, outside, "id_rsa", "-----BEGIN OPENSSH PRIVATE KEY-----")
	os.Symlink(filepath.Join(outside, "id_rsa"), filepath.Join(root, "link-to-key"))
	os.Symlink(outside, filepath.Join(root, "link-to-dir"))
	if err := syscall.Mkfifo(filepath.Join(root, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	write(t, root, ".claude/settings.json", `{"hooks": {"PreToolUse": []}, "permissions": {"allow": ["Bash"]}, "theme": "dark"}`)
	write(t, root, ".claude/commands/deploy.md", "deploy")
	write(t, root, ".mcp.json", `{"mcpServers": {"exfil": {"command": "curl"}}}`)
	write(t, root, "CLAUDE.md", "# Rules\nSee @docs/rules.md and @~/.ssh/config.\n```\n@not/an/import\n```\n")
	write(t, root, "sub/CLAUDE.md", "nothing\n")

	s, agent := Scan(root, nil, nil)
	got := map[string]string{}
	for _, f := range s.Found {
		got[f.Path] = f.What
	}
	want := map[string]string{
		".env":                  "an environment file",
		"deploy/prod.pem":       "a private key or certificate",
		"testdata/embedded.txt": "a private key (by its content)",
		".git/config":           "a password in a git remote's URL",
		// link-to-key is not followed: the key it points to is outside, unreadable in the run.
	}
	if len(got) != len(want) || s.Incomplete != "" {
		t.Errorf("found %q (incomplete %q), want %q", got, s.Incomplete, want)
	}
	for p, w := range want {
		if got[p] != w {
			t.Errorf("%s: %q, want %q", p, got[p], w)
		}
	}
	if len(s.Refused()) != len(want) {
		t.Errorf("refused %d", len(s.Refused()))
	}

	s, _ = Scan(root, nil, []string{".env", "deploy", "testdata/embedded.txt", ".git/config", "nothing-here"})
	if r := s.Refused(); len(r) != 0 || !slices.Equal(s.Unmatched, []string{"nothing-here"}) {
		t.Errorf("with everything allowed: refused %v, unmatched %q", r, s.Unmatched)
	}

	var agentGot []string
	for _, a := range agent {
		agentGot = append(agentGot, a.Path+": "+a.What+": "+strings.Join(a.Detail, ", "))
	}
	wantAgent := []string{
		".claude/commands: Claude Code slash commands: ",
		".claude/settings.json: Claude Code project settings: hooks, permissions",
		".mcp.json: MCP servers (Claude Code): server exfil",
		"CLAUDE.md: Claude Code memory: imports @docs/rules.md, imports @~/.ssh/config.",
		"sub/CLAUDE.md: Claude Code memory: ",
	}
	slices.Sort(agentGot)
	if !slices.Equal(agentGot, wantAgent) {
		t.Errorf("agent config:\n%s\nwant\n%s", strings.Join(agentGot, "\n"), strings.Join(wantAgent, "\n"))
	}
}

// TestValidateArtifacts: valid files are listed with their hashes; an oversized file, a link out
// of the output, a FIFO and a name that is not text are quarantined, keeping their paths; a link
// inside stays.
func TestValidateArtifacts(t *testing.T) {
	l := Layout{Out: t.TempDir()}
	for _, d := range l.Writable() {
		os.Mkdir(d, 0o700)
	}
	write(t, l.Artifacts(), "report.md", "findings\n")
	write(t, l.Artifacts(), "big.bin", strings.Repeat("x", 101))
	write(t, l.Artifacts(), "exact.bin", strings.Repeat("x", 100))
	write(t, l.Home(), ".claude/state.json", "{}")
	os.Symlink("/etc/passwd", filepath.Join(l.Artifacts(), "passwd"))
	os.Symlink("../../home/.claude/state.json", filepath.Join(l.Artifacts(), "climb"))
	os.Symlink("report.md", filepath.Join(l.Artifacts(), "alias"))
	syscall.Mkfifo(filepath.Join(l.Artifacts(), "pipe"), 0o600)
	write(t, l.Artifacts(), "bad\x01name", "x")

	v := ValidateArtifacts(l, 100)
	sum := sha256.Sum256([]byte("findings\n"))
	var listed []string
	for _, a := range v.Artifacts {
		listed = append(listed, a.Path)
		if a.Path == "artifacts/report.md" && (a.SHA256 != hex.EncodeToString(sum[:]) || a.Size != 9) {
			t.Errorf("report.md: %+v", a)
		}
	}
	if want := []string{"artifacts/alias", "artifacts/exact.bin", "artifacts/report.md", "home/.claude/state.json"}; !slices.Equal(listed, want) {
		t.Errorf("listed %q, want %q", listed, want)
	}
	reasons := map[string]string{}
	for _, q := range v.Quarantined {
		reasons[q.Path] = q.Reason
		if q.Error != "" {
			t.Errorf("%s: %s", q.Path, q.Error)
		}
		if _, err := os.Lstat(filepath.Join(l.Out, q.Path)); err == nil {
			t.Errorf("%s is still in the output", q.Path)
		}
		if _, err := os.Lstat(filepath.Join(l.Out, q.MovedTo)); err != nil && !strings.Contains(q.Path, `\x`) {
			t.Errorf("%s was not moved to %s: %v", q.Path, q.MovedTo, err)
		}
	}
	for p, w := range map[string]string{
		"artifacts/big.bin":     "larger than the cap of 100 bytes",
		"artifacts/passwd":      "a symbolic link out of its directory (to /etc/passwd)",
		"artifacts/climb":       "a symbolic link out of its directory (to ../../home/.claude/state.json)",
		"artifacts/pipe":        "not a regular file (a FIFO)",
		`artifacts/bad\x01name`: "a name that is not printable text",
	} {
		if reasons[p] != w {
			t.Errorf("%s: %q, want %q", p, reasons[p], w)
		}
	}
	if len(v.Quarantined) != 5 {
		t.Errorf("quarantined %v", reasons)
	}
}

// TestOutAndRoot: the output directory must be new or empty and apart from the repository; the
// repository cannot be /, the home or hookctl's directory.
func TestOutAndRoot(t *testing.T) {
	root, out := t.TempDir(), t.TempDir()
	for _, c := range []struct{ out, want string }{
		{filepath.Join(out, "new"), ""},
		{out, ""},
		{filepath.Join(root, "out"), "is inside the repository"},
		{root, "is inside the repository"},
		{filepath.Dir(root), "holds the repository"},
	} {
		if got := outProblem(c.out, root, nil); c.want == "" && got != "" || !strings.Contains(got, c.want) {
			t.Errorf("out %s: %q, want %q", c.out, got, c.want)
		}
	}
	write(t, out, "planted", "x")
	if got := outProblem(out, root, nil); !strings.Contains(got, "is not empty") {
		t.Errorf("a non-empty output: %q", got)
	}
	for _, c := range []struct{ root, want string }{
		{"/", "the whole system"},
		{"/home", "holds your home directory"},
		{"/home/u", "holds your home directory"},
		{"/home/u/.config", "holds hookctl's directory"},
		{"/home/u/.config/hookctl/runs/x", "is inside hookctl's directory"},
		{"/home/u/src/project", ""},
	} {
		if got := rootProblem(c.root, "/home/u", "/home/u/.config/hookctl"); c.want == "" && got != "" || !strings.Contains(got, c.want) {
			t.Errorf("root %s: %q, want %q", c.root, got, c.want)
		}
	}
}

func TestStatusEntries(t *testing.T) {
	for _, c := range []struct {
		out  string
		want int
	}{
		{"", 0},
		{" M a.go\x00", 1},
		{" M a.go\x00?? b\x00", 2},
		{"R  new.go\x00old.go\x00 M c\x00", 2},
	} {
		if got := statusEntries([]byte(c.out)); got != c.want {
			t.Errorf("%q: %d, want %d", c.out, got, c.want)
		}
	}
}
