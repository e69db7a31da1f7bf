package editguard

// The edit guard (see doc.go): the git commands that discard work or rewrite a shared branch.

import (
	"path"
	"strings"

	"github.com/hookctl/hookctl/internal/clip"
	"github.com/hookctl/hookctl/programs"
	"github.com/hookctl/hookctl/route"
)

// gitRule: git commands that discard work or rewrite a shared branch.
//
// Why: a force push overwrites teammates' commits; reset --hard, clean -f, checkout/restore of
// files, branch -D, stash drop and clear throw away work that was never committed or never
// merged, and git has no undo for uncommitted changes; reflog expire, gc --prune=now and
// filter-branch destroy the means of getting it back.
// What: after git's global options (-C, -c, --git-dir, --work-tree, --namespace, --config-env
// and their = forms are skipped with their values), refused are: push with --force, -f in any
// cluster, or a +refspec, with or without a lease beside it (git ignores the lease then), and
// push --mirror (--force-with-lease and --force-if-includes alone are allowed); reset --hard
// and --merge (any unique prefix); clean with -f or --force (unless -n), or with none under
// -c clean.requireForce=false; checkout with -f, --pathspec-from-file, a whole-tree pathspec
// (., :/, *, a path that is the project or holds it), or named paths (after --, or after a
// tree-ish; the git-files family); restore of the work tree (not --staged alone); switch -f,
// --discard-changes; branch -D, --delete with --force, and -f moving a branch; stash drop and
// clear; worktree remove --force; reflog expire and delete; gc with --prune=… or
// -c gc.pruneExpire=…; prune (not -n); filter-branch and filter-repo. `-c alias.NAME=!cmd`
// is refused; `-c alias.NAME=cmd` is expanded when NAME is the subcommand. A subcommand that is
// not a literal is judged as each of the above. Each refusal names the safe form (git stash,
// --force-with-lease alone, git clean -n, git branch -d).
// Test: TestGit, TestGitPathspecs, TestPeerClasses.
var gitRule = &rule{
	names: []string{"git"},
	judge: judgeGit,
}

// gitGlobalValued are git's global options that take the next word as their value.
var gitGlobalValued = []string{"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env",
	"--super-prefix", "--attr-source", "--list-cmds", "--exec-path"}

func judgeGit(j *judge, c *invocation) *programs.Refusal {
	args := c.args
	aliases := map[string]string{}
	noRequireForce := false // -c clean.requireForce=false: git clean deletes without -f
	pruneNow := false       // -c gc.pruneExpire=…: gc deletes unreachable objects sooner
	var dirs []word         // -C: the directories pathspecs are read from
	var trees []word        // --work-tree: a pathspec may be read from there too (a dotfiles repository's $HOME)
	i := 0
global:
	for i < len(args) {
		a := args[i]
		v := a.s
		switch {
		case a.startsUnknown():
			break global
		case v == "-c" || strings.HasPrefix(v, "--config-env"):
			var cfg string
			if v == "-c" || v == "--config-env" {
				if i+1 >= len(args) {
					return nil
				}
				cfg = args[i+1].s
				i += 2
			} else {
				cfg = strings.TrimPrefix(v, "--config-env=")
				i++
			}
			key, val, _ := strings.Cut(cfg, "=")
			if (strings.EqualFold(key, "gc.pruneExpire") || strings.EqualFold(key, "gc.reflogExpire") || strings.EqualFold(key, "gc.reflogExpireUnreachable")) && val != "" {
				pruneNow = true
			}
			if strings.EqualFold(key, "clean.requireForce") {
				switch strings.ToLower(val) {
				case "false", "no", "off", "0":
					noRequireForce = true
				}
			}
			if name, ok := strings.CutPrefix(strings.ToLower(key), "alias."); ok {
				if strings.HasPrefix(val, "!") || v != "-c" || strings.Contains(cfg, unknown) {
					return refuse(c.prog, hintAsk, "`-c alias.%s=…` defines an alias that runs a shell command, which the edit guard cannot judge", clip.Short(name))
				}
				aliases[name] = val
			}
		case v == "-C" && i+1 < len(args):
			dirs = append(dirs, args[i+1])
			i += 2
		case v == "--work-tree" && i+1 < len(args):
			trees = append(trees, args[i+1])
			i += 2
		case strings.HasPrefix(v, "--work-tree="):
			w := a
			w.s = strings.TrimPrefix(v, "--work-tree=")
			trees = append(trees, w)
			i++
		case containsString(gitGlobalValued, v):
			i += 2
		case strings.HasPrefix(v, "-"):
			if v == "-h" || v == "--help" || v == "--version" {
				return nil
			}
			i++
		default:
			break global
		}
	}
	if i >= len(args) {
		return nil
	}
	sub := args[i]
	rest := args[i+1:]
	if al, ok := aliases[sub.s]; ok {
		var words []word
		for _, f := range strings.Fields(al) {
			words = append(words, lit(f))
		}
		if len(words) == 0 {
			return nil
		}
		sub, rest = words[0], append(words[1:], rest...)
	}
	if networkArgs("git", append([]word{sub}, rest...)) {
		return networkRefusal("git", "git "+sub.show())
	}
	if !sub.known() {
		for _, a := range rest {
			if route.LooksLikeURL(a.s) {
				return networkRefusal("git", "git "+sub.show()+" "+a.show())
			}
		}
	}
	if len(dirs) > 0 || len(trees) > 0 {
		st := c.st.clone()
		for _, d := range dirs {
			if paths, ok := j.resolve(d, st); ok {
				st.dirs = paths
			} else {
				st.dirs = nil
			}
		}
		for _, t := range trees {
			paths, ok := j.resolve(t, st)
			if !ok {
				st.dirs = nil
			} else if st.dirs != nil {
				st.dirs = append(append([]string(nil), st.dirs...), paths...)
			}
		}
		c = &invocation{prog: c.prog, args: c.args, st: st}
	}
	if noRequireForce || pruneNow {
		d := *c
		d.noRequireForce, d.pruneNow = noRequireForce, pruneNow
		c = &d
	}
	for _, s := range gitSubRules {
		if !sub.known() {
			if r := s.judge(j, c, rest); r != nil {
				return refuse(c.prog, r.Hint, "the subcommand `%s` is not a literal, and as `%s`: %s", sub.show(), s.name, r.What)
			}
		} else if s.name == sub.s {
			return s.judge(j, c, rest)
		}
	}
	return nil
}

// gitSubRules are the subcommands with a dangerous form.
var gitSubRules = []struct {
	name  string
	judge func(j *judge, c *invocation, args []word) *programs.Refusal
}{
	{"push", gitPush},
	{"reset", gitReset},
	{"clean", gitClean},
	{"checkout", gitCheckout},
	{"restore", gitRestore},
	{"branch", gitBranch},
	{"stash", gitStash},
	{"mv", gitMv},
	{"rm", gitRm},
	{"apply", gitApply},
	{"switch", gitSwitch},
	{"worktree", gitWorktree},
	{"reflog", gitReflog},
	{"gc", gitGC},
	{"prune", gitPrune},
	{"filter-branch", gitFilter},
	{"filter-repo", gitFilter},
}

func gitPush(j *judge, c *invocation, args []word) *programs.Refusal {
	p := (&optionSpec{valued: "o", long: []string{"--repo", "--receive-pack", "--exec", "--push-option"}}).parse(args)
	// A lease does not survive -f, --force or a +refspec beside it: git 2.39 forced the push with
	// stale lease info in every such spelling (tried on a local bare remote, issue 15), so a
	// lease makes only a push with no other force safe.
	for _, o := range p.opts {
		switch {
		case longIs(o.name, "--mirror", 4):
			return refuse("git", "push the branches you mean by name, or ask the user to run it",
				"`git push --mirror` makes the remote's refs match the local ones, deleting and overwriting the remote's branches")
		}
	}
	for _, o := range p.opts {
		if o.name == "-f" || longIs(o.name, "--force", 7) {
			return refuse("git", "use --force-with-lease alone (with -f or a +refspec beside it git ignores the lease), or ask the user to run it",
				"force push (`git push %s`) overwrites the remote branch and may destroy others' commits", o.name)
		}
	}
	for _, a := range p.operands {
		if strings.HasPrefix(a.s, "+") {
			return refuse("git", "push without the + and use --force-with-lease if needed, or ask the user to run it",
				"force push: the refspec `%s` overwrites the remote branch", a.show())
		}
	}
	return nil
}

// gitReset: --hard (git accepts any unique prefix, down to --h) and --merge (--me; --m is
// ambiguous with --mixed) overwrite the work tree's changes.
func gitReset(j *judge, c *invocation, args []word) *programs.Refusal {
	for _, a := range args {
		if a.s == "--" {
			break
		}
		if longIs(a.s, "--hard", 3) || longIs(a.s, "--merge", 4) {
			return refuse("git", "run `git stash` first (`git stash pop` brings the changes back), use `git reset --keep`, or ask the user to run it",
				"`git reset %s` discards uncommitted changes for good", a.show())
		}
	}
	return nil
}

func gitClean(j *judge, c *invocation, args []word) *programs.Refusal {
	p := (&optionSpec{valued: "e", long: []string{"--exclude"}}).parse(args)
	force, dry := c.noRequireForce, p.has("-n")
	for _, o := range p.opts {
		force = force || o.name == "-f" || longIs(o.name, "--force", 3)
		dry = dry || longIs(o.name, "--dry-run", 3)
	}
	if force && !dry {
		return refuse("git", "run `git clean -n` to list the files, then delete them by name or ask the user",
			"`git clean -f` deletes untracked files, which git cannot bring back")
	}
	return nil
}

const hintStash = "run `git stash` first to keep the changes (`git stash pop` brings them back), or ask the user to run it"

// gitCheckout: -f, and every form that writes paths: `git checkout [<tree-ish>] -- <paths>`,
// `--pathspec-from-file`, and `git checkout <tree-ish> <paths>` (more than one operand: git
// reads the first as the commit and the rest as paths). One operand without -- is a branch; with
// -b, -B, --orphan or --track git refuses to update paths ("Cannot update paths and switch to
// branch").
func gitCheckout(j *judge, c *invocation, args []word) *programs.Refusal {
	p := (&optionSpec{valued: "bBU", long: []string{"--orphan", "--conflict", "--pathspec-from-file", "--unified", "--inter-hunk-context"}}).parse(args)
	branching := false
	for _, o := range p.opts {
		switch {
		case o.name == "-f" || o.name == "--force":
			return refuse("git", hintStash, "`git checkout %s` discards uncommitted changes", o.name)
		case o.name == "--pathspec-from-file":
			return refuse("git", hintStash, "`git checkout --pathspec-from-file` overwrites the files it lists, discarding their uncommitted changes")
		case o.name == "-b" || o.name == "-B" || o.name == "--orphan" || o.name == "-t" || longIs(o.name, "--track", 4):
			branching = true
		}
	}
	for _, a := range p.operands {
		if j.wholeTree(a, c.st) {
			return refuse("git", hintStash, "`git checkout %s` discards every uncommitted change under it", a.show())
		}
	}
	paths := p.operands
	switch {
	case p.dashDash >= 0:
		paths = p.operands[p.dashDash:]
	case len(p.operands) > 1:
		paths = p.operands[1:]
	default:
		paths = nil
	}
	// A branch name is an operand too; one that names a protected path is not worth telling
	// apart from the path.
	for _, a := range p.operands {
		if r := j.pathspec("`git checkout`", a, c.st, true); r != nil {
			return r
		}
	}
	if len(paths) > 0 && !branching && j.on(familyGitFiles) {
		return refuse("git", hintStash, "`git checkout` of `%s` overwrites the file, discarding its uncommitted changes", paths[0].show())
	}
	return nil
}

// gitRestore: restoring the work tree (the default, or --worktree) overwrites the files named;
// --staged alone changes only the index.
func gitRestore(j *judge, c *invocation, args []word) *programs.Refusal {
	p := (&optionSpec{valued: "s", long: []string{"--source", "--conflict", "--pathspec-from-file"}}).parse(args)
	staged, worktree := p.has("-S"), p.has("-W")
	fromFile := false
	for _, o := range p.opts {
		staged = staged || longIs(o.name, "--staged", 4)
		worktree = worktree || longIs(o.name, "--worktree", 3)
		fromFile = fromFile || o.name == "--pathspec-from-file"
	}
	if staged && !worktree {
		return nil // only the index
	}
	for _, a := range p.operands {
		if j.wholeTree(a, c.st) {
			return refuse("git", hintStash, "`git restore %s` discards every uncommitted change under it", a.show())
		}
		if r := j.pathspec("`git restore`", a, c.st, true); r != nil {
			return r
		}
	}
	if (len(p.operands) > 0 || fromFile) && j.on(familyGitFiles) {
		what := "the files listed"
		if len(p.operands) > 0 {
			what = "`" + p.operands[0].show() + "`"
		}
		return refuse("git", hintStash+" (`git restore --staged` only unstages)", "`git restore` of %s overwrites the work tree, discarding uncommitted changes", what)
	}
	return nil
}

// gitSwitch: -f, --force and --discard-changes throw away the work tree's changes.
func gitSwitch(j *judge, c *invocation, args []word) *programs.Refusal {
	p := (&optionSpec{valued: "cC", long: []string{"--create", "--force-create", "--orphan", "--conflict"}}).parse(args)
	for _, o := range p.opts {
		if o.name == "-f" || longIs(o.name, "--force", 7) || longIs(o.name, "--discard-changes", 3) {
			return refuse("git", hintStash, "`git switch %s` discards uncommitted changes", o.name)
		}
	}
	return nil
}

// gitWorktree: `git worktree remove --force` deletes a work tree with uncommitted changes (git
// refuses without it).
func gitWorktree(j *judge, c *invocation, args []word) *programs.Refusal {
	if len(args) == 0 || args[0].s != "remove" {
		return nil
	}
	p := (&optionSpec{}).parse(args[1:])
	for _, o := range p.opts {
		if o.name == "-f" || longIs(o.name, "--force", 3) {
			return refuse("git", "commit or stash in that work tree first, then `git worktree remove` without --force; or ask the user",
				"`git worktree remove --force` deletes a work tree and its uncommitted changes")
		}
	}
	return nil
}

// gitReflog: expiring or deleting reflog entries removes what `git reflog` recovers lost commits
// from.
func gitReflog(j *judge, c *invocation, args []word) *programs.Refusal {
	if len(args) > 0 && (args[0].s == "expire" || args[0].s == "delete") {
		return refuse("git", hintAsk, "`git reflog %s` deletes the record git recovers lost commits from", args[0].s)
	}
	return nil
}

// gitFilter: filter-branch and filter-repo rewrite every commit of the branches they are given;
// the old history survives only in refs/original or a fresh clone.
func gitFilter(j *judge, c *invocation, args []word) *programs.Refusal {
	return refuse("git", "ask the user to run it (a history rewrite is theirs to decide)", "`git filter-branch`/`filter-repo` rewrites the repository's history")
}

// gitGC: --prune=now (any value but the default's two weeks) and `git prune` delete unreachable
// commits at once, which the reflog or fsck could otherwise still bring back.
func gitGC(j *judge, c *invocation, args []word) *programs.Refusal {
	if c.pruneNow {
		return refuse("git", "run `git gc` without -c gc.pruneExpire, or ask the user", "`git -c gc.pruneExpire=…` makes gc delete unreachable commits now, so lost work cannot be recovered")
	}
	for _, a := range args {
		name, v, ok := strings.Cut(a.s, "=")
		if ok && longIs(name, "--prune", 3) && v != "2.weeks.ago" {
			return refuse("git", "run `git gc` without --prune, or ask the user", "`git gc --prune=%s` deletes unreachable commits now, so lost work cannot be recovered", clip.Short(v))
		}
	}
	return nil
}

func gitPrune(j *judge, c *invocation, args []word) *programs.Refusal {
	for _, a := range args {
		if a.s == "-n" || a.s == "--dry-run" {
			return nil
		}
	}
	return refuse("git", "run `git prune -n` to list them, or ask the user", "`git prune` deletes unreachable objects, so lost work cannot be recovered")
}

// gitMv: git mv moves work-tree files, so both sides are written: each source, and the
// destination (joined with each source's name, when it is a directory).
func gitMv(j *judge, c *invocation, args []word) *programs.Refusal {
	p := (&optionSpec{}).parse(args)
	if len(p.operands) < 2 {
		return nil
	}
	dest, srcs := p.operands[len(p.operands)-1], p.operands[:len(p.operands)-1]
	if r := j.pathspec("`git mv`", dest, c.st, false); r != nil {
		return r
	}
	for _, s := range srcs {
		if r := j.pathspec("`git mv` (moving its source away)", s, c.st, true); r != nil {
			return r
		}
		if r := j.pathspec("`git mv`", joinName(dest, s, false), c.st, false); r != nil {
			return r
		}
	}
	return nil
}

// gitRm: git rm deletes work-tree files unless --cached; with -r a directory's.
func gitRm(j *judge, c *invocation, args []word) *programs.Refusal {
	p := (&optionSpec{long: []string{"--pathspec-from-file"}}).parse(args)
	recursive := p.has("-r")
	for _, o := range p.opts {
		if longIs(o.name, "--cached", 3) {
			return nil // the index only
		}
		recursive = recursive || longIs(o.name, "--recursive", 3)
	}
	for _, a := range p.operands {
		if r := j.pathspec("`git rm`", a, c.st, recursive); r != nil {
			return r
		}
	}
	return nil
}

// gitApply: git apply writes whatever files the patch names, which the command line does not
// show (content-opaque: TestKnownGaps), but only inside the work tree unless --unsafe-paths.
func gitApply(j *judge, c *invocation, args []word) *programs.Refusal {
	for _, a := range args {
		if a.s == "--unsafe-paths" {
			return refuse("git", hintAsk, "`git apply --unsafe-paths` writes files outside the work tree, where hookctl's and the shell's files are")
		}
	}
	return nil
}

// pathspec judges a git pathspec that git will write (checkout, restore, mv, rm) as a write of
// the paths it names (recursive: a directory's files too); magic prefixes (:/, :(top)) are read from the project, the repository's
// top as far as the guard knows; a glob, which git matches itself with * crossing /, is
// refused when it can match a protected file in the work tree.
//
// Why: `git checkout -- .claude/settings.json`, `git restore`, `git mv a .claude/settings.json`
// and `git rm` rewrote the project's settings in edit mode (issue 9).
// Test: TestGitPathspecs.
func (j *judge) pathspec(what string, a word, st *state, recursive bool) *programs.Refusal {
	v := a.s
	top := false
	switch {
	case strings.HasPrefix(v, ":("):
		k := strings.IndexByte(v, ')')
		if k < 0 {
			return nil
		}
		magic := v[2:k]
		top = strings.Contains(magic, "top")
		if strings.Contains(magic, "exclude") {
			return nil
		}
		v = v[k+1:]
	case strings.HasPrefix(v, ":/"):
		top, v = true, v[2:]
	case strings.HasPrefix(v, ":!") || strings.HasPrefix(v, ":^"):
		return nil // an exclusion writes nothing
	}
	if v == "" {
		return nil
	}
	w := a
	w.s = v
	if top {
		w.s = path.Join(j.project, v)
	}
	if strings.ContainsAny(v, "*?[") && w.known() {
		if q, ok := j.gitGlobProtected(w.s, st); ok {
			return refuse("git", hintProtected, "%s of the pathspec `%s`, which matches `%s`, writes a protected file (%s)", what, a.show(), clip.Short(q), protectedWhat)
		}
		return nil
	}
	return j.write("git", what, w, st, recursive)
}

// gitGlobProtected reports whether a git glob pathspec (relative to the directories st may be
// in, or absolute) can match a protected path: a listed one under that directory, or one of
// Context.Names under the pattern's literal directory or any directory below it.
func (j *judge) gitGlobProtected(pattern string, st *state) (string, bool) {
	var bases []string
	if path.IsAbs(pattern) {
		bases = []string{"/"}
		pattern = strings.TrimPrefix(pattern, "/")
	} else {
		bases = st.dirs
	}
	if bases == nil {
		bases = []string{j.project}
	}
	lit := pattern[:strings.IndexAny(pattern, "*?[")]
	for _, d := range bases {
		for _, q := range j.ctx.Protected {
			q = path.Clean(q)
			if d == "/" || within(q, d) && q != d {
				rel := strings.TrimPrefix(strings.TrimPrefix(q, d), "/")
				if gitMatch(pattern, rel) {
					return q, true
				}
			}
		}
	}
	for _, n := range j.ctx.Names {
		for _, cand := range []string{n, lit + n, lit + "x/" + n} {
			if gitMatch(pattern, cand) {
				return n, true
			}
		}
	}
	return "", false
}

// gitMatch is git's wildmatch without FNM_PATHNAME, as pathspecs use it: * and ** match any
// text, / included; ? one byte; [...] a class. It backtracks only to the last star, so it runs
// in time proportional to the product of the lengths, whatever the pattern.
func gitMatch(pat, s string) bool {
	p, i := 0, 0
	star, mark := -1, 0
	for i < len(s) {
		if p < len(pat) && pat[p] == '*' {
			star, mark = p, i
			p++
			continue
		}
		if p < len(pat) {
			if next, ok := matchOne(pat, p, s[i]); ok {
				p, i = next, i+1
				continue
			}
		}
		if star < 0 {
			return false
		}
		p, mark = star+1, mark+1
		i = mark
	}
	for p < len(pat) && pat[p] == '*' {
		p++
	}
	return p == len(pat)
}

// matchOne matches one pattern element at pat[p] (a byte, ?, or a [...] class) against c, and
// returns where the next element starts.
func matchOne(pat string, p int, c byte) (int, bool) {
	switch pat[p] {
	case '?':
		return p + 1, true
	case '[':
		k := strings.IndexByte(pat[p+1:], ']')
		if k < 0 {
			return 0, false
		}
		class := pat[p : p+k+2]
		if strings.HasPrefix(class, "[!") {
			class = "[^" + class[2:] // git negates with ! or ^, path.Match with ^
		}
		ok, err := path.Match(class, string(c))
		return p + k + 2, ok && err == nil
	}
	return p + 1, pat[p] == c
}

// wholeTree reports whether a pathspec covers the whole work tree, or at least the directory the
// command runs in: ., :/, *, a magic :(top) prefix, or a path that is the project or holds it.
func (j *judge) wholeTree(a word, st *state) bool {
	v := a.s
	if !a.known() {
		return false
	}
	if strings.HasPrefix(v, ":(") {
		if k := strings.IndexByte(v, ')'); k >= 0 {
			v = v[k+1:]
		}
	} else if strings.HasPrefix(v, ":/") {
		v = v[2:]
	}
	v = strings.TrimRight(v, "/")
	if v == "" || v == "." || v == "*" || v == "**" || v == "./*" || v == "./**" {
		return true
	}
	if paths, ok := j.resolve(lit(v), st); ok {
		for _, p := range paths {
			if k := j.classify(p); k == reachProject || k == reachParent {
				return true
			}
		}
	}
	return false
}

func gitBranch(j *judge, c *invocation, args []word) *programs.Refusal {
	p := (&optionSpec{valued: "u", long: []string{"--set-upstream-to", "--contains", "--no-contains", "--merged",
		"--no-merged", "--points-at", "--format", "--sort", "--color", "--column"}}).parse(args)
	del, force := false, false
	for _, o := range p.opts {
		if o.name == "-D" {
			del, force = true, true
		}
		del = del || o.name == "-d" || o.name == "--delete"
		force = force || o.name == "-f" || o.name == "--force"
	}
	if del && force {
		return refuse("git", "delete merged branches with `git branch -d`, or ask the user to run it",
			"`git branch -D` deletes a branch whether or not it is merged, and its commits with it")
	}
	if force && len(p.operands) > 0 {
		return refuse("git", "make a new branch (`git branch NEW START`), or ask the user to run it",
			"`git branch -f` moves an existing branch, and the commits only it held are then lost but for the reflog")
	}
	return nil
}

func gitStash(j *judge, c *invocation, args []word) *programs.Refusal {
	if len(args) == 0 {
		return nil
	}
	switch args[0].s {
	case "clear":
		return refuse("git", hintAsk, "`git stash clear` deletes every stash for good")
	case "drop":
		return refuse("git", "leave the stash (`git stash list` shows it), apply it with `git stash apply`, or ask the user to run it",
			"`git stash drop` deletes a stash, whose changes only git fsck can then find")
	}
	return nil
}
