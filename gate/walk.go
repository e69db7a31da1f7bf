package gate

// Judging a walk by where it can go (issue 23, items 5 and 6): the hook walks the tree a
// recursive reader will walk (rg, grep -r, diff -r, git grep, find -exec of a reader), following
// the links it will follow, and finds a secret it would read: a file named like a project secret
// that the rewrite does not exclude, a credential store reached through a starting point or a
// link, a link whose target is one (its name says nothing), a hard link to a credential file, a
// configuration file whose content holds a credential. This is the hook process's I/O on the
// policy's behalf, bounded: a walk too large to check within the bounds is refused, not judged
// on a part.

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/hookctl/hookctl/internal/secrets"
	"github.com/hookctl/hookctl/policy"
	"github.com/hookctl/hookctl/programs"
)

// Bounds on the walks of one command: the entries they may look at and the time they may take,
// together, well inside the hook's deadline.
const (
	maxWalkEntries = 20000
	maxWalkTime    = 400 * time.Millisecond
	maxContentHead = 64 << 10
)

// walker is one command's walks, sharing their bounds.
type walker struct {
	r        *resolver
	entries  int
	deadline time.Time
	linked   []string // credential files with another hard link (their names)
	seen     map[[2]uint64]bool
}

// Walk judges the walks of one command; nil when none would read a secret. Over its bounds it
// returns a hit with Err set: the command is refused.
func Walk(reqs []policy.WalkRequest) *policy.WalkHit {
	w := &walker{r: &resolver{seen: map[string]lookup{}}, entries: maxWalkEntries, deadline: time.Now().Add(maxWalkTime), seen: map[[2]uint64]bool{}}
	for _, req := range reqs {
		w.linked = linkedCredentials(req.Home)
		if h := w.storesBeneath(req); h != nil {
			return h
		}
		if !needsWalk(req, w.linked) {
			continue
		}
		for _, root := range req.Roots {
			if h := w.walk(req, root, filepath.Base(root), true); h != nil {
				return h
			}
		}
	}
	return nil
}

// needsWalk says whether a walk must be walked to be judged: its names are not enough when no
// rewrite excludes the secret ones, when it follows links (a link's name says nothing of its
// target) or its reader opens the links it yields (find -exec), and when a credential file has
// another hard link somewhere (that name says nothing either). A walk the rewrite excludes
// secret names from, that follows no link, is judged by its starting points alone: `rg TODO` in
// a large tree costs nothing and is never refused for its size.
func needsWalk(req policy.WalkRequest, linked []string) bool {
	return !req.Excluded || req.Follow == programs.FollowAll || req.OpensLinks || len(linked) > 0
}

// linkedCredentials are the credential files under home that have another hard link: rare, and
// only then does a walk need to compare every file's identity with them.
func linkedCredentials(home string) []string {
	var out []string
	for _, f := range secrets.HomeFiles(home) {
		if fi, err := os.Lstat(f); err == nil && fi.Mode().IsRegular() && linkCount(fi) > 1 {
			out = append(out, f)
		}
	}
	return out
}

// storesBeneath finds a credential store that exists beneath a starting point (a walk of the home,
// of ~/.config, of /): outside the sandbox the walk reads it, whatever the exclusions (grep's
// match base names only, and a store's file is named like any other: ~/.config/gh/hosts.yml).
func (w *walker) storesBeneath(req policy.WalkRequest) *policy.WalkHit {
	if req.Sandboxed {
		return nil
	}
	for _, root := range req.Roots {
		real, err := w.r.resolve(root)
		if err != nil {
			continue
		}
		for _, s := range secrets.HomePaths(req.Home) {
			if beneath(s, real) && s != real {
				if _, err := os.Lstat(s); err == nil {
					_, what := secrets.ClassifyUnder(s, req.Home)
					return &policy.WalkHit{Path: root, What: what, Via: s, Class: secrets.Credential}
				}
			}
		}
	}
	return nil
}

// walk visits p (named name in its directory), and below it when it is a directory the walk
// enters.
func (w *walker) walk(req policy.WalkRequest, p, name string, root bool) *policy.WalkHit {
	if w.entries--; w.entries < 0 || time.Now().After(w.deadline) {
		return &policy.WalkHit{Path: req.Roots[0], Err: "the walk reaches more files than hookctl checks for secrets; name the files, or start it lower"}
	}
	if !root && req.Excluded && excludedName(name) {
		return nil
	}
	fi, err := os.Lstat(p)
	if err != nil {
		return nil
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		follow := req.Follow == programs.FollowAll || root && (req.Follow == programs.FollowRoots || strings.HasSuffix(p, "/"))
		if !follow && !req.OpensLinks {
			return nil
		}
		target, err := w.r.resolve(p)
		if err != nil {
			return &policy.WalkHit{Path: p, Err: "hookctl could not resolve the link (" + err.Error() + ")"}
		}
		tfi, err := os.Stat(target)
		if err != nil {
			return nil
		}
		if tfi.IsDir() {
			if !follow {
				return nil // a reader given a directory reads nothing
			}
			if h := w.judgeTarget(req, p, target, true); h != nil {
				return h
			}
			return w.enter(req, target, tfi)
		}
		if !w.nameMatches(req, name) {
			return nil
		}
		if h := w.judgeTarget(req, p, target, false); h != nil {
			return h
		}
		return w.judgeFile(req, target, filepath.Base(target), tfi, p)
	}
	if fi.IsDir() {
		if c, what := secrets.ClassifyUnder(p, req.Home); c == secrets.Credential && !req.Sandboxed {
			return &policy.WalkHit{Path: p, What: what, Class: c}
		}
		return w.enter(req, p, fi)
	}
	if !fi.Mode().IsRegular() || !w.nameMatches(req, name) {
		return nil
	}
	return w.judgeFile(req, p, name, fi, "")
}

// enter walks a directory's entries, once per directory (a link may lead back up).
func (w *walker) enter(req policy.WalkRequest, dir string, fi fs.FileInfo) *policy.WalkHit {
	if id, ok := fileID(fi); ok {
		if w.seen[id] {
			return nil
		}
		w.seen[id] = true
	}
	f, err := os.Open(dir)
	if err != nil {
		return nil
	}
	names, _ := f.Readdirnames(w.entries + 1)
	f.Close()
	slices.Sort(names)
	for _, n := range names {
		if h := w.walk(req, filepath.Join(dir, n), n, false); h != nil {
			return h
		}
	}
	return nil
}

// judgeTarget judges where a link the walk follows or the reader opens leads: a credential store
// (outside the sandbox, which hides them), or a project secret whose name the link hides.
func (w *walker) judgeTarget(req policy.WalkRequest, link, target string, dir bool) *policy.WalkHit {
	c, what := secrets.ClassifyUnder(target, req.Home)
	switch {
	case c == secrets.Credential && !req.Sandboxed:
		return &policy.WalkHit{Path: link, What: what, Via: target, Class: c}
	case c == secrets.Project && !dir:
		return &policy.WalkHit{Path: link, What: what, Via: target, Class: c}
	}
	return nil
}

// judgeFile judges a regular file the walk reads: by its name (unless the rewrite excludes it,
// which walk has seen to), its path, another hard link to a credential file, and, for a
// configuration file that can hold one, its content.
func (w *walker) judgeFile(req policy.WalkRequest, p, name string, fi fs.FileInfo, via string) *policy.WalkHit {
	shown := p
	if via != "" {
		shown = via
	}
	c, what := secrets.ClassifyUnder(p, req.Home)
	switch {
	case c == secrets.Project && !(req.Excluded && via == ""):
		return &policy.WalkHit{Path: shown, What: what, Class: c}
	case c == secrets.Credential && !req.Sandboxed:
		return &policy.WalkHit{Path: shown, What: what, Class: c}
	}
	if len(w.linked) > 0 && linkCount(fi) > 1 {
		for _, f := range w.linked {
			if ci, err := os.Stat(f); err == nil && os.SameFile(fi, ci) {
				return &policy.WalkHit{Path: shown, What: "a hard link to a credential store", Via: f, Class: secrets.Credential}
			}
		}
	}
	if !(req.Excluded && excludedName(name)) && secrets.ContentBase(name) {
		inGit := filepath.Base(filepath.Dir(p)) == ".git"
		if what := contentCredential(p, name, inGit); what != "" {
			return &policy.WalkHit{Path: shown, What: what, Class: secrets.Project}
		}
	}
	return nil
}

// nameMatches applies find's -name tests: the name must match every one.
func (w *walker) nameMatches(req policy.WalkRequest, name string) bool {
	for _, pat := range req.Names {
		if !secrets.Match(pat, name, req.Fold) {
			return false
		}
	}
	return true
}

// excludedName says whether the rewrite's exclusions skip an entry of this name, as fnmatch
// without case reads them.
func excludedName(name string) bool {
	for _, g := range secrets.ExcludeGlobs {
		if secrets.Match(g, name, true) {
			return true
		}
	}
	for _, d := range secrets.ExcludeDirs {
		if strings.EqualFold(d, name) {
			return true
		}
	}
	return false
}

// contentCredential reads the head of a file that may hold a credential by its content and says
// what it holds, or "".
func contentCredential(p, name string, inGit bool) string {
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return ""
	}
	defer f.Close()
	buf := make([]byte, maxContentHead)
	n, _ := f.Read(buf)
	return secrets.ContentCredential(name, buf[:n], inGit)
}

// beneath says whether p is dir or beneath it (both clean and absolute).
func beneath(p, dir string) bool {
	return p == dir || dir == "/" || strings.HasPrefix(p, dir+"/")
}

// ReadList reads the names in a file of names (sort --files0-from, file -f): at most maxListNames
// of them from its first maxListBytes, separated by sep. A longer list is an error: the
// command is refused rather than judged on part of it.
func ReadList(path string, sep byte) ([]string, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	buf := make([]byte, maxListBytes+1)
	n, _ := f.Read(buf)
	if n > maxListBytes {
		return nil, errors.New("the list is longer than hookctl reads")
	}
	var out []string
	for _, name := range strings.Split(string(buf[:n]), string(sep)) {
		if name = strings.TrimSuffix(name, "\r"); name != "" {
			out = append(out, name)
		}
	}
	if len(out) > maxListNames {
		return nil, errors.New("the list names more files than hookctl reads")
	}
	return out, nil
}

const (
	maxListBytes = 64 << 10
	maxListNames = 1024
)
