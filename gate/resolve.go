package gate

// Resolving a file tool's target the way the kernel will, before the policy compares it with the
// protected set. This is the hook process's I/O on the policy's behalf (Policy.Resolve): the
// policy itself stays a function of what it is given.

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"unicode"

	"github.com/hookctl/hookctl/hook"
	"github.com/hookctl/hookctl/internal/secrets"
	"github.com/hookctl/hookctl/policy"
)

// Limits on the I/O one resolution may do, well inside the hook's latency budget: beyond one,
// the target is refused rather than judged on a partial answer.
const (
	maxLinksFollowed = 40   // per path, as Linux's ELOOP
	maxLookups       = 2048 // lstat and readlink calls in all, the protected set included
	maxLinkedCompare = 512  // files of the protected directories compared with a hard-linked target
)

var errTooMuch = errors.New("too many lookups")

// ResolveTargets resolves the paths a file tool writes, and the protected set, for the policy.
// It follows the kernel's lookup: see Target. The hard-link comparison runs only for a target
// that exists with more than one link, so the common write costs a few lstat calls.
//
// Test: TestResolveTargets, TestResolveProtectedThroughLink, TestResolveHardLink,
// TestResolveCaseFold, TestFileToolsThroughLinks.
func ResolveTargets(paths []string, prot policy.Protection) policy.Resolution {
	r := &resolver{seen: map[string]lookup{}}
	var res policy.Resolution
	for _, q := range prot.Paths {
		if rq, err := r.resolve(q); err == nil && rq != q {
			res.Protected = append(res.Protected, rq)
		}
	}
	for _, p := range paths {
		t := policy.Target{Path: filepath.Clean(p)}
		if !filepath.IsAbs(p) {
			t.Err = "the path is not absolute"
			res.Targets = append(res.Targets, t)
			continue
		}
		rp, err := r.resolve(p) // as written: the kernel takes `..` after the link before it

		if err != nil {
			t.Err = "hookctl could not resolve it (" + err.Error() + ")"
			res.Targets = append(res.Targets, t)
			continue
		}
		t.Resolved = rp
		t.FoldsCase = r.foldsCase(rp)
		if fi, err := os.Stat(rp); err == nil && fi.Mode().IsRegular() && linkCount(fi) != 1 {
			t.LinkOf, err = r.hardLinkOf(fi, prot.Paths, res.Protected)
			if err != nil {
				t.Err = "it is a hard link, and hookctl could not compare it with every protected file (" + err.Error() + ")"
			}
		}
		res.Targets = append(res.Targets, t)
	}
	return res
}

// ResolveReads resolves the absolute paths a read names as the kernel will open them (symbolic
// links followed in every component, `..` after the link before it), for the sensitive-file
// rule, and for an existing file with more than one hard link, finds the credential file it is
// another name of (secrets.HomeFiles). A path that cannot be resolved has Err set; the rule
// refuses it.
//
// Test: TestSensitiveFilesThroughLinks (secrets_test.go).
func ResolveReads(paths []string) []policy.Target {
	home, _ := os.UserHomeDir()
	return resolveReads(paths, home)
}

func resolveReads(paths []string, home string) []policy.Target {
	r := &resolver{seen: map[string]lookup{}}
	var files []string
	out := make([]policy.Target, 0, len(paths))
	for _, p := range paths {
		t := policy.Target{Path: filepath.Clean(p)}
		rp, err := r.resolve(p)
		if err != nil {
			t.Err = err.Error()
			out = append(out, t)
			continue
		}
		if strings.HasSuffix(t.Path, "/.git/config") {
			// What git config, git remote -v and ls-remote --get-url print: the configuration of
			// the repository git finds from there, and the user's own (issue 23, item 2).
			t.Resolved = rp
			t.Holds = gitConfigHolds(r, filepath.Dir(filepath.Dir(t.Path)), home)
			out = append(out, t)
			continue
		}
		t.Resolved = rp
		fi, err := os.Stat(rp)
		if err == nil && fi.Mode()&fs.ModeDevice != 0 && fi.Mode()&fs.ModeCharDevice == 0 {
			t.Raw = true
		}
		if err == nil && fi.Mode().IsRegular() && secrets.ContentBase(filepath.Base(rp)) {
			t.Holds = contentCredential(rp, filepath.Base(rp), filepath.Base(filepath.Dir(rp)) == ".git")
		}
		if err == nil && fi.Mode().IsRegular() && linkCount(fi) > 1 {
			if files == nil {
				files = secrets.HomeFiles(home)
			}
			if t.LinkOf, err = r.hardLinkOf(fi, files); err != nil {
				t.Err = "it is a hard link, and hookctl could not compare it with every credential file (" + err.Error() + ")"
			}
		}
		out = append(out, t)
	}
	return out
}

// gitConfigHolds says what credential the git configuration that git run in dir reads holds: the
// repository's (found as git finds it, walking up to a .git directory or a .git file's gitdir),
// the user's ~/.gitconfig and ~/.config/git/config; "" when none.
func gitConfigHolds(r *resolver, dir, home string) string {
	var configs []string
	for d := dir; ; d = filepath.Dir(d) {
		g := filepath.Join(d, ".git")
		if fi, err := os.Stat(g); err == nil {
			if fi.IsDir() {
				configs = append(configs, filepath.Join(g, "config"))
			} else if b, err := os.ReadFile(g); err == nil && len(b) < 4096 {
				if gd, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:"); ok {
					gd = strings.TrimSpace(gd)
					if !filepath.IsAbs(gd) {
						gd = filepath.Join(d, gd)
					}
					configs = append(configs, filepath.Join(gd, "config"), filepath.Join(gd, "..", "..", "config"))
				}
			}
			break
		}
		if d == filepath.Dir(d) {
			break
		}
	}
	if home != "" {
		configs = append(configs, filepath.Join(home, ".gitconfig"), filepath.Join(home, ".config", "git", "config"))
	}
	for _, c := range configs {
		rc, err := r.resolve(c)
		if err != nil {
			continue
		}
		if what := contentCredential(rc, "config", true); what != "" {
			return what
		}
	}
	return ""
}

// FoldsCase reports whether any of dirs sits on a file system that looks names up without
// regard to case, found by looking a directory up under its name with the case swapped. A
// directory whose name has no cased letter is judged by its nearest parent that has one.
func FoldsCase(dirs ...string) bool {
	r := &resolver{seen: map[string]lookup{}}
	for _, d := range dirs {
		if d != "" && filepath.IsAbs(d) && r.foldsCase(filepath.Clean(d)) {
			return true
		}
	}
	return false
}

type lookup struct {
	fi   fs.FileInfo
	link string // a symbolic link's text
	err  error
}

// resolver memoises lookups, since the protected set shares most of its directories.
type resolver struct {
	seen    map[string]lookup
	lookups int
}

func (r *resolver) lstat(p string) lookup {
	if l, ok := r.seen[p]; ok {
		return l
	}
	r.lookups++
	if r.lookups > maxLookups {
		return lookup{err: errTooMuch}
	}
	var l lookup
	l.fi, l.err = os.Lstat(p)
	if l.err == nil && l.fi.Mode()&fs.ModeSymlink != 0 {
		r.lookups++
		l.link, l.err = os.Readlink(p)
	}
	r.seen[p] = l
	return l
}

// resolve walks p one element at a time, as the kernel does. Once an element does not exist,
// the rest cannot hold a link and is joined lexically (the tool creates what is missing).
func (r *resolver) resolve(p string) (string, error) {
	done, rest := "/", strings.TrimPrefix(p, "/")
	missing := false
	links := 0
	for rest != "" {
		var name string
		name, rest, _ = strings.Cut(rest, "/")
		switch name {
		case "", ".":
			continue
		case "..":
			done = filepath.Dir(done)
			continue
		}
		next := filepath.Join(done, name)
		if missing {
			done = next
			continue
		}
		l := r.lstat(next)
		switch {
		case l.err != nil && (errors.Is(l.err, fs.ErrNotExist) || errors.Is(l.err, syscall.ENOTDIR)):
			missing = true
			done = next
		case l.err != nil:
			return "", l.err
		case l.fi.Mode()&fs.ModeSymlink != 0:
			if links++; links > maxLinksFollowed {
				return "", errors.New("too many levels of symbolic links")
			}
			if filepath.IsAbs(l.link) {
				done = "/"
			}
			rest = strings.TrimPrefix(l.link, "/") + "/" + rest
		default:
			done = next
		}
	}
	return done, nil
}

// hardLinkOf returns the protected file that fi is another name of: a listed file, or a file in
// a listed directory on the same device (at most maxLinkedCompare of them; a .git or
// node_modules directory inside one is not searched).
func (r *resolver) hardLinkOf(fi fs.FileInfo, lists ...[]string) (string, error) {
	budget := maxLinkedCompare
	for _, list := range lists {
		for _, q := range list {
			qi, err := os.Stat(q)
			switch {
			case err != nil:
				continue
			case qi.Mode().IsRegular():
				if os.SameFile(fi, qi) {
					return q, nil
				}
			case qi.IsDir():
				if dq, ok := device(qi); ok {
					if df, ok := device(fi); ok && df != dq {
						continue // a hard link never crosses devices
					}
				}
				var found string
				err := filepath.WalkDir(q, func(p string, d fs.DirEntry, err error) error {
					if err == nil && d.IsDir() && (d.Name() == ".git" || d.Name() == "node_modules") {
						// A plugin marketplace's clone: its objects and packages configure nothing.
						return fs.SkipDir
					}
					if err != nil || !d.Type().IsRegular() {
						return nil
					}
					if budget--; budget < 0 {
						return errTooMuch
					}
					if pi, err := os.Stat(p); err == nil && os.SameFile(fi, pi) {
						found = p
						return fs.SkipAll
					}
					return nil
				})
				if found != "" {
					return found, nil
				}
				if err != nil {
					return "", errors.New("the protected directories hold too many files")
				}
			}
		}
	}
	return "", nil
}

// foldsCase reports whether the lookup of p's last element (or, if it does not exist or has no
// cased letter, of its nearest existing ancestor that has one) ignores case.
func (r *resolver) foldsCase(p string) bool {
	for ; p != "/" && p != "."; p = filepath.Dir(p) {
		l := r.lstat(p)
		if l.err != nil {
			continue
		}
		swapped := swapCase(filepath.Base(p))
		if swapped == filepath.Base(p) {
			continue
		}
		s := r.lstat(filepath.Join(filepath.Dir(p), swapped))
		return s.err == nil && os.SameFile(l.fi, s.fi)
	}
	return false
}

func swapCase(s string) string {
	return strings.Map(func(c rune) rune {
		switch {
		case unicode.IsUpper(c):
			return unicode.ToLower(c)
		case unicode.IsLower(c):
			return unicode.ToUpper(c)
		}
		return c
	}, s)
}

// ProtectionFor is what no agent may write in a session whose project is cwd: ProtectedPaths,
// the client's names protected in every directory, and whether the home or project directory's
// file system folds case (two or three lookups: FoldsCase).
func ProtectionFor(client hook.Client, hookctlHome, userHome, binary, cwd string) policy.Protection {
	p := policy.Protection{Home: userHome, Paths: policy.ProtectedPaths(client, hookctlHome, userHome, binary, cwd),
		Names: client.SettingsNames, FoldCase: FoldsCase(userHome, cwd)}
	if filepath.IsAbs(hookctlHome) {
		p.Uninstaller = filepath.Join(hookctlHome, policy.UninstallScript)
	}
	return p
}
