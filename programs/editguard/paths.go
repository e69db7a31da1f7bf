package editguard

// The edit guard (see doc.go): paths.

import (
	"iter"
	"path"
	"strings"

	"github.com/hookctl/hookctl/internal/clip"
	"github.com/hookctl/hookctl/programs"
)

// reach is how far a path reaches, for a recursive delete or permission change.
type reach uint8

const (
	reachInside  reach = iota // strictly inside the project
	reachGitDir               // the project's .git
	reachAll                  // a glob matching every entry of the project
	reachProject              // the project itself
	reachParent               // a directory holding the project
	reachOutside              // anywhere else
	reachUnknown              // cannot be resolved
)

var reachWords = [...]string{
	reachInside:  "is inside the project",
	reachGitDir:  "is the project's git history",
	reachAll:     "matches everything in the project",
	reachProject: "is the project itself",
	reachParent:  "is a directory that holds the project",
	reachOutside: "is outside the project",
	reachUnknown: "cannot be resolved (a variable, a substitution or an unknown directory), so it may be outside the project",
}

// resolve returns the absolute, clean paths a word may name, one for each possible working
// directory, or false when it cannot be known.
func (j *judge) resolve(w word, st *state) ([]string, bool) {
	if !w.known() {
		return nil, false
	}
	if path.IsAbs(w.s) {
		return []string{path.Clean(w.s)}, true
	}
	if st.dirs == nil {
		return nil, false
	}
	out := make([]string, 0, len(st.dirs))
	for _, d := range st.dirs {
		out = append(out, path.Join(d, w.s))
	}
	return out, true
}

// reach classifies the worst place a word may name.
func (j *judge) howFar(w word, st *state) reach {
	if w.inside || w.s == tempPath {
		return reachInside
	}
	paths, ok := j.resolve(w, st)
	if !ok {
		return reachUnknown
	}
	worst := reachInside
	for _, p := range paths {
		var k reach
		if w.glob >= 0 {
			k = j.classifyGlob(p)
		} else {
			k = j.classify(p)
		}
		if k > worst {
			worst = k
		}
	}
	return worst
}

func (j *judge) classify(p string) reach {
	switch {
	case p == j.project:
		return reachProject
	case p == path.Join(j.project, ".git") || j.gitHistory(p):
		return reachGitDir
	case within(p, j.project):
		return reachInside
	case within(j.project, p):
		return reachParent
	case j.inTemp(p):
		return reachInside
	}
	return reachOutside
}

// systemTemp are the temporary directories every Unix has; Context.TempDir adds $TMPDIR.
var systemTemp = [...]string{"/tmp", "/var/tmp", "/private/tmp", "/private/var/tmp"}

// inTemp reports whether p is strictly inside a temporary directory: what is there is scratch,
// made by this or another session, and deleting it loses no one's work. The directory itself is
// not: it holds other programs' sockets and locks.
//
// Test: TestTempDir.
func (j *judge) inTemp(p string) bool {
	for _, t := range systemTemp {
		if p != t && within(p, t) {
			return true
		}
	}
	t := j.ctx.TempDir
	return path.IsAbs(t) && t != "/" && p != path.Clean(t) && within(p, path.Clean(t))
}

// isTemp reports whether dir is a temporary directory itself.
func (j *judge) isTemp(dir string) bool {
	for _, t := range systemTemp {
		if dir == t {
			return true
		}
	}
	return path.IsAbs(j.ctx.TempDir) && dir == path.Clean(j.ctx.TempDir) && dir != "/"
}

// gitHistory reports whether p is in the part of the project's .git that holds its history and
// the means to recover it: the objects, the refs and the reflogs (.git/rebase-merge, a lock
// file or a hook may be deleted).
func (j *judge) gitHistory(p string) bool {
	for _, d := range [...]string{"objects", "refs", "logs", "packed-refs", "HEAD", "worktrees"} {
		if within(p, path.Join(j.project, ".git", d)) {
			return true
		}
	}
	return false
}

// classifyGlob classifies a cleaned pattern by the directory before its first glob element:
// the pattern can match anything in it.
func (j *judge) classifyGlob(p string) reach {
	elems := strings.Split(p, "/")
	i := 0
	for i < len(elems) && !strings.ContainsAny(elems[i], "*?[") {
		i++
	}
	if i == len(elems) {
		return j.classify(p)
	}
	dir := strings.Join(elems[:i], "/")
	if dir == "" {
		dir = "/"
	}
	if j.isTemp(dir) && (i < len(elems)-1 || !matchesEverything(elems[i])) {
		return reachInside // /tmp/build-*: scratch, but not every entry of the temporary directory
	}
	switch k := j.classify(dir); k {
	case reachInside:
		return reachInside
	case reachProject:
		if i == len(elems)-1 {
			if matchesEverything(elems[i]) {
				return reachAll
			}
			if ok, _ := path.Match(elems[i], ".git"); ok {
				return reachGitDir
			}
		}
		return reachInside
	case reachGitDir:
		if j.gitHistory(dir) {
			return reachGitDir
		}
		if i == len(elems)-1 {
			for _, d := range [...]string{"objects", "refs", "logs"} {
				if ok, _ := path.Match(elems[i], d); ok {
					return reachGitDir
				}
			}
		}
		return reachInside // inside .git, not its history
	default:
		return reachOutside // a glob in or above a directory outside the project
	}
}

// matchesEverything reports whether a glob element has no literal text but dots: *, .*, *.*, ?*,
// [a-z]*.
func matchesEverything(elem string) bool {
	var b strings.Builder
	for i := 0; i < len(elem); i++ {
		if elem[i] == '[' {
			if k := strings.IndexByte(elem[i+1:], ']'); k >= 0 {
				b.WriteByte('?')
				i += k + 1
				continue
			}
		}
		b.WriteByte(elem[i])
	}
	return strings.Trim(b.String(), "*?.") == ""
}

// write judges a write to w by prog (what: how it is written): protected paths and devices.
// recursive marks a write that may reach inside w (cp -r into it, rm -r of it).
//
// An unresolvable target is allowed unless its known text names a protected file (a protected
// path's base name, such as settings.json or .bashrc, as a whole path element), or its known
// directory is protected or directly holds a protected file (`"$HOME/$x"`, `~/.claude/$f`).
func (j *judge) write(prog, what string, w word, st *state, recursive bool) *programs.Refusal {
	return j.reach(prog, what, "writes", w, st, recursive)
}

// linkTo judges a link made to w (verb: how it is reached) as a write of w and, when recursive,
// of what it holds: a write through the link lands there (issue 9).
func (j *judge) linkTo(prog, what string, w word, st *state) *programs.Refusal {
	return j.reach(prog, what, "links to", w, st, true)
}

func (j *judge) reach(prog, what, verb string, w word, st *state, recursive bool) *programs.Refusal {
	if w.inside {
		if w.mayProtect {
			return refuse(prog, hintProtected, "%s may write a protected file: find's starting points hold one and its tests do not rule it out", what)
		}
		return nil
	}
	if w.s == tempPath {
		return nil
	}
	if paths, ok := j.resolve(w, st); ok {
		for _, p := range paths {
			if w.glob >= 0 {
				if q, hit := j.globProtected(p, recursive); hit {
					return refuse(prog, hintProtected, "%s %s `%s`, which matches `%s`, and that is protected (%s)", what, verb, w.show(), clip.Short(q), protectedWhat)
				}
			} else if ProtectedPath(p, j.ctx) || (recursive && j.holdsProtected(p)) {
				return refuse(prog, hintProtected, "%s %s `%s`, which is protected (%s)", what, verb, w.show(), protectedWhat)
			}
			if deviceWrite(p) {
				return refuse(prog, hintAsk, "%s writes the device `%s`, which can destroy a disk", what, w.show())
			}
			if j.gitHistory(p) {
				return refuse(prog, "let git change its own history (git commands), or ask the user", "%s %s `%s`, in the project's git history (.git/objects, refs, logs)", what, verb, w.show())
			}
			if kernelControl(p) {
				return refuse(prog, hintAsk, "%s writes `%s`, a kernel control file (it can reboot the machine or change the running system)", what, w.show())
			}
			if c := j.credentialFile(p); c != "" && j.on(familyCredentials) {
				return refuse(prog, "credential files are the user's to change: ask the user", "%s %s `%s`, the user's credentials (%s)", what, verb, w.show(), c)
			}
		}
		return nil
	}
	if j.mayBeProtected(w, st) {
		return refuse(prog, hintProtected, "%s %s `%s`, which cannot be resolved and may be protected (%s)", what, verb, w.show(), protectedWhat)
	}
	if deviceWrite(strings.NewReplacer(unknown, "x", tempPath, "x").Replace(w.s)) {
		return refuse(prog, hintAsk, "%s writes `%s`, which cannot be resolved and may be a disk device", what, w.show())
	}
	return nil
}

// kernelControl reports whether p is one of the files through which a write changes the
// running kernel: /proc/sysrq-trigger (reboot, crash), /proc/sys/…, and sysfs.
func kernelControl(p string) bool {
	return p == "/proc/sysrq-trigger" || within(p, "/proc/sys") || within(p, "/sys")
}

// credentials are files and directories, relative to the home directory, that hold the user's
// credentials or decide who may log in: a write there leaks, replaces or plants a key.
var credentials = [...]string{".ssh", ".git-credentials", ".netrc", ".aws/credentials", ".aws/config",
	".docker/config.json", ".kube/config", ".gnupg", ".npmrc", ".pypirc", ".config/gh/hosts.yml",
	".config/gcloud", ".azure", ".password-store"}

// credentialFile returns the credential file p is or lies in, or "".
//
// Test: TestPeerClasses (credentials).
func (j *judge) credentialFile(p string) string {
	if j.ctx.Home == "" {
		return ""
	}
	for _, c := range credentials {
		if within(p, path.Join(j.ctx.Home, c)) {
			return "~/" + c
		}
	}
	return ""
}

const protectedWhat = "hookctl's configuration, state or binary, Claude Code's settings, or a shell start-up file"

// globProtected reports whether a pattern matches a protected path, or, for a recursive write,
// a directory holding one.
func (j *judge) globProtected(pattern string, recursive bool) (string, bool) {
	for _, n := range j.ctx.Names {
		// The pattern's last elements against the name's: */.claude/settings.json.
		k := strings.Count(n, "/") + 1
		elems := strings.Split(pattern, "/")
		if len(elems) > k {
			if ok, err := path.Match(strings.Join(elems[len(elems)-k:], "/"), n); ok || err != nil {
				return n, true
			}
		}
	}
	for _, q := range j.ctx.Protected {
		if q == "" {
			continue
		}
		q = path.Clean(q)
		for p := q; ; p = path.Dir(p) {
			if ok, err := path.Match(pattern, p); ok || err != nil {
				return q, true
			}
			if !recursive || p == "/" {
				break
			}
		}
		// A pattern naming a directory inside a protected one.
		for dir := path.Dir(pattern); ; dir = path.Dir(dir) {
			if !strings.ContainsAny(dir, "*?[") && within(dir, q) {
				return q, true
			}
			if dir == "/" || dir == "." {
				break
			}
		}
	}
	return "", false
}

func (j *judge) mayBeProtected(w word, st *state) bool {
	s := strings.ReplaceAll(w.s, tempPath, unknown)
	for _, q := range j.ctx.Protected {
		if q == "" {
			continue
		}
		if mentions(s, path.Base(path.Clean(q))) {
			return true
		}
	}
	i := strings.Index(s, unknown)
	if i <= 0 {
		return false // begins with an unknown: could be anywhere
	}
	dir := "."
	if k := strings.LastIndexByte(s[:i], '/'); k >= 0 {
		dir = s[:k]
		if dir == "" {
			dir = "/"
		}
	}
	paths, ok := j.resolve(lit(dir), st)
	if !ok {
		return false
	}
	for _, d := range paths {
		if ProtectedPath(d, j.ctx) {
			return true
		}
		for _, q := range j.ctx.Protected {
			if q != "" && path.Dir(path.Clean(q)) == d {
				return true
			}
		}
	}
	return false
}

// mentions reports whether name appears in s as a whole path element, where the unknown marker
// also counts as a boundary.
func mentions(s, name string) bool {
	if name == "" || name == "/" || name == "." {
		return false
	}
	for i := range indexes(s, name) {
		end := i + len(name)
		before := i == 0 || s[i-1] == '/' || s[i-1] == 0
		after := end == len(s) || s[end] == '/' || s[end] == 0
		if before && after {
			return true
		}
	}
	return false
}

// indexes yields the offset of every occurrence of sub in s, overlapping ones included.
func indexes(s, sub string) iter.Seq[int] {
	return func(yield func(int) bool) {
		for off := 0; off <= len(s); {
			i := strings.Index(s[off:], sub)
			if i < 0 || !yield(off+i) {
				return
			}
			off += i + 1
		}
	}
}

// deviceWrite reports whether writing p writes a device that holds data: a disk, a partition,
// memory. The character devices programs write as a matter of course are not.
func deviceWrite(p string) bool {
	if !strings.HasPrefix(p, "/dev/") {
		return false
	}
	switch p {
	case "/dev/null", "/dev/zero", "/dev/full", "/dev/stdout", "/dev/stderr", "/dev/stdin",
		"/dev/tty", "/dev/random", "/dev/urandom", "/dev/ptmx", "/dev/console":
		return false
	}
	for _, ok := range []string{"/dev/fd/", "/dev/shm/", "/dev/pts/", "/dev/mqueue/", "/dev/tty"} {
		if strings.HasPrefix(p, ok) {
			return false
		}
	}
	return true
}
