package editguard

import (
	"fmt"
	"path"
	"strconv"
	"strings"

	"github.com/hookctl/hookctl/internal/clip"
	"github.com/hookctl/hookctl/lexer"
	"github.com/hookctl/hookctl/programs"

	"mvdan.cc/sh/v3/syntax"
)

// Context is what the edit-mode guard knows about the session. All paths are absolute and clean.
type Context struct {
	Project string // the session's working directory (the project)
	Home    string // the user's home directory
	// Protected lists files and directories the agent may never write: hookctl's config, state
	// and binary, .claude/settings*.json, the managed settings file, the registered readonly
	// command file, shell rc files.
	Protected []string
	// Names lists relative paths protected in every directory, matched on whole path elements
	// at the end of a path (or as a directory holding it): ".claude/settings.json" protects
	// every project's and subdirectory's settings without listing them.
	Names []string
	// FoldCase says the file systems the protected paths live on look names up without regard
	// to case (macOS APFS, a Windows volume): ~/.Claude/Settings.json is then the settings.
	FoldCase bool
	// Binary is hookctl's own executable, symbolic links resolved: running it by any name is
	// running hookctl, and copying it makes a hookctl no rule knows by name.
	Binary string
	// Uninstaller is hookctl's uninstall.sh, in hookctl's home: `hookctl uninstall` without the
	// binary.
	Uninstaller string
	// TempDir is $TMPDIR as the agent's shell will see it (the hook inherits the client's
	// environment, as the shell does), absolute and clean, or "" when it is not set: $TMPDIR
	// then cannot be resolved. A recursive delete strictly inside it, /tmp or /var/tmp runs.
	TempDir string
	// Sudo lists the commands the user's config lets run under sudo (hook.Config.Edit.Sudo):
	// each an argv prefix, such as {"apt-get", "install"}. A sudo whose command starts with
	// one runs, and its command is judged as if typed without sudo.
	Sudo [][]string
	// Allow names the rule families the user's config turns off (hook.Config.Edit.Allow):
	// see Families.
	Allow []string
}

// Limits. Every input is capped; beyond a cap the command is refused, never allowed.
const (
	// maxLen is the longest command judged. Longer than the read-only lexer's cap, because an
	// edit-mode command may carry a here-document.
	maxLen = lexer.MaxTreeLen
	// maxDepth bounds nested re-parses: eval inside sh -c inside find -exec, ….
	maxDepth = 8
	// maxNesting bounds nested compound commands and wrappers within one parse.
	maxNesting = 200
	// maxNodes bounds the statements, words and syntax nodes visited in all, so that function
	// bodies judged again at each call and loops judged per word stay linear-ish.
	maxNodes = 400_000
	// maxParsed bounds the bytes parsed in all, counting every re-parse.
	maxParsed = 4 * maxLen
	// maxBraces bounds the words one word may expand to (brace expansion).
	maxBraces = 1024
	// maxFields bounds the words one command may expand to.
	maxFields = 16 << 10
	// maxVars bounds the variables tracked; beyond it new ones are unknown, so that merging
	// states stays cheap.
	maxVars = 64
	// maxDirs bounds the working directories tracked at once; beyond it the directory is
	// unknown.
	maxDirs = 8
	// maxLoopWords is the longest literal word list a for loop is judged for word by word;
	// a longer or non-literal list makes the loop variable unknown.
	maxLoopWords = 8
)

// unknown stands, in an expanded word, for text that cannot be known without running the
// command: a substitution, an unset variable, a positional parameter.
const unknown = "\x00"

// tempPath is the value of a variable assigned the output of mktemp: a fresh path that a
// recursive rm may delete.
const tempPath = "\x01"

// Hints.
const (
	hintAsk       = "ask the user to run it"
	hintRm        = "delete paths inside the project or the temporary directory by name (rm -rf ./build, rm -rf /tmp/build), or ask the user to run it"
	hintProtected = "this file is the user's to change: ask the user to make the change"
	hintLiteral   = "write the command out literally"
)

// Judge returns nil if the shell command may run in edit mode, or a *programs.Refusal (Program = the
// program found, What = what was refused and why, Hint = what to do instead).
//
// Test: TestRm, TestGit, TestPrivilegeAndDisk, TestDownloadExec, TestForkBomb,
// TestProtectedWrites, TestHookctlAndClaude, TestRecursion, TestWrappers, TestMultiplexers,
// TestNetwork, TestSelfProtection, TestInterpreterCode, TestEnvironment, TestKnownGaps,
// TestReadersAgree, TestLimits, TestTermination, TestCorpus, FuzzJudgeEdit.
func Judge(cl *lexer.CommandLine, ctx *Context) (ref *programs.Refusal) {
	defer func() {
		if recover() != nil {
			ref = &programs.Refusal{What: "the edit guard failed on this command (internal error), so it is refused", Hint: hintAsk}
		}
	}()
	if ctx == nil || !path.IsAbs(ctx.Project) {
		return &programs.Refusal{What: "the edit guard has no project directory", Hint: hintAsk}
	}
	if len(cl.Src) > maxLen {
		return &programs.Refusal{What: "the command is too long to judge (more than " + strconv.Itoa(maxLen>>10) + " KiB)",
			Hint: "write long file contents with the Write tool"}
	}
	j := &judge{ctx: ctx, project: path.Clean(ctx.Project)}
	st := &state{dirs: []string{j.project}}
	st.set("HOME", path.Clean(ctx.Home), ctx.Home != "")
	st.set("TMPDIR", ctx.TempDir, path.IsAbs(ctx.TempDir))
	f, err := cl.Tree()
	if err != nil {
		return parseRefusal("bash", err)
	}
	j.parsed += len(cl.Src)
	if r := j.judgeFile(f, cl.Src, st); r != nil {
		return r
	}
	return j.movedHomeRefusal()
}

// ProtectedPath reports whether writing path (absolute, or relative to ctx.Project) would write a
// protected file: it is one of ctx.Protected or inside a protected directory, or it ends in one
// of ctx.Names (or lies inside one), after lexical cleaning (no file-system access: the policy
// does no I/O; the hook resolves a file tool's links before it asks). Comparison is byte for
// byte, as on Linux, unless ctx.FoldCase. Used for Write/Edit tool calls too.
//
// Test: TestProtectedPath.
func ProtectedPath(p string, ctx *Context) bool {
	if ctx == nil {
		return false
	}
	if !path.IsAbs(p) {
		p = path.Join(ctx.Project, p)
	}
	p = path.Clean(p)
	if ctx.FoldCase {
		p = fold(p)
	}
	for _, q := range ctx.Protected {
		if q == "" {
			continue
		}
		q = path.Clean(q)
		if ctx.FoldCase {
			q = fold(q)
		}
		if within(p, q) {
			return true
		}
	}
	for _, n := range ctx.Names {
		if ctx.FoldCase {
			n = fold(n)
		}
		if n != "" && endsIn(p, n) {
			return true
		}
	}
	return false
}

// fold maps s to one case, the way case-insensitive file systems compare names: upper then
// lower, so that the Kelvin sign is k and the long s is s.
func fold(s string) string { return strings.ToLower(strings.ToUpper(s)) }

// endsIn reports whether some directory d makes p equal to d/name or puts p inside d/name.
func endsIn(p, name string) bool {
	for i := range indexes(p, "/"+name) {
		if end := i + 1 + len(name); end == len(p) || p[end] == '/' {
			return true
		}
	}
	return false
}

// within reports whether p is dir or inside it. Both are absolute and clean.
func within(p, dir string) bool {
	if p == dir || dir == "/" {
		return true
	}
	return strings.HasPrefix(p, dir) && p[len(dir)] == '/'
}

// holdsProtected reports whether a recursive write of dir would reach a protected path: dir is
// protected, inside a protected directory, or holds a protected path.
func (j *judge) holdsProtected(dir string) bool {
	for _, q := range j.ctx.Protected {
		if q == "" {
			continue
		}
		q = path.Clean(q)
		if within(q, dir) || within(dir, q) {
			return true
		}
	}
	return false
}

// ---------------------------------------------------------------------------------------------
// The judge and its state.

type judge struct {
	ctx     *Context
	project string
	nodes   int // statements, words and syntax nodes visited
	parsed  int // bytes parsed, re-parses included
	depth   int // nested re-parses
	nesting int // nested compound commands and wrappers
	// overflow latches the first limit hit while expanding words, where no refusal can be
	// returned directly.
	overflow *programs.Refusal
	parseErr error // why the last parse failed
	// input is the text on standard input of the command being judged, where the text fixes
	// it (a here-document, a here-string, an echo piped in); nil when it cannot be known.
	input *string
	// runsGuard is set when the command runs hookctl or claude anywhere; movedHome names the
	// first of HOME, XDG_CONFIG_HOME and CLAUDE_CONFIG_DIR it assigns (envRule).
	// ifsChanged is set once the script assigns IFS: an unquoted expansion in a later command
	// then splits where the guard cannot follow.
	ifsChanged bool
	runsGuard  bool
	movedHome  string
	spellings  []string // protectedSpellings, once
	funcs      map[string]*function
	active     map[string]bool // functions being judged at a call site
}

// function is a function defined in the script.
type function struct {
	body       *syntax.Stmt
	dirs       []string // working directories when it was defined and judged
	changesDir bool     // its body runs cd, pushd or popd
}

// state is what is known at one point of the script.
type state struct {
	// dirs are the directories the command may run in; nil means unknown. More than one when a
	// cd may or may not have happened (`cd x; …` where the cd may fail).
	dirs []string
	// vars are the variables known to hold a literal value. A variable not listed is unknown.
	vars []variable
}

type variable struct{ name, value string }

func (st *state) clone() *state {
	c := &state{}
	if st.dirs != nil {
		c.dirs = append(make([]string, 0, len(st.dirs)), st.dirs...)
	}
	c.vars = append([]variable(nil), st.vars...)
	return c
}

// child is the state a new shell process starts with: the same directory, and of the variables
// only HOME and TMPDIR, which the environment exports (the others may not be exported).
func (st *state) child() *state {
	c := &state{}
	if st.dirs != nil {
		c.dirs = append([]string(nil), st.dirs...)
	}
	for _, name := range [...]string{"HOME", "TMPDIR"} {
		if v, ok := st.get(name); ok {
			c.set(name, v, true)
		}
	}
	return c
}

func (st *state) get(name string) (string, bool) {
	for i := len(st.vars) - 1; i >= 0; i-- {
		if st.vars[i].name == name {
			return st.vars[i].value, true
		}
	}
	if name == "PWD" && len(st.dirs) == 1 {
		return st.dirs[0], true
	}
	return "", false
}

// set records a variable's value, or forgets it when the value is not known. A value longer than
// a command is forgotten too, so that x=$x$x cannot grow without bound.
func (st *state) set(name, value string, known bool) {
	known = known && len(value) <= maxLen
	for i := range st.vars {
		if st.vars[i].name == name {
			if known {
				st.vars[i].value = value
			} else {
				st.vars = append(st.vars[:i], st.vars[i+1:]...)
			}
			return
		}
	}
	if known && len(st.vars) < maxVars {
		st.vars = append(st.vars, variable{name, value})
	}
}

// merge makes st what is known after either st or o: the union of the directories, and the
// variables both agree on.
func (st *state) merge(o *state) {
	st.mergeDirs(o.dirs)
	kept := st.vars[:0]
	for _, v := range st.vars {
		if ov, ok := o.get(v.name); ok && ov == v.value {
			kept = append(kept, v)
		}
	}
	st.vars = kept
}

func (st *state) mergeDirs(dirs []string) {
	if st.dirs == nil || dirs == nil {
		st.dirs = nil
		return
	}
	for _, d := range dirs {
		if !containsString(st.dirs, d) {
			st.dirs = append(st.dirs, d)
		}
	}
	if len(st.dirs) > maxDirs {
		st.dirs = nil
	}
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func sameDirs(a, b []string) bool {
	if (a == nil) != (b == nil) || len(a) != len(b) {
		return false
	}
	for _, d := range a {
		if !containsString(b, d) {
			return false
		}
	}
	return true
}

func refuse(prog, hint, format string, args ...any) *programs.Refusal {
	return &programs.Refusal{Program: prog, What: fmt.Sprintf(format, args...), Hint: hint}
}

// enter counts one node and one level of nesting; leave undoes the nesting.
func (j *judge) enter() *programs.Refusal {
	j.nesting++
	if j.nesting > maxNesting {
		return &programs.Refusal{What: "the command is too deeply nested to judge", Hint: hintAsk}
	}
	return j.tick(1)
}

func (j *judge) leave() { j.nesting-- }

func (j *judge) tick(n int) *programs.Refusal {
	j.nodes += n
	if j.nodes > maxNodes {
		return &programs.Refusal{What: "the command is too complex to judge", Hint: hintAsk}
	}
	return j.overflow
}

// script parses src and judges it in st. Every re-parse (eval, sh -c, …) comes through here.
func (j *judge) script(src string, st *state, lang syntax.LangVariant) *programs.Refusal {
	f, r := j.parse(src, lang)
	if r != nil {
		return r
	}
	if f == nil {
		return parseRefusal(lang.String(), j.parseErr)
	}
	return j.judgeFile(f, src, st)
}

// parseRefusal is the refusal of a command the guard could not parse: not a judgement that it
// is dangerous, which the message says, so that the agent fixes the command rather than asking
// the user to run something harmless.
//
// Test: TestUnparseable.
func parseRefusal(lang string, err error) *programs.Refusal {
	return &programs.Refusal{What: "could not parse the command as " + lang + " (" + clip.Short(err.Error()) +
		"), so the edit guard could not check it; nothing in it was found dangerous",
		Hint: "fix the quoting (bash would not run it as written either), or split it into simpler commands"}
}

// scriptIfParses is script for text that may not be shell code at all (a reading a wrapper may
// not take, keys typed into a terminal): text that does not parse runs nothing and is allowed.
func (j *judge) scriptIfParses(src string, st *state, lang syntax.LangVariant) *programs.Refusal {
	f, r := j.parse(src, lang)
	if r != nil || f == nil {
		return r
	}
	return j.judgeFile(f, src, st)
}

// parse parses src within the limits: a refusal at a limit, or a nil tree (and j.parseErr)
// when src does not parse.
func (j *judge) parse(src string, lang syntax.LangVariant) (*syntax.File, *programs.Refusal) {
	if j.depth >= maxDepth {
		return nil, &programs.Refusal{What: "the command nests eval, sh -c and wrappers too deeply to judge", Hint: hintAsk}
	}
	j.parsed += len(src)
	if j.parsed > maxParsed {
		return nil, &programs.Refusal{What: "the command is too complex to judge", Hint: hintAsk}
	}
	f, err := syntax.NewParser(syntax.Variant(lang)).Parse(strings.NewReader(src), "")
	if err != nil {
		j.parseErr = err
		return nil, nil
	}
	return f, nil
}

// judgeFile judges a parsed script; src is its text.
func (j *judge) judgeFile(f *syntax.File, src string, st *state) *programs.Refusal {
	if mayAssign(src) {
		if r := j.treeVariables(f); r != nil {
			return r
		}
	}
	j.depth++
	defer func() { j.depth-- }()
	return j.stmts(f.Stmts, st)
}
