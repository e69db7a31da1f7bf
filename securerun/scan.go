package securerun

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/hookctl/hookctl/internal/secrets"
)

// Caps on the scan: the bytes of a file it reads for key headers and tokens (a key further in
// is not seen: docs/secure-read-only.md), and the entries it walks before it gives up, which
// refuses the run (a scan that did not finish vouches for nothing).
const (
	ScanHeadBytes  = 1 << 20
	ScanMaxEntries = 2_000_000
)

// Finding is a file the scan found: its path in the repository and what it is. Never its
// content.
type Finding struct {
	Path string `json:"path"`
	What string `json:"what"`
}

// Sensitive is the scan's result: what it found, which of it the user let through
// (--allow-sensitive), and what the rest is.
type Sensitive struct {
	Found   []Finding `json:"found"`
	Allowed []string  `json:"allowed"` // the --allow-sensitive paths, as given
	// Unmatched are --allow-sensitive paths that matched no finding.
	Unmatched []string `json:"unmatched,omitempty"`
	Entries   int      `json:"entries"` // files and directories walked
	// Incomplete says why the scan could not vouch for the whole repository, if it could not.
	Incomplete string `json:"incomplete,omitempty"`
}

// Refused are the findings no --allow-sensitive path covers.
func (s Sensitive) Refused() []Finding {
	var out []Finding
	for _, f := range s.Found {
		if !slices.ContainsFunc(s.Allowed, func(a string) bool { return allowCovers(a, f.Path) }) {
			out = append(out, f)
		}
	}
	return out
}

// allowCovers says whether an --allow-sensitive path (relative to the repository) covers a
// finding: the file itself, or a directory holding it.
func allowCovers(allow, p string) bool {
	a := path.Clean(filepath.ToSlash(allow))
	return a == "." || a == p || strings.HasPrefix(p, a+"/")
}

// nameRule is a file that holds a credential by what it is, beyond internal/secrets' names.
type nameRule struct {
	match func(base string) bool
	what  string
}

// sensitiveNames are files that hold credentials by what they are, whatever is in them (checked
// after secrets.Classify, which knows .env*, keys, key stores and the users' credential stores):
// Java and KeePass key stores, PuTTY keys, Terraform state (every resource's secrets in plain
// text), htpasswd hashes, gem credentials.
var sensitiveNames = []nameRule{
	{func(b string) bool { return strings.HasSuffix(b, ".jks") || strings.HasSuffix(b, ".keystore") }, "a Java key store"},
	{func(b string) bool { return strings.HasSuffix(b, ".kdbx") || strings.HasSuffix(b, ".kdb") }, "a KeePass password database"},
	{func(b string) bool { return strings.HasSuffix(b, ".ppk") }, "a PuTTY private key"},
	{func(b string) bool {
		return strings.HasSuffix(b, ".tfstate") || strings.HasSuffix(b, ".tfstate.backup")
	}, "Terraform state (holds resources' secrets)"},
	{func(b string) bool { return b == ".htpasswd" }, "password hashes"},
	{func(b string) bool { return b == ".dockercfg" }, "Docker registry credentials"},
}

// ScanName classifies a repository-relative path by its name alone.
func ScanName(rel string) string {
	if class, what := secrets.Classify(rel); class != secrets.None {
		return what
	}
	base := path.Base(rel)
	for _, r := range sensitiveNames {
		if r.match(base) {
			return r.what
		}
	}
	return ""
}

// ScanContent classifies a file by the first ScanHeadBytes of its content: a private key's
// header anywhere in it, or, in a well-known token file, a line that sets a token
// (secrets.ContentCredential, which the read-only judge shares). inGitDir: the file is in a git
// directory, where only config files are looked at.
func ScanContent(rel string, head []byte, inGitDir bool) string {
	return secrets.ContentCredential(path.Base(rel), head, inGitDir)
}

// skippedGitDirs are the parts of a git directory the scan does not walk: objects, packs and
// LFS content are history, out of the scan's scope (docs/secure-read-only.md).
var skippedGitDirs = []string{"objects", "lfs", "logs", "rr-cache"}

// Scan walks the repository at root without following links, classifying every entry by name
// and every regular file by its head (ScanName, ScanContent), and noting the agent
// configuration it holds (AgentConfigKind). gitDirs are more directories to look into for
// remote credentials (a worktree's git directory outside the root).
func Scan(root string, gitDirs []string, allow []string) (Sensitive, []AgentConfig) {
	s := Sensitive{Allowed: slices.Clone(allow)}
	var agent []AgentConfig
	var rules []*agentConfigRule
	buf := make([]byte, ScanHeadBytes)
	var walk func(base, prefix string, gitDir bool)
	walk = func(base, prefix string, gitDir bool) {
		err := filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
			if s.Incomplete != "" {
				return filepath.SkipAll
			}
			rel, _ := filepath.Rel(base, p)
			rel = filepath.ToSlash(filepath.Join(prefix, rel))
			if err != nil {
				s.Incomplete = fmt.Sprintf("failed to read %s: %v", rel, errors.Unwrap(err))
				return filepath.SkipAll
			}
			if s.Entries++; s.Entries > ScanMaxEntries {
				s.Incomplete = fmt.Sprintf("the repository has more than %d files and directories", ScanMaxEntries)
				return filepath.SkipAll
			}
			inGit := gitDir || slices.Contains(strings.Split(rel, "/"), ".git")
			if !inGit && (d.IsDir() || d.Type().IsRegular()) {
				if r := AgentConfigKind(rel, d.IsDir()); r != nil {
					agent = append(agent, AgentConfig{Path: rel, What: r.what})
					rules = append(rules, r)
				}
			}
			if d.IsDir() {
				if inGit && slices.Contains(skippedGitDirs, d.Name()) {
					return filepath.SkipDir
				}
				if !inGit && rel != "." && rel != prefix {
					if what := ScanName(rel); what != "" {
						s.Found = append(s.Found, Finding{rel, what})
						return filepath.SkipDir
					}
				}
				return nil
			}
			if !inGit {
				if what := ScanName(rel); what != "" {
					s.Found = append(s.Found, Finding{rel, what})
					return nil
				}
			}
			if !d.Type().IsRegular() {
				return nil // a link is not followed: what it points to outside is unreadable in the sandbox
			}
			if inGit && d.Name() != "config" {
				return nil
			}
			n, err := readHead(p, buf)
			if err != nil {
				s.Incomplete = fmt.Sprintf("failed to read %s: %v", rel, err)
				return filepath.SkipAll
			}
			if what := ScanContent(rel, buf[:n], inGit); what != "" {
				s.Found = append(s.Found, Finding{rel, what})
			}
			return nil
		})
		if err != nil && s.Incomplete == "" {
			s.Incomplete = err.Error()
		}
	}
	walk(root, "", false)
	for _, g := range gitDirs {
		walk(g, filepath.ToSlash(g), true)
	}
	for _, a := range allow {
		if !slices.ContainsFunc(s.Found, func(f Finding) bool { return allowCovers(a, f.Path) }) {
			s.Unmatched = append(s.Unmatched, a)
		}
	}
	for i := range agent {
		agent[i].Detail = rules[i].describe(root, agent[i].Path)
	}
	return s, agent
}

// readHead reads up to len(buf) bytes of the regular file at p, without following a link and
// without blocking on a FIFO put in its place since the walk saw it.
func readHead(p string, buf []byte) (int, error) {
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return 0, errors.Unwrap(err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return 0, nil
	}
	n, err := io.ReadFull(f, buf)
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		err = nil
	}
	return n, err
}
