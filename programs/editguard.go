package programs

// Edit mode: the accident guard.
//
// In edit mode the agent writes files and runs builds, tests and most other commands. The edit
// guard refuses a short exclude list of commands that destroy work or cannot be undone: a
// recursive rm that reaches outside the project, force pushes and the git commands that discard
// uncommitted work, privilege escalation, disk formatting, a download piped into a shell, fork
// bombs, writes to the files that configure hookctl, Claude Code and the user's shell, and the
// hookctl and claude invocations that would switch the guard off.
//
// Threat model: this is an ACCIDENT GUARD, NOT A SECURITY BOUNDARY. It catches the command typed
// in haste or hallucinated, and names the rule so that the agent can ask the user instead. An
// agent that means harm has many ways round it that are out of scope here: a script it wrote and
// then runs, a Python or Node one-liner, a Makefile or package.json script, a git alias or hook
// in the repository's own config, a symbolic link that makes a path inside the project point
// outside it, `go run` of a program that does the same thing.
//
// How a command is judged: it is parsed as bash by mvdan.cc/sh (a command that does not parse is
// refused), and every command the script can run is judged, in order, with what is known at that
// point: the working directory (literal `cd DIR` is followed; after a cd that cannot be resolved
// the directory is unknown), and the variables assigned literal values earlier in the script.
// Commands inside $(…), backticks, <(…), >(…), eval and `sh -c` strings, function bodies,
// and the commands that wrappers (env, nice, timeout, xargs, find -exec, …) run are judged too.
// Nothing is opened or run: the judgement is a pure function of the text and the EditContext.
//
// What "outside the project" means: the path, cleaned lexically after resolving `~`, `$HOME` and
// the working directory, is not strictly inside EditContext.Project. The project itself, and the
// directories that hold it, count as outside for a recursive delete.

import (
	"path"
	"strconv"
	"strings"

	"github.com/hookctl/hookctl/internal/clip"
	"github.com/hookctl/hookctl/lexer"

	"mvdan.cc/sh/v3/syntax"
)

// EditContext is what the edit-mode guard knows about the session. All paths are absolute and clean.
type EditContext struct {
	Project string // the session's working directory (the project)
	Home    string // the user's home directory
	// Protected lists files and directories the agent may never write: hookctl's config, state
	// and binary, .claude/settings*.json, the managed settings file, the registered readonly
	// command file, shell rc files.
	Protected []string
}

// Limits. Every input is capped; beyond a cap the command is refused, never allowed.
const (
	// maxEditLen is the longest command judged. Longer than the read-only lexer's cap, because an
	// edit-mode command may carry a here-document.
	maxEditLen = lexer.MaxTreeLen
	// maxEditDepth bounds nested re-parses: eval inside sh -c inside find -exec, ….
	maxEditDepth = 8
	// maxEditNesting bounds nested compound commands and wrappers within one parse.
	maxEditNesting = 200
	// maxEditNodes bounds the statements, words and syntax nodes visited in all, so that function
	// bodies judged again at each call and loops judged per word stay linear-ish.
	maxEditNodes = 400_000
	// maxEditParsed bounds the bytes parsed in all, counting every re-parse.
	maxEditParsed = 4 * maxEditLen
	// maxEditBraces bounds the words one word may expand to (brace expansion).
	maxEditBraces = 1024
	// maxEditFields bounds the words one command may expand to.
	maxEditFields = 16 << 10
	// maxEditVars bounds the variables tracked; beyond it new ones are unknown, so that merging
	// states stays cheap.
	maxEditVars = 64
	// maxEditDirs bounds the working directories tracked at once; beyond it the directory is
	// unknown.
	maxEditDirs = 8
	// maxEditLoopWords is the longest literal word list a for loop is judged for word by word;
	// a longer or non-literal list makes the loop variable unknown.
	maxEditLoopWords = 8
)

// editUnknown stands, in an expanded word, for text that cannot be known without running the
// command: a substitution, an unset variable, a positional parameter.
const editUnknown = "\x00"

// editTemp is the value of a variable assigned the output of mktemp: a fresh path that a
// recursive rm may delete.
const editTemp = "\x01"

// Hints.
const (
	editHintAsk       = "ask the user to run it"
	editHintRm        = "delete paths inside the project by name, or ask the user to run it"
	editHintProtected = "this file is the user's to change: ask the user to make the change"
	editHintLiteral   = "write the command out literally"
)

// JudgeEdit returns nil if the shell command may run in edit mode, or a *Refusal (Program = the
// program found, What = what was refused and why, Hint = what to do instead).
//
// Test: TestEditRm, TestEditGit, TestEditPrivilegeAndDisk, TestEditDownloadExec,
// TestEditForkBomb, TestEditProtectedWrites, TestEditHookctlAndClaude, TestEditRecursion,
// TestEditLimits, TestEditTermination, TestEditCorpus, FuzzJudgeEdit.
func JudgeEdit(cl *lexer.CommandLine, ctx *EditContext) (ref *Refusal) {
	defer func() {
		if recover() != nil {
			ref = &Refusal{What: "the edit guard failed on this command (internal error), so it is refused", Hint: editHintAsk}
		}
	}()
	if ctx == nil || !path.IsAbs(ctx.Project) {
		return &Refusal{What: "the edit guard has no project directory", Hint: editHintAsk}
	}
	if len(cl.Src) > maxEditLen {
		return &Refusal{What: "the command is too long to judge (more than " + strconv.Itoa(maxEditLen>>10) + " KiB)",
			Hint: "write long file contents with the Write tool"}
	}
	j := &editJudge{ctx: ctx, project: path.Clean(ctx.Project)}
	st := &editState{dirs: []string{j.project}}
	st.set("HOME", path.Clean(ctx.Home), ctx.Home != "")
	f, err := cl.Tree()
	if err != nil {
		return &Refusal{What: "the command does not parse as bash: " + clip.Short(err.Error()), Hint: "fix the quoting"}
	}
	j.parsed += len(cl.Src)
	j.depth++
	return j.stmts(f.Stmts, st)
}

// ProtectedPath reports whether writing path (absolute, or relative to ctx.Project) would write a
// protected file: it is one of ctx.Protected or inside a protected directory, after lexical
// cleaning (no file-system access: the policy does no I/O). Comparison is byte for byte, as on
// Linux. Used for Write/Edit tool calls too.
//
// Test: TestProtectedPath.
func ProtectedPath(p string, ctx *EditContext) bool {
	if ctx == nil {
		return false
	}
	if !path.IsAbs(p) {
		p = path.Join(ctx.Project, p)
	}
	p = path.Clean(p)
	for _, q := range ctx.Protected {
		if q != "" && within(p, path.Clean(q)) {
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
func (j *editJudge) holdsProtected(dir string) bool {
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

type editJudge struct {
	ctx     *EditContext
	project string
	nodes   int // statements, words and syntax nodes visited
	parsed  int // bytes parsed, re-parses included
	depth   int // nested re-parses
	nesting int // nested compound commands and wrappers
	// overflow latches the first limit hit while expanding words, where no refusal can be
	// returned directly.
	overflow *Refusal
	funcs    map[string]*editFunc
	active   map[string]bool // functions being judged at a call site
}

// editFunc is a function defined in the script.
type editFunc struct {
	body       *syntax.Stmt
	dirs       []string // working directories when it was defined and judged
	changesDir bool     // its body runs cd, pushd or popd
}

// editState is what is known at one point of the script.
type editState struct {
	// dirs are the directories the command may run in; nil means unknown. More than one when a
	// cd may or may not have happened (`cd x; …` where the cd may fail).
	dirs []string
	// vars are the variables known to hold a literal value. A variable not listed is unknown.
	vars []editVar
}

type editVar struct{ name, value string }

func (st *editState) clone() *editState {
	c := &editState{}
	if st.dirs != nil {
		c.dirs = append(make([]string, 0, len(st.dirs)), st.dirs...)
	}
	c.vars = append([]editVar(nil), st.vars...)
	return c
}

// child is the state a new shell process starts with: the same directory, and of the variables
// only HOME (the others may not be exported).
func (st *editState) child() *editState {
	c := &editState{}
	if st.dirs != nil {
		c.dirs = append([]string(nil), st.dirs...)
	}
	if h, ok := st.get("HOME"); ok {
		c.set("HOME", h, true)
	}
	return c
}

func (st *editState) get(name string) (string, bool) {
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
func (st *editState) set(name, value string, known bool) {
	known = known && len(value) <= maxEditLen
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
	if known && len(st.vars) < maxEditVars {
		st.vars = append(st.vars, editVar{name, value})
	}
}

// merge makes st what is known after either st or o: the union of the directories, and the
// variables both agree on.
func (st *editState) merge(o *editState) {
	st.mergeDirs(o.dirs)
	kept := st.vars[:0]
	for _, v := range st.vars {
		if ov, ok := o.get(v.name); ok && ov == v.value {
			kept = append(kept, v)
		}
	}
	st.vars = kept
}

func (st *editState) mergeDirs(dirs []string) {
	if st.dirs == nil || dirs == nil {
		st.dirs = nil
		return
	}
	for _, d := range dirs {
		if !containsString(st.dirs, d) {
			st.dirs = append(st.dirs, d)
		}
	}
	if len(st.dirs) > maxEditDirs {
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

func editRefuse(prog, hint, format string, args ...any) *Refusal {
	r := refuse(prog, format, args...)
	r.Hint = hint
	return r
}

// enter counts one node and one level of nesting; leave undoes the nesting.
func (j *editJudge) enter() *Refusal {
	j.nesting++
	if j.nesting > maxEditNesting {
		return &Refusal{What: "the command is too deeply nested to judge", Hint: editHintAsk}
	}
	return j.tick(1)
}

func (j *editJudge) leave() { j.nesting-- }

func (j *editJudge) tick(n int) *Refusal {
	j.nodes += n
	if j.nodes > maxEditNodes {
		return &Refusal{What: "the command is too complex to judge", Hint: editHintAsk}
	}
	return j.overflow
}

// script parses src and judges it in st. Every re-parse (eval, sh -c, …) comes through here.
func (j *editJudge) script(src string, st *editState, lang syntax.LangVariant) *Refusal {
	if j.depth >= maxEditDepth {
		return &Refusal{What: "the command nests eval, sh -c and wrappers too deeply to judge", Hint: editHintAsk}
	}
	j.parsed += len(src)
	if j.parsed > maxEditParsed {
		return &Refusal{What: "the command is too complex to judge", Hint: editHintAsk}
	}
	f, err := syntax.NewParser(syntax.Variant(lang)).Parse(strings.NewReader(src), "")
	if err != nil {
		return &Refusal{What: "the command does not parse as " + lang.String() + ": " + clip.Short(err.Error()), Hint: "fix the quoting"}
	}
	j.depth++
	defer func() { j.depth-- }()
	return j.stmts(f.Stmts, st)
}
