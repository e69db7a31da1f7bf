// Package secrets names the files that hold credentials, so that the read-only gate can refuse
// to read them into a model's context and the read-only sandbox can make them unreadable; and the
// environment variables that hold them, so that the sandbox never passes them in.
//
// It runs in the hook process and in hookctl's sandbox launcher; it does no I/O but in
// HomePaths and HomeFiles, which list ~/.ssh for the launcher.
//
// Three classes, judged on the path's names alone, however the path is written (relative,
// absolute, through `..`), without regard to case (a file system that folds case opens .ENV as
// .env): the caller resolves links and the working directory and asks again.
//   - Credential: a credential store of the user or the system (the stores table: ~/.ssh
//     private keys, ~/.aws/credentials, every coding agent's own credential file, package
//     registries' tokens, shell histories, /etc/shadow, …), matched as a run of path elements
//     anywhere in the path, so /home/u/.aws/credentials, ../../.aws/credentials and a copy under
//     another home all count (a few names projects use for their own configuration, .npmrc
//     among them, only right under the user's home: ClassifyUnder); a process's environment,
//     memory, command line and descriptors under /proc (any process: the judge cannot know
//     which process /proc/self will be); a raw disk or memory device.
//   - Project: a file that by its name holds a project's secrets: .env and .env.* (but the
//     committed templates .env.example, .env.sample, .env.template and .env.dist, which hold
//     placeholders by convention), .envrc, *.pem, *.key, *.p12, *.pfx, and id_* without a dot
//     (an SSH key's name; id_rsa.pub and id_gen.go are not).
//
// Out of scope: a secret in a file named like any other (config.yaml; a project's .npmrc or
// .git/config is judged by its content, in the hook: ContentCredential), a secret in git's
// history or objects reached by a hash.
package secrets

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
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

// sshPublic are the names in ~/.ssh that hold no secret. Every other file there may be a
// private key, whatever its name (keys are often named for the host: ~/.ssh/github).
func sshPublic(name string) bool {
	switch strings.ToLower(name) {
	case "known_hosts", "known_hosts.old", "config", "authorized_keys", "authorized_keys2":
		return true
	}
	return hasSuffixFold(name, ".pub")
}

// Classify says what path holds, and in a few words what it is (for a refusal), matching the
// stores that count under any home; ClassifyUnder also matches those that count only under the
// user's.
func Classify(path string) (Class, string) { return ClassifyUnder(path, "") }

// ClassifyUnder is Classify for a user whose home is home: the stores marked home (.npmrc,
// .pypirc, …) count there too.
func ClassifyUnder(path, home string) (Class, string) {
	if path == "" {
		return None, ""
	}
	if strings.HasPrefix(path, "/") && (strings.Contains(path, "proc") || strings.Contains(path, "dev")) {
		if what := systemPath(path); what != "" {
			return Credential, what
		}
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
		if strings.EqualFold(e, ".ssh") {
			// ~/.ssh itself, a walk of it, or a file in it that is not public.
			if i == len(elems)-1 || !sshPublic(elems[i+1]) {
				return Credential, "SSH private keys"
			}
		}
		if i > 0 && strings.EqualFold(elems[i-1], "ssh") && hasPrefixFold(e, "ssh_host_") && hasSuffixFold(e, "_key") {
			return Credential, "an SSH host private key"
		}
	}
	anchors := homeAnchors(elems, home)
	for _, s := range stores {
		if s.home {
			for _, a := range anchors {
				if hasRunAt(elems, s.elems, a) && (s.dir || a+len(s.elems) == len(elems)) {
					return Credential, s.what
				}
			}
		} else if at := find(elems, s.elems, abs); at >= 0 && (s.dir || at+len(s.elems) == len(elems)) {
			return Credential, s.what
		}
		// A directory on the way to a store (~/.aws, ~/.config/gh, /etc): a reader that walks
		// it reads the store. Only in a home: a project's own .claude or .cargo holds none.
		for n := len(s.elems) - 1; n >= 1; n-- {
			if s.elems[0] == "/" {
				if n == 1 {
					break // not the root itself
				}
				if at := find(elems, s.elems[:n], abs); at >= 0 && at+n == len(elems) {
					return Credential, "a directory holding " + s.what
				}
				continue
			}
			for _, a := range anchors {
				if a+n == len(elems) && hasRunAt(elems, s.elems[:n], a) {
					return Credential, "a directory holding " + s.what
				}
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

// homeAnchors returns where, in elems, a home directory ends: the user's (home) and the usual
// places of anyone's (/root, /home/NAME, /Users/NAME, /var/root), so that a copy of a store under
// another user's home counts too. A relative path has none: the caller asks again with it made
// absolute.
func homeAnchors(elems []string, home string) []int {
	if len(elems) == 0 || elems[0] != "/" {
		return nil
	}
	var out []int
	if home != "" && filepath.IsAbs(home) {
		if h := split(home); len(h) > 1 && hasRunAt(elems, h, 0) {
			out = append(out, len(h))
		}
	}
	switch {
	case len(elems) > 2 && (elems[1] == "home" || elems[1] == "Users"):
		out = append(out, 3)
	case len(elems) > 1 && elems[1] == "root":
		out = append(out, 2)
	case len(elems) > 2 && elems[1] == "var" && elems[2] == "root":
		out = append(out, 3)
	}
	return out
}

// projectSecret says whether a file's base name marks it as a project secret, and what kind,
// without regard to case.
func projectSecret(name string) string {
	lower := name
	for i := 0; i < len(name); i++ {
		if 'A' <= name[i] && name[i] <= 'Z' {
			lower = strings.ToLower(name)
			break
		}
	}
	switch {
	case lower == ".env" || lower == ".envrc":
		return "an environment file"
	case strings.HasPrefix(lower, ".env."):
		switch strings.TrimPrefix(lower, ".env.") {
		case "example", "sample", "template", "dist":
			return ""
		}
		return "an environment file"
	case strings.HasSuffix(lower, ".pem"), strings.HasSuffix(lower, ".key"):
		return "a private key or certificate"
	case strings.HasSuffix(lower, ".p12"), strings.HasSuffix(lower, ".pfx"):
		return "a key store"
	case strings.HasPrefix(lower, "id_") && !strings.Contains(lower, "."):
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

// hasRunAt reports whether want stands in elems at at, without regard to case; "*" in want
// stands for any one element.
func hasRunAt(elems, want []string, at int) bool {
	if at+len(want) > len(elems) {
		return false
	}
	for j, w := range want {
		if w != "*" && !strings.EqualFold(elems[at+j], w) {
			return false
		}
	}
	return true
}

// Mentions reports whether text names the first element of some credential store's path
// (".aws", ".ssh", "etc/", ".netrc", …), without regard to case, without which no path in it can
// be one: a cheap test before a path is split, or a command parsed to find what it reads. It
// errs towards true.
func Mentions(text string) bool {
	lower := strings.ToLower(text)
	for _, k := range mentionKeys {
		if strings.Contains(lower, k) {
			return true
		}
	}
	for _, k := range storeFirsts() {
		if strings.Contains(lower, k) {
			return true
		}
	}
	return false
}

// storeFirsts are the stores' first elements, lower-cased once, on first use: the hook process
// builds nothing at start-up (TestInitAllocatesNothing).
func storeFirsts() []string {
	firsts.once.Do(func() {
		for _, s := range stores {
			if k := strings.ToLower(s.elems[0]); s.elems[0] != "/" && !slices.Contains(firsts.v, k) {
				firsts.v = append(firsts.v, k)
			}
		}
	})
	return firsts.v
}

var firsts struct {
	once sync.Once
	v    []string
}

// mentionKeys are the names besides the stores' first elements that Mentions looks for: a path
// inside ~/.ssh or /etc, or the run directory (the system stores' runs start at the root).
var mentionKeys = [...]string{".ssh", "ssh_host_", "etc/", "run/"}

// HomePaths lists the credential stores under home and the system files, as absolute paths,
// whether or not they exist, and every private file in home/.ssh (everything there but the
// public names), for the read-only sandbox to make unreadable. A store with a wildcard element
// is listed for each directory that stands there now. It reads home/.ssh.
func HomePaths(home string) []string {
	out := storePaths(home, false)
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

// storePaths are the stores' paths (with files, those that are files only), the ones under
// home only where home is not "". They are written into one buffer and cut from one string:
// the read-only launch lists them on every command, where a filepath.Join each cost it
// 0.09 ms (interleaved pairs).
func storePaths(home string, files bool) []string {
	if home != "" {
		if home = filepath.Clean(home); home == "/" {
			home = ""
		}
		home += "/"
	}
	buf := make([]byte, 0, 64*len(stores))
	type piece struct {
		end      int      // where its path ends in buf
		expanded []string // or, for a wildcard, the paths standing there
	}
	pieces := make([]piece, 0, len(stores))
	for _, s := range stores {
		switch {
		case files && s.dir:
		case s.elems[0] == "/":
			if p := "/" + strings.Join(s.elems[1:], "/"); strings.Contains(p, "*") {
				pieces = append(pieces, piece{end: -1, expanded: expand(p)})
			} else {
				buf = append(buf, p...)
				pieces = append(pieces, piece{end: len(buf)})
			}
		case home != "":
			buf = append(buf, home...)
			for i, e := range s.elems {
				if i > 0 {
					buf = append(buf, '/')
				}
				buf = append(buf, e...)
			}
			pieces = append(pieces, piece{end: len(buf)})
		}
	}
	out := make([]string, 0, len(pieces)+8)
	all, start := string(buf), 0
	for _, p := range pieces {
		if p.end < 0 {
			out = append(out, p.expanded...)
			continue
		}
		out = append(out, all[start:p.end])
		start = p.end
	}
	return out
}

// expand is path with each "*" element replaced by the entries standing there now.
func expand(path string) []string {
	if !strings.Contains(path, "/*/") {
		return []string{path}
	}
	m, _ := filepath.Glob(path)
	return m
}

// HomeFiles is HomePaths without the directories: the files another hard link could name.
func HomeFiles(home string) []string {
	out := storePaths(home, true)
	if home == "" {
		return out
	}
	entries, _ := os.ReadDir(filepath.Join(home, ".ssh"))
	for _, e := range entries {
		if !sshPublic(e.Name()) && !e.IsDir() {
			out = append(out, filepath.Join(home, ".ssh", e.Name()))
		}
	}
	return out
}

// ExcludeGlobs are the base names a recursive search skips (the rewrites of rg, grep -r and git
// grep), covering every project secret's name (projectSecret): .env.* takes the templates too
// (the agent can read those by name), and an SSH key's id_* without a dot is spelt out as id_
// and one to maxKeyName characters that are not a dot (a glob has no "no dot" of any length;
// a longer name is left to the walk the hook makes where links or no rewrite call for one).
var ExcludeGlobs = []string{".env", ".env.*", ".envrc", "*.pem", "*.key", "*.p12", "*.pfx",
	"id_[!.]", "id_[!.][!.]", "id_[!.][!.][!.]", "id_[!.][!.][!.][!.]",
	"id_[!.][!.][!.][!.][!.]", "id_[!.][!.][!.][!.][!.][!.]", "id_[!.][!.][!.][!.][!.][!.][!.]", "id_[!.][!.][!.][!.][!.][!.][!.][!.]",
	"id_[!.][!.][!.][!.][!.][!.][!.][!.][!.]", "id_[!.][!.][!.][!.][!.][!.][!.][!.][!.][!.]", "id_[!.][!.][!.][!.][!.][!.][!.][!.][!.][!.][!.]", "id_[!.][!.][!.][!.][!.][!.][!.][!.][!.][!.][!.][!.]"}

// maxKeyName is the longest id_* name, after id_, that ExcludeGlobs spells out
// (TestExcludeGlobsCoverProjectSecrets holds the list to it).
const maxKeyName = 12

// ExcludeDirs are the directories a recursive search skips: the credential stores' own
// directories (a walk of the home enters them; the read-only sandbox hides them too). A
// store's file under a directory shared with other tools (~/.config/gh/hosts.yml) is not here: a
// walk that can reach it is judged where it starts (the hook refuses a walk of the home outside
// the sandbox).
var ExcludeDirs = []string{".ssh", ".gnupg", ".aws", ".password-store", ".azure", ".codex", ".gemini", ".qwen", ".copilot",
	".cursor", ".docker", ".kube", ".gem", ".terraform.d", ".huggingface"}

func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

func hasSuffixFold(s, suffix string) bool {
	return len(s) >= len(suffix) && strings.EqualFold(s[len(s)-len(suffix):], suffix)
}
