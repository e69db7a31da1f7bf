package secrets

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestClassify: credential stores are found however the path is written; project secrets by
// their base name, with the committed templates and public keys left readable.
func TestClassify(t *testing.T) {
	for _, c := range []struct {
		path string
		want Class
	}{
		{"/home/u/.ssh/id_rsa", Credential},
		{"/home/u/.ssh/github", Credential}, // a key named for its host
		{"/home/u/.ssh", Credential},        // a walk of it
		{"../.ssh/id_ed25519", Credential},
		{"/home/u/.ssh/id_rsa.pub", None},
		{"/home/u/.ssh/known_hosts", None},
		{"/home/u/.ssh/config", None},
		{"/home/u/.aws/credentials", Credential},
		{"/home/u/.aws", Credential}, // walking it reads credentials
		{"/home/u/.aws/config", None},
		{"/home/u/.aws/sso/cache/abc.json", Credential},
		{"/home/u/.config/gh/hosts.yml", Credential},
		{"/home/u/.config/gh/config.yml", None},
		{"/home/u/.netrc", Credential},
		{"/home/u/.docker/config.json", Credential},
		{"/home/u/.kube/config", Credential},
		{"/home/u/.gnupg/private-keys-v1.d/x.key", Credential},
		{"/home/u/.config/gcloud/application_default_credentials.json", Credential},
		{"/home/u/.azure/msal_token_cache.json", Credential},
		{"/home/u/.mozilla/firefox/abc.default/cookies.sqlite", Credential},
		{"/home/u/Library/Application Support/Google/Chrome/Default/Login Data", Credential},
		{"/etc/shadow", Credential},
		{"/etc/gshadow", Credential},
		{"../../../etc/shadow", Credential},
		{"/etc/ssh/ssh_host_ed25519_key", Credential},
		{"/etc/ssh/ssh_host_ed25519_key.pub", None},
		{"/etc/passwd", None},
		{"/etc/./shadow", Credential},
		{"/tmp/../etc/shadow", Credential},
		{".env", Project},
		{"config/.env.production", Project},
		{".env.local", Project},
		{".envrc", Project},
		{".env.example", None},
		{".env.sample", None},
		{"certs/server.pem", Project},
		{"tls.key", Project},
		{"keystore.p12", Project},
		{"deploy/id_deploy", Project},
		{"internal/id_gen.go", None},
		{"README.md", None},
		{"src/env.go", None},
		{"", None},
	} {
		if got, what := Classify(c.path); got != c.want || (got != None) != (what != "") {
			t.Errorf("Classify(%q) = %v %q, want %v", c.path, got, what, c.want)
		}
	}
}

// TestHomePaths: the sandbox's list holds the stores under the home, the system files and every
// private file of ~/.ssh, and no public one.
func TestHomePaths(t *testing.T) {
	home := t.TempDir()
	os.MkdirAll(filepath.Join(home, ".ssh"), 0o700)
	for _, n := range []string{"id_rsa", "id_rsa.pub", "known_hosts", "work_key"} {
		os.WriteFile(filepath.Join(home, ".ssh", n), nil, 0o600)
	}
	got := HomePaths(home)
	for _, want := range []string{home + "/.aws/credentials", home + "/.gnupg", "/etc/shadow", home + "/.ssh/id_rsa", home + "/.ssh/work_key"} {
		if !slices.Contains(got, want) {
			t.Errorf("HomePaths lacks %s", want)
		}
	}
	for _, no := range []string{home + "/.ssh/id_rsa.pub", home + "/.ssh/known_hosts", home + "/.ssh"} {
		if slices.Contains(got, no) {
			t.Errorf("HomePaths holds %s, which is public", no)
		}
	}
	for _, p := range got {
		if c, _ := Classify(p); c != Credential {
			t.Errorf("HomePaths holds %s, which Classify calls %v", p, c)
		}
	}
}

// TestMentionsCoversClassify: every path Classify calls a credential store passes Mentions, the
// fast path's gate, so that the gate can never hide one.
func TestMentionsCoversClassify(t *testing.T) {
	for _, p := range append(HomePaths("/home/u"), "/home/u/.ssh", "/home/u/.ssh/github", "../.ssh/id_rsa",
		"../../etc/gshadow", "/etc/ssh/ssh_host_rsa_key", "/home/u/.aws", "/home/u/.config/gh") {
		if c, _ := Classify(p); c != Credential {
			t.Errorf("Classify(%q) = %v, want a credential store", p, c)
		}
		if !Mentions(p) {
			t.Errorf("Mentions(%q) is false for a credential store", p)
		}
	}
}

// TestVariable: names that hold secrets, the innocently named ones a red team printed among
// them, and the everyday ones that do not.
func TestVariable(t *testing.T) {
	for _, name := range []string{"GITHUB_TOKEN", "AWS_SECRET_ACCESS_KEY", "PGPASSWORD", "PGPASS", "MYSQL_PWD", "GH_PAT",
		"SENTRY_DSN", "REDIS_URL", "DATABASE_URL", "CI_JOB_JWT", "HTTPS_PROXY", "https_proxy", "npm_config_authToken",
		"ANTHROPIC_API_KEY", "DB_PASSWORD", "SLACK_WEBHOOK", "MONGO_URI", "OP_SESSION_x", "DOCKER_AUTH_CONFIG"} {
		if !Variable(name) {
			t.Errorf("%s not taken for a secret", name)
		}
	}
	for _, name := range []string{"PATH", "PWD", "OLDPWD", "HOME", "SHELL", "USER", "LANG", "TERM", "GOPATH", "EDITOR", "HOSTNAME", "TMPDIR"} {
		if Variable(name) {
			t.Errorf("%s taken for a secret", name)
		}
	}
}
