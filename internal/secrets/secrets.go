// Package secrets names the files that hold credentials, so that the read-only gate can refuse
// to read them into a model's context and the read-only sandbox can make them unreadable.
//
// It runs in the hook process and in hookctl's sandbox launcher; it does no I/O but in
// HomePaths, which lists ~/.ssh for the launcher.
//
// Two classes, both judged on the path's names alone, however the path is written (relative,
// absolute, through `..`): the caller resolves links and the working directory and asks again.
//   - Credential: a credential store of the user or the system (~/.ssh private keys,
//     ~/.aws/credentials, ~/.config/gh/hosts.yml, ~/.netrc, ~/.docker/config.json,
//     ~/.kube/config, ~/.gnupg, the gcloud and Azure directories, browser profiles,
//     /etc/shadow, …). Matched as a run of path elements anywhere in the path, so
//     /home/u/.aws/credentials, ../../.aws/credentials and a copy under another home all count.
//   - Project: a file that by its name holds a project's secrets: .env and .env.* (but the
//     committed templates .env.example, .env.sample, .env.template and .env.dist, which hold
//     placeholders by convention), .envrc, *.pem, *.key, *.p12, *.pfx, and id_* without a dot
//     (an SSH key's name; id_rsa.pub and id_gen.go are not).
//
// Out of scope: a secret in a file named like any other (config.yaml), a secret in git's
// history or objects reached by a hash, the environment (jq's env and awk's ENVIRON are refused
// by their rules), and the content of a directory a program walks (the rewrites of rg and
// grep -r exclude these names: ExcludeGlobs).
package secrets

import (
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// Class is what a path holds.
type Class uint8

const (
	None Class = iota
	// Credential is a credential store: refused in every mode.
	Credential
	// Project is a project secret file: refused in read-only mode.
	Project
)

// store is a credential store: a run of path elements and what it holds. Dir: everything
// beneath counts too.
type store struct {
	elems []string
	what  string
	dir   bool
}

// stores are the credential stores, home-relative unless they start with "/" (system files).
// Browser profiles and the cloud SDKs' directories hold tokens and cookies in many files, so
// they are whole directories.
var stores = []store{
	{[]string{".aws", "credentials"}, "AWS credentials", false},
	{[]string{".aws", "sso", "cache"}, "AWS SSO tokens", true},
	{[]string{".aws", "cli", "cache"}, "AWS CLI tokens", true},
	{[]string{".config", "gh", "hosts.yml"}, "GitHub CLI tokens", false},
	{[]string{".config", "hub"}, "hub's GitHub token", false},
	{[]string{".netrc"}, "netrc passwords", false},
	{[]string{"_netrc"}, "netrc passwords", false},
	{[]string{".git-credentials"}, "git credentials", false},
	{[]string{".config", "git", "credentials"}, "git credentials", false},
	{[]string{".docker", "config.json"}, "Docker registry credentials", false},
	{[]string{".kube", "config"}, "Kubernetes credentials", false},
	{[]string{".gnupg"}, "GnuPG keys", true},
	{[]string{".password-store"}, "pass passwords", true},
	{[]string{".config", "gcloud"}, "Google Cloud credentials", true},
	{[]string{".azure"}, "Azure credentials", true},
	{[]string{".cargo", "credentials"}, "crates.io token", false},
	{[]string{".cargo", "credentials.toml"}, "crates.io token", false},
	{[]string{".vault-token"}, "Vault token", false},
	{[]string{".terraform.d", "credentials.tfrc.json"}, "Terraform Cloud token", false},
	{[]string{".pgpass"}, "PostgreSQL passwords", false},
	{[]string{".mozilla", "firefox"}, "a Firefox profile", true},
	{[]string{".config", "google-chrome"}, "a Chrome profile", true},
	{[]string{".config", "chromium"}, "a Chromium profile", true},
	{[]string{".config", "BraveSoftware"}, "a Brave profile", true},
	{[]string{".config", "microsoft-edge"}, "an Edge profile", true},
	{[]string{"Library", "Application Support", "Google", "Chrome"}, "a Chrome profile", true},
	{[]string{"Library", "Application Support", "Firefox"}, "a Firefox profile", true},
	{[]string{"Library", "Keychains"}, "macOS keychains", true},
	{[]string{"Library", "Cookies"}, "macOS cookies", true},
	{[]string{"/", "etc", "shadow"}, "the system's password hashes", false},
	{[]string{"/", "etc", "shadow-"}, "the system's password hashes", false},
	{[]string{"/", "etc", "gshadow"}, "the system's group password hashes", false},
	{[]string{"/", "etc", "gshadow-"}, "the system's group password hashes", false},
}

// sshPublic are the names in ~/.ssh that hold no secret. Every other file there may be a
// private key, whatever its name (keys are often named for the host: ~/.ssh/github).
func sshPublic(name string) bool {
	switch name {
	case "known_hosts", "known_hosts.old", "config", "authorized_keys", "authorized_keys2":
		return true
	}
	return strings.HasSuffix(name, ".pub")
}

// Classify says what path holds, and in a few words what it is (for a refusal).
func Classify(path string) (Class, string) {
	if path == "" {
		return None, ""
	}
	if !Mentions(path) {
		// No store's first directory or file is named: only the base name can mark a secret.
		// Every word a read-only command may open passes here, so this path allocates nothing.
		base := path[strings.LastIndexByte(strings.TrimRight(path, "/"), '/')+1:]
		if what := projectSecret(strings.TrimRight(base, "/")); what != "" {
			return Project, what
		}
		return None, ""
	}
	elems := split(path)
	abs := strings.HasPrefix(path, "/")
	for i, e := range elems {
		if e == ".ssh" {
			// ~/.ssh itself, a walk of it, or a file in it that is not public.
			if i == len(elems)-1 || !sshPublic(elems[i+1]) {
				return Credential, "SSH private keys"
			}
		}
		if strings.HasPrefix(e, "ssh_host_") && strings.HasSuffix(e, "_key") && i > 0 && elems[i-1] == "ssh" {
			return Credential, "an SSH host private key"
		}
	}
	for _, s := range stores {
		if at := find(elems, s.elems, abs); at >= 0 && (s.dir || at+len(s.elems) == len(elems)) {
			return Credential, s.what
		}
		// A directory on the way to a store (~/.aws, ~/.config/gh): a reader that walks it
		// reads the store.
		for n := len(s.elems) - 1; n >= 1; n-- {
			if s.elems[0] == "/" && n == 1 {
				break // not the root itself
			}
			if at := find(elems, s.elems[:n], abs); at >= 0 && at+n == len(elems) {
				return Credential, "a directory holding " + s.what
			}
		}
	}
	if len(elems) > 0 {
		if what := projectSecret(elems[len(elems)-1]); what != "" {
			return Project, what
		}
	}
	return None, ""
}

// projectSecret says whether a file's base name marks it as a project secret, and what kind.
func projectSecret(name string) string {
	switch {
	case name == ".env" || name == ".envrc":
		return "an environment file"
	case strings.HasPrefix(name, ".env."):
		switch strings.TrimPrefix(name, ".env.") {
		case "example", "sample", "template", "dist":
			return ""
		}
		return "an environment file"
	case strings.HasSuffix(name, ".pem"), strings.HasSuffix(name, ".key"):
		return "a private key or certificate"
	case strings.HasSuffix(name, ".p12"), strings.HasSuffix(name, ".pfx"):
		return "a key store"
	case strings.HasPrefix(name, "id_") && !strings.Contains(name, "."):
		return "an SSH private key"
	}
	return ""
}

// split cleans path lexically and returns its elements; an absolute path starts with "/".
func split(path string) []string {
	clean := filepath.ToSlash(filepath.Clean(path))
	var elems []string
	if strings.HasPrefix(clean, "/") {
		elems = append(elems, "/")
	}
	for _, e := range strings.Split(clean, "/") {
		if e != "" && e != "." {
			elems = append(elems, e)
		}
	}
	return elems
}

// find returns where the run want starts in elems, or -1. A run that starts with "/" (a system
// file) matches only at the start of an absolute path; a relative path is matched after any
// leading `..`, since the caller also asks with the path made absolute.
func find(elems, want []string, abs bool) int {
	if want[0] == "/" {
		if !abs {
			// ../../etc/shadow: compare the run without the root after the leading `..`.
			i := 0
			for i < len(elems) && elems[i] == ".." {
				i++
			}
			if i > 0 && hasRunAt(elems, want[1:], i) {
				return i
			}
			return -1
		}
		if hasRunAt(elems, want, 0) {
			return 0
		}
		return -1
	}
	for i := range elems {
		if hasRunAt(elems, want, i) {
			return i
		}
	}
	return -1
}

func hasRunAt(elems, want []string, at int) bool {
	if at+len(want) > len(elems) {
		return false
	}
	for j, w := range want {
		if elems[at+j] != w {
			return false
		}
	}
	return true
}

// Mentions reports whether text names the first element of some credential store's path
// (".aws", ".ssh", "etc/", ".netrc", …), without which no path in it can be one: a cheap test
// before a path is split, or a command parsed to find what it reads. It errs towards true.
func Mentions(text string) bool {
	for _, k := range mentionKeys {
		if strings.Contains(text, k) {
			return true
		}
	}
	for _, s := range stores {
		if s.elems[0] != "/" && strings.Contains(text, s.elems[0]) {
			return true
		}
	}
	return false
}

// mentionKeys are the names besides the stores' first elements that Mentions looks for: a path
// inside ~/.ssh or /etc (the system stores' runs start at the root).
var mentionKeys = [...]string{".ssh", "ssh_host_", "etc/"}

// HomePaths lists the credential stores under home and the system files, as absolute paths,
// whether or not they exist, and every private file in home/.ssh (everything there but the
// public names), for the read-only sandbox to make unreadable. It reads home/.ssh.
func HomePaths(home string) []string {
	var out []string
	for _, s := range stores {
		if s.elems[0] == "/" {
			out = append(out, "/"+filepath.Join(s.elems[1:]...))
			continue
		}
		if home != "" {
			out = append(out, filepath.Join(append([]string{home}, s.elems...)...))
		}
	}
	if home == "" {
		return out
	}
	entries, _ := os.ReadDir(filepath.Join(home, ".ssh"))
	for _, e := range entries {
		if !sshPublic(e.Name()) {
			out = append(out, filepath.Join(home, ".ssh", e.Name()))
		}
	}
	return out
}

// HomeFiles is HomePaths without the directories: the files another hard link could name.
func HomeFiles(home string) []string {
	var out []string
	for _, p := range HomePaths(home) {
		for _, s := range stores {
			if !s.dir && strings.HasSuffix(p, "/"+strings.Join(s.elems, "/")) || strings.Contains(p, "/.ssh/") {
				out = append(out, p)
				break
			}
		}
	}
	return out
}

// ExcludeGlobs are the base names a recursive search skips (the rewrites of rg and grep -r):
// the project secrets' patterns and the credential directories a walk of a home would enter.
// .env.* takes the templates too; the agent can read those by name.
var ExcludeGlobs = []string{".env", ".env.*", ".envrc", "*.pem", "*.key", "*.p12", "*.pfx",
	"id_rsa", "id_dsa", "id_ecdsa", "id_ed25519", "id_ecdsa_sk", "id_ed25519_sk"}

// ExcludeDirs are the directories a recursive search skips.
var ExcludeDirs = []string{".ssh", ".gnupg", ".aws", ".password-store", ".azure"}

// secretNames stand for the project secrets' names (projectSecret), for testing a pattern.
var secretNames = []string{".env", ".env.local", ".env.production", ".env.prod", ".env.development", ".env.dev",
	".env.test", ".env.staging", ".envrc", "server.pem", "server.key", "store.p12", "store.pfx", "id_rsa", "id_dsa",
	"id_ed25519", "id_ecdsa"}

// PatternMayMatch reports whether a file-name pattern (fnmatch(3), as find's -name uses it) may
// match a project secret's name: a pattern without wildcards is classified as the name it is;
// one with wildcards is tried against names that stand for each kind (secretNames), with `*`
// matching a leading dot too, as find's -name does. It is a test of patterns people write
// (`*.go` passes, `*`, `.e*`, `*.pem` do not), not of every language a pattern can denote: a
// `.env.go` would pass `*.go`. fold compares without case (-iname).
func PatternMayMatch(pattern string, fold bool) bool {
	if fold {
		pattern = strings.ToLower(pattern)
	}
	if !strings.ContainsAny(pattern, "*?[\\") {
		return projectSecret(pattern) != ""
	}
	for _, n := range secretNames {
		if ok, err := path.Match(pattern, n); ok || err != nil {
			return true
		}
	}
	return false
}

// variableParts say a variable holds a secret wherever they stand in its name; variableWords
// say so as one of its _-separated words (GH_PAT, MYSQL_PWD, CI_JOB_JWT, SENTRY_DSN,
// DATABASE_URL, HTTPS_PROXY: a URL or a proxy often carries user:password@). PWD and OLDPWD
// alone are the shell's directories.
var (
	variableParts = []string{"TOKEN", "SECRET", "PASS", "KEY", "CREDENTIAL", "AUTH", "COOKIE", "SESSION", "PRIVATE", "SIGNATURE", "SALT", "CERT"}
	variableWords = []string{"PAT", "PWD", "PW", "JWT", "DSN", "URL", "URI", "PROXY", "CONN", "CONNECTION", "DATABASE", "DB", "WEBHOOK", "SAS", "OTP", "PIN"}
)

// Variable reports whether an environment variable's name says it holds a secret (GITHUB_TOKEN,
// AWS_SECRET_ACCESS_KEY, PGPASSWORD, MYSQL_PWD, DATABASE_URL, …): its value must not enter the
// model's context, and the decision log withholds what is assigned to it. It errs toward yes
// (MONKEY, ANTHROPIC_BASE_URL): a variable it names can still be read by the user.
func Variable(name string) bool {
	upper := strings.ToUpper(name)
	if upper == "PWD" || upper == "OLDPWD" {
		return false
	}
	for _, p := range variableParts {
		if strings.Contains(upper, p) {
			return true
		}
	}
	// The words between underscores and digits, without allocating: the decision log asks
	// this of every variable of the hook's environment on every call.
	for start := 0; start < len(upper); {
		end := start
		for end < len(upper) && upper[end] != '_' && (upper[end] < '0' || upper[end] > '9') {
			end++
		}
		if end > start && slices.Contains(variableWords, upper[start:end]) {
			return true
		}
		start = end + 1
	}
	return false
}
