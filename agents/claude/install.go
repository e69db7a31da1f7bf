package claude

import (
	"bytes"
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"

	"github.com/hookctl/hookctl/lexer"
)

// Entry is one hook group hookctl registers: under hooks.<Event>, a group
// {"matcher": Matcher, "hooks": [{"type": "command", "command": BIN, "args": ["hook"],
// "timeout": Timeout, "onFailure": OnFailure}]}, with matcher and onFailure left out when "".
// A wrapped entry runs /bin/sh with Wrapper instead of BIN (see Form).
type Entry struct {
	Event     string
	Matcher   string
	Timeout   int // seconds
	OnFailure string
	Args      []string // nil means ["hook"]
	// Wrapped: in a personal registration too, the hook runs through Wrapper. These are the
	// events that come once a prompt or a session, where the shell's start costs nothing a
	// user notices, and whose refusal the user reads: a missing hookctl is reported there with
	// the way out. The tool-call hooks run hookctl directly (docs/decisions/0009).
	Wrapped bool
}

func (e Entry) args() []any {
	if e.Args == nil {
		return []any{hookArg}
	}
	out := make([]any, len(e.Args))
	for i, a := range e.Args {
		out[i] = a
	}
	return out
}

// Entries is everything install registers, in the order it adds them.
//
// onFailure "block" makes the client refuse the call or prompt when hookctl crashes, times out
// or is missing; without it those failures let everything through (claude-code-facts.md).
// SessionStart only adds context, and SessionEnd only removes the session's sandbox scratch
// directory (a stale one goes a day later anyway), so a failure there need not stop anything.
//
// The second PreToolUse entry is the retrieval hook: WebFetch and WebSearch are answered by the
// quarantined retriever, which may take a minute, so it has its own long timeout; the first
// entry refuses web tools at once, so that without the second they fail closed.
var Entries = []Entry{
	{Event: "PreToolUse", Matcher: "*", Timeout: 10, OnFailure: "block"},
	{Event: "PreToolUse", Matcher: "WebFetch|WebSearch", Timeout: 120, OnFailure: "block", Args: []string{"hook", "--retrieve"}},
	{Event: "UserPromptSubmit", Timeout: 10, OnFailure: "block", Wrapped: true},
	{Event: "UserPromptExpansion", Timeout: 10, OnFailure: "block", Wrapped: true},
	{Event: "SessionStart", Timeout: 10, Wrapped: true},
	{Event: "SessionEnd", Timeout: 10, Wrapped: true},
}

// Form is how a registration names hookctl, which depends on whose settings file it goes in.
type Form uint8

const (
	// FormPersonal is for one user's own file (~/.claude/settings.json, a project's
	// settings.local.json): the tool-call hooks run Registration.Binary, an absolute path, so
	// no PATH lookup and no shell sits on the per-call path; the Wrapped entries run Wrapper.
	FormPersonal Form = iota
	// FormShared is for a project's committed .claude/settings.json: every hook runs Wrapper,
	// which finds each member's own hookctl in their hookctl home, so the file names no user's
	// path and is the same for the whole team; it carries no status line, which stays each
	// user's own. Its entries are byte for byte the Wrapped entries of a personal registration,
	// so where both are present the client runs those once (2.1.328, live).
	FormShared
	// FormPinned is for the managed settings an administrator installs: every hook runs
	// Registration.Binary, the administrator's, and nothing goes through a user's home.
	FormPinned
)

// Wrapper is the POSIX sh script a wrapped entry runs, as /bin/sh -c Wrapper hookctl ARGS…:
// it runs hookctl from the hookctl home (the directory hook.Home names: $HOOKCTL_HOME, else
// $XDG_CONFIG_HOME/hookctl when that is absolute, else ~/.config/hookctl), where install
// links bin/hookctl to the binary it installed. When that is missing (the binary was moved or
// deleted, or never installed for this user) it fails closed with exit 2, which Claude Code
// takes as a block and shows: the refusal names the way out, uninstall.sh, which needs no
// hookctl. It uses only shell built-ins, so no PATH lookup can put another program in its
// place; the client prints the whole command with a refusal, so it is kept short.
const Wrapper = `case $XDG_CONFIG_HOME in /*) c=$XDG_CONFIG_HOME;; *) c=$HOME/.config;; esac; h=${HOOKCTL_HOME:-$c/hookctl}; ` +
	`[ -x "$h/bin/hookctl" ] && exec "$h/bin/hookctl" "$@"; ` +
	`echo "hookctl: $h/bin/hookctl is missing, so Claude Code refuses every prompt and tool call. ` +
	`Reinstall hookctl (make install), or remove its hooks from Claude Code's settings with: sh $h/uninstall.sh" >&2; exit 2`

// WrapperShell runs Wrapper; an absolute path, so that no PATH entry can stand in for it.
const WrapperShell = "/bin/sh"

// wrapperName is the $0 Wrapper runs under: with the shell and -c, what marks an entry as
// hookctl's wrapped one.
const wrapperName = "hookctl"

// hookArg is the first argument of every hook entry hookctl writes; with the program's base
// name it is how uninstall recognises hookctl's entries.
const hookArg = "hook"

// Registration is what hookctl adds to one settings file.
type Registration struct {
	// Binary is the absolute path the direct hooks and the status line run; unused in
	// FormShared, which names no path.
	Binary string
	Form   Form
	// StatusLine: also install hookctl's status line, wrapping any existing one. Not in
	// FormShared.
	StatusLine bool
	// AllowJSONC lets Install edit a file holding comments or trailing commas. Claude Code
	// 2.1.328 ignores such a file entirely, hooks and all (seen live), so by default Install
	// refuses it: the registration would never run.
	AllowJSONC bool
}

// ErrIgnoredByClient is wrapped by Install's error for a file with comments or trailing commas.
var ErrIgnoredByClient = errors.New("Claude Code ignores a settings file with comments or trailing commas")

func (r Registration) check() error {
	if r.Form == FormShared {
		if r.StatusLine {
			return errors.New("failed to register: a shared registration carries no status line")
		}
		return nil
	}
	switch b := r.Binary; {
	case b == "" || !filepath.IsAbs(b):
		return fmt.Errorf("failed to register: the hookctl path %q is not absolute", b)
	case !utf8.ValidString(b) || strings.ContainsFunc(b, func(c rune) bool { return c < 0x20 || c == 0x7f }):
		return fmt.Errorf("failed to register: the hookctl path %q holds control characters or invalid UTF-8", b)
	}
	return nil
}

// wraps says whether e runs through Wrapper in this registration.
func (r Registration) wraps(e Entry) bool {
	return r.Form == FormShared || r.Form == FormPersonal && e.Wrapped
}

// statusCommand is the status line hookctl installs: shell form, since Claude Code runs the
// status line command through a shell.
func statusCommand(binary string) string { return shellQuote(binary) + " statusline" }

// statusRefresh is how often (seconds) the client re-runs the status line. It re-runs it after
// each reply anyway, but not after a prompt the hook blocked — and /readonly is such a prompt,
// so without a refresh the badge would show the old mode until the next reply (seen live).
const statusRefresh = 2

// statusValue is the statusLine setting install writes.
func statusValue(binary string) jsonObj {
	return jsonObj{{"type", "command"}, {"command", statusCommand(binary)}, {"refreshInterval", statusRefresh}}
}

func shellQuote(s string) string {
	if s != "" && !strings.ContainsFunc(s, func(c rune) bool {
		return !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.ContainsRune("/._-", c))
	}) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Install returns text with hookctl registered. It is idempotent: text that already holds
// exactly this registration comes back unchanged with changed=false. prevStatusLine is the raw
// JSON text of the statusLine value it replaced ("" if none, or if it was already hookctl's);
// the caller stores it so that uninstall can restore it and `hookctl statusline` can run it.
//
// Empty or blank text is an empty settings file: the result is a new file. hookctl entries
// that differ from r (another path, other settings, an event no longer in Entries) are
// replaced; everything else keeps its bytes. With r.StatusLine false an existing statusLine is
// left alone, even hookctl's.
func Install(text []byte, r Registration) (out []byte, changed bool, prevStatusLine string, err error) {
	if err := r.check(); err != nil {
		return nil, false, "", err
	}
	if isBlank(text) {
		out, _, _, err := Install([]byte("{}"), r)
		if err != nil {
			return nil, false, "", err
		}
		return append(out, '\n'), true, "", nil
	}
	ed, err := newSettingsEditor(text, r.Binary)
	if err != nil {
		return nil, false, "", err
	}
	if err := ed.v.d.ignored(); err != nil && !r.AllowJSONC {
		return nil, false, "", fmt.Errorf("failed to install: %w", err)
	}
	if ed.v.installed(r) {
		return text, false, "", nil
	}
	before := ed.v

	// Take out every hookctl entry that is not exactly right, keeping the arrays of the
	// events about to be filled again.
	wanted := map[string]bool{}
	for _, e := range Entries {
		wanted[e.Event] = true
	}
	err = ed.apply(ed.v.removal(func(ev *settingsEvent) bool { return !wanted[ev.name] || !ev.exact(r) }, wanted, false))
	if err != nil {
		return nil, false, "", err
	}

	for _, name := range entryEvents() {
		v := ed.v
		var edits []textEdit
		ev := v.event(name)
		switch {
		case ev != nil && ev.exact(r):
			continue
		case v.hooks == nil:
			events := jsonObj{}
			for _, n := range entryEvents() {
				events = append(events, jsonField{n, entryGroups(n, r)})
			}
			edits = v.d.appendChild(v.d.root, "hooks", events)
		case ev == nil:
			edits = v.d.appendChild(v.hooks.val, name, entryGroups(name, r))
		default:
			for _, g := range entryGroups(name, r) {
				if err := ed.apply(ed.v.d.appendChild(ed.v.event(name).m.val, "", g)); err != nil {
					return nil, false, "", err
				}
			}
			continue
		}
		if err := ed.apply(edits); err != nil {
			return nil, false, "", err
		}
	}

	if r.StatusLine {
		v := ed.v
		want := statusValue(r.Binary)
		switch {
		case v.status == nil:
			err = ed.apply(v.d.appendChild(v.d.root, "statusLine", want))
		case v.statusExact(r.Binary):
		default:
			if !v.statusIsOurs() {
				prevStatusLine = string(v.d.src[v.status.val.start:v.status.val.end])
			}
			old := v.status.val
			pretty := hasLineBreak(v.d.src[old.start:old.end])
			err = ed.apply([]textEdit{replaceValue(old, v.d.style().render(want, pretty, lineIndent(v.d.src, old.start)))})
		}
		if err != nil {
			return nil, false, "", err
		}
	}

	// Fail closed on a bug above: the result must hold exactly r, and apart from hookctl's
	// entries (and the status line, when it was asked for) the same values as before.
	if !ed.v.installed(r) {
		return nil, false, "", errors.New("failed to install: the edited file does not hold the registration")
	}
	if before.sansHookctl(r.StatusLine) != ed.v.sansHookctl(r.StatusLine) {
		return nil, false, "", errors.New("failed to install: the edit would change settings that are not hookctl's")
	}
	return ed.text, true, prevStatusLine, nil
}

// Uninstall removes every hook entry whose command is hookctl (the same Binary path, or any
// path whose base name is "hookctl", with args starting with "hook", or a wrapped entry),
// removes matcher groups and event arrays left empty by that, removes the hooks object if left
// empty, and, if statusLine is hookctl's, replaces it with prevStatusLine (or removes it when
// prevStatusLine is "").
//
// Containers that were empty before are kept; but install cannot tell an empty "hooks" or
// event array it filled from one it made, so after install and uninstall those are gone.
func Uninstall(text []byte, binary string, prevStatusLine string) (out []byte, changed bool, err error) {
	return uninstall(text, binary, prevStatusLine, true)
}

// UninstallStatusLine is Uninstall of the status line alone: what a shared registration,
// which carries none, does to a hookctl status line an older install left in the file.
func UninstallStatusLine(text []byte, binary string, prevStatusLine string) (out []byte, changed bool, err error) {
	return uninstall(text, binary, prevStatusLine, false)
}

func uninstall(text []byte, binary string, prevStatusLine string, hooks bool) (out []byte, changed bool, err error) {
	if isBlank(text) {
		return text, false, nil
	}
	ed, err := newSettingsEditor(text, binary)
	if err != nil {
		return nil, false, err
	}
	before := ed.v
	ours := before.status != nil && before.statusIsOurs()
	if ours {
		if prevStatusLine != "" {
			prev, err := parseSettings([]byte(prevStatusLine))
			if err != nil {
				return nil, false, fmt.Errorf("failed to restore the status line: %w", err)
			}
			// Install stores the value's own bytes; anything around them (a // comment) could
			// swallow what follows it in the file.
			if prev.root.start != 0 || prev.root.end != len(prevStatusLine) {
				return nil, false, errors.New("failed to restore the status line: the stored value is not one bare JSON value")
			}
			// A stored value that is hookctl's own would keep hookctl installed: drop it.
			if (&settingsView{d: prev, binary: binary}).isOurStatusValue(prev.root) {
				prevStatusLine = ""
			}
		}
		if prevStatusLine == "" {
			err = ed.apply(ed.v.d.removeChildren(ed.v.d.root, dropOnly(len(ed.v.d.root.kids), ed.v.statusIndex)))
		} else {
			err = ed.apply([]textEdit{replaceValue(ed.v.status.val, prevStatusLine)})
		}
		if err != nil {
			return nil, false, err
		}
	}
	if hooks {
		if err := ed.apply(ed.v.removal(func(*settingsEvent) bool { return true }, nil, true)); err != nil {
			return nil, false, err
		}
	}

	after := ed.v
	switch {
	case hooks && after.holdsHookctl():
		return nil, false, errors.New("failed to uninstall: hookctl entries remain after the edit")
	case ours && after.status != nil && after.statusIsOurs():
		return nil, false, errors.New("failed to uninstall: hookctl's status line remains after the edit")
	case ours && prevStatusLine != "" && (after.status == nil ||
		string(after.d.src[after.status.val.start:after.status.val.end]) != prevStatusLine):
		return nil, false, errors.New("failed to uninstall: the status line was not restored")
	case before.sansHookctl(ours) != after.sansHookctl(ours):
		return nil, false, errors.New("failed to uninstall: the edit would change settings that are not hookctl's")
	}
	return ed.text, !bytes.Equal(ed.text, text), nil
}

// isBlank says whether text is empty apart from JSON whitespace and a byte order mark: Claude
// Code reads such a file as {}. Other blank characters go to the parser, which refuses them.
func isBlank(text []byte) bool {
	return len(bytes.Trim(bytes.TrimPrefix(text, utf8BOM), " \t\r\n")) == 0
}

func dropOnly(n, i int) []bool {
	drop := make([]bool, n)
	drop[i] = true
	return drop
}

// group is the hook group e registers in r.
func (e Entry) group(r Registration) jsonObj {
	cmd, args := r.Binary, e.args()
	if r.wraps(e) {
		cmd, args = WrapperShell, append([]any{"-c", Wrapper, wrapperName}, args...)
	}
	h := jsonObj{{"type", "command"}, {"command", cmd}, {"args", args}, {"timeout", e.Timeout}}
	if e.OnFailure != "" {
		h = append(h, jsonField{"onFailure", e.OnFailure})
	}
	g := jsonObj{}
	if e.Matcher != "" {
		g = append(g, jsonField{"matcher", e.Matcher})
	}
	return append(g, jsonField{"hooks", []any{h}})
}

// settingsEditor holds the text being edited and its view; apply re-parses after every edit.
type settingsEditor struct {
	text   []byte
	v      *settingsView
	binary string
}

func newSettingsEditor(text []byte, binary string) (*settingsEditor, error) {
	ed := &settingsEditor{text: text, binary: binary}
	d, err := parseSettings(text)
	if err != nil {
		return nil, fmt.Errorf("failed to read settings: %w", err)
	}
	if ed.v, err = readSettingsView(d, binary); err != nil {
		return nil, fmt.Errorf("failed to read settings: %w", err)
	}
	return ed, nil
}

func (ed *settingsEditor) apply(edits []textEdit) error {
	if len(edits) == 0 {
		return nil
	}
	out, err := splice(ed.text, edits)
	if err != nil {
		return err
	}
	d, err := parseSettings(out)
	if err != nil {
		return fmt.Errorf("failed to edit settings: the result does not parse: %w", err)
	}
	v, err := readSettingsView(d, ed.binary)
	if err != nil {
		return fmt.Errorf("failed to edit settings: %w", err)
	}
	ed.text, ed.v = out, v
	return nil
}

// settingsView is the part of a settings file hookctl reads: the hooks and the status line.
type settingsView struct {
	d           *settingsDoc
	binary      string
	hooks       *jsonChild // the root's "hooks" member, or nil
	status      *jsonChild // the root's "statusLine" member, or nil
	statusIndex int
	events      []settingsEvent
}

// settingsEvent is one member of "hooks": an event and its matcher groups.
type settingsEvent struct {
	name   string
	m      *jsonChild
	groups []settingsGroup
	ours   int // hookctl entries in all its groups
	v      *settingsView
}

// settingsGroup is one matcher group and which of its hook entries are hookctl's.
type settingsGroup struct {
	n       *jsonNode // the group object
	entries *jsonNode // its "hooks" array
	ours    []bool
	nOurs   int
}

// readSettingsView checks the shape Claude Code requires of "hooks" (an object of arrays of
// groups, each an object with a "hooks" array of objects) and finds hookctl's entries.
func readSettingsView(d *settingsDoc, binary string) (*settingsView, error) {
	v := &settingsView{d: d, binary: binary}
	root := d.root
	if root.kind != kindObject {
		return nil, errorAt(d.src, root.start, "the settings are not a JSON object")
	}
	if i := root.member("statusLine"); i >= 0 {
		v.status, v.statusIndex = &root.kids[i], i
	}
	i := root.member("hooks")
	if i < 0 {
		return v, nil
	}
	v.hooks = &root.kids[i]
	if v.hooks.val.kind != kindObject {
		return nil, errorAt(d.src, v.hooks.val.start, `"hooks" is not an object`)
	}
	for j := range v.hooks.val.kids {
		m := &v.hooks.val.kids[j]
		ev := settingsEvent{name: m.key, m: m, v: v}
		if m.val.kind != kindArray {
			return nil, errorAt(d.src, m.val.start, "hooks event %s is not an array", clipKey(m.key))
		}
		for _, g := range m.val.kids {
			if g.val.kind != kindObject {
				return nil, errorAt(d.src, g.val.start, "a hook group of %s is not an object", clipKey(m.key))
			}
			entries := g.val.get("hooks")
			if entries == nil || entries.kind != kindArray {
				return nil, errorAt(d.src, g.val.start, `a hook group of %s has no "hooks" array`, clipKey(m.key))
			}
			sg := settingsGroup{n: g.val, entries: entries, ours: make([]bool, len(entries.kids))}
			for k, h := range entries.kids {
				if h.val.kind != kindObject {
					return nil, errorAt(d.src, h.val.start, "a hook of %s is not an object", clipKey(m.key))
				}
				if v.isOurs(h.val) {
					sg.ours[k] = true
					sg.nOurs++
				}
			}
			ev.ours += sg.nOurs
			ev.groups = append(ev.groups, sg)
		}
		v.events = append(v.events, ev)
	}
	return v, nil
}

// isOurs says whether a hook entry runs hookctl: the command is the binary, or any program
// called hookctl, and the first argument is "hook"; or it is a wrapped entry, a shell run as
// sh -c SCRIPT hookctl hook…, whatever the script (an older hookctl's Wrapper too).
func (v *settingsView) isOurs(h *jsonNode) bool {
	cmd, args := h.get("command"), h.get("args")
	if cmd == nil || cmd.kind != kindString || args == nil || args.kind != kindArray || len(args.kids) == 0 {
		return false
	}
	arg := func(i int) string {
		if i >= len(args.kids) || args.kids[i].val.kind != kindString {
			return "\x00" // no argument, or not a string: matches nothing below
		}
		return args.kids[i].val.str
	}
	if path.Base(cmd.str) == "sh" && arg(0) == "-c" && arg(2) == wrapperName && arg(3) == hookArg {
		return true
	}
	return (cmd.str == v.binary && v.binary != "" || path.Base(cmd.str) == "hookctl") && arg(0) == hookArg
}

func (v *settingsView) event(name string) *settingsEvent {
	for i := range v.events {
		if v.events[i].name == name {
			return &v.events[i]
		}
	}
	return nil
}

func (v *settingsView) holdsHookctl() bool {
	for _, ev := range v.events {
		if ev.ours > 0 {
			return true
		}
	}
	return false
}

// installed says whether the file holds exactly r and no other hookctl entry.
func (v *settingsView) installed(r Registration) bool {
	n := 0
	for _, name := range entryEvents() {
		ev := v.event(name)
		if ev == nil || !ev.exact(r) {
			return false
		}
		n += len(entryGroups(name, r))
	}
	total := 0
	for _, ev := range v.events {
		total += ev.ours
	}
	return total == n && (!r.StatusLine || v.statusExact(r.Binary))
}

// exact says whether the event holds exactly the hookctl entries Entries gives for it, each
// alone in its group, in Entries' order.
func (ev *settingsEvent) exact(r Registration) bool {
	want := entryGroups(ev.name, r)
	if len(want) == 0 || ev.ours != len(want) {
		return false
	}
	k := 0
	for _, g := range ev.groups {
		if g.nOurs == 0 {
			continue
		}
		if g.nOurs != 1 || len(g.entries.kids) != 1 || k >= len(want) || !sameValue(ev.v.d.src, g.n, want[k]) {
			return false
		}
		k++
	}
	return k == len(want)
}

// entryEvents lists the events of Entries, each once, in order.
func entryEvents() []string {
	var out []string
	for _, e := range Entries {
		if len(out) == 0 || !containsString(out, e.Event) {
			out = append(out, e.Event)
		}
	}
	return out
}

// entryGroups returns the groups install writes under an event.
func entryGroups(event string, r Registration) []any {
	var out []any
	for _, e := range Entries {
		if e.Event == event {
			out = append(out, e.group(r))
		}
	}
	return out
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// sameValue compares a parsed value with one install would write: the same keys (in any
// order) and values; numbers by their digits.
func sameValue(src []byte, n *jsonNode, want any) bool {
	switch w := want.(type) {
	case string:
		return n.kind == kindString && n.str == w
	case int:
		return n.kind == kindNumber && string(src[n.start:n.end]) == strconv.Itoa(w)
	case []any:
		if n.kind != kindArray || len(n.kids) != len(w) {
			return false
		}
		for i := range w {
			if !sameValue(src, n.kids[i].val, w[i]) {
				return false
			}
		}
		return true
	case jsonObj:
		if n.kind != kindObject || len(n.kids) != len(w) {
			return false
		}
		for _, f := range w {
			if m := n.get(f.key); m == nil || !sameValue(src, m, f.val) {
				return false
			}
		}
		return true
	}
	return false
}

func (v *settingsView) statusExact(binary string) bool {
	return v.status != nil && sameValue(v.d.src, v.status.val, statusValue(binary))
}

func (v *settingsView) statusIsOurs() bool { return v.isOurStatusValue(v.status.val) }

// isOurStatusValue says whether a statusLine value runs hookctl's status line: its command is
// the one install writes for this binary, or any program called hookctl with the single
// argument statusline.
func (v *settingsView) isOurStatusValue(n *jsonNode) bool {
	cmd := n.get("command")
	if cmd == nil || cmd.kind != kindString {
		return false
	}
	if v.binary != "" && cmd.str == statusCommand(v.binary) {
		return true
	}
	prog, rest, ok := firstShellWord(cmd.str)
	return ok && path.Base(prog) == "hookctl" && rest == " statusline"
}

// firstShellWord splits off the first word of a status line command: its value, as the shell
// gives it, and the text after it. The command is parsed by mvdan.cc/sh and the word read by
// lexer.Literal, the project's one reader of shell words, so any spelling of hookctl's path
// (shellQuote's, backslashes, $'…') reads alike here and in the judges. It fails unless the
// command starts, at its first byte, with a plain call whose first word has a value fixed by
// its text alone: an assignment, a redirection, an expansion (~, $HOME, *) or a command that
// does not parse is not hookctl's.
func firstShellWord(cmd string) (word, rest string, ok bool) {
	f, err := lexer.NewCommandLine(cmd).Tree()
	if err != nil || len(f.Stmts) == 0 {
		return "", "", false
	}
	st := f.Stmts[0]
	call, isCall := st.Cmd.(*syntax.CallExpr)
	if !isCall || len(call.Assigns) > 0 || len(st.Redirs) > 0 || st.Negated || len(call.Args) == 0 {
		return "", "", false
	}
	first := call.Args[0]
	if first.Pos().Offset() != 0 {
		return "", "", false
	}
	word, ok = lexer.Literal(first)
	if !ok {
		return "", "", false
	}
	return word, cmd[first.End().Offset():], true
}

// removal returns the edits that take hookctl's entries out of the events chosen by which.
// Groups left empty by that go. Events left empty go unless keep names them; and when every
// event goes and dropHooks is set, the whole "hooks" member goes.
func (v *settingsView) removal(which func(*settingsEvent) bool, keep map[string]bool, dropHooks bool) []textEdit {
	if v.hooks == nil {
		return nil
	}
	var edits []textEdit
	dropEvent := make([]bool, len(v.events))
	dropped := 0
	for i := range v.events {
		ev := &v.events[i]
		if ev.ours == 0 || !which(ev) {
			continue
		}
		var inner []textEdit
		dropGroup := make([]bool, len(ev.groups))
		emptied := true
		for j, g := range ev.groups {
			switch {
			case g.nOurs == 0:
				emptied = false
			case g.nOurs == len(g.entries.kids):
				dropGroup[j] = true
			default:
				emptied = false
				inner = append(inner, v.d.removeChildren(g.entries, g.ours)...)
			}
		}
		if emptied && !keep[ev.name] {
			dropEvent[i] = true
			dropped++
			continue
		}
		edits = append(edits, inner...)
		edits = append(edits, v.d.removeChildren(ev.m.val, dropGroup)...)
	}
	if dropped == 0 {
		return edits
	}
	if dropHooks && dropped == len(v.events) {
		return v.d.removeChildren(v.d.root, dropOnly(len(v.d.root.kids), v.d.root.member("hooks")))
	}
	return append(edits, v.d.removeChildren(v.hooks.val, dropEvent)...)
}

// sansHookctl renders the file's values without hookctl's entries, and without the status
// line when skipStatus is set, so that an edit can be checked to have touched nothing else.
// Groups, events and "hooks" with no other entries are left out, whoever emptied them.
func (v *settingsView) sansHookctl(skipStatus bool) string {
	src := v.d.src
	var b strings.Builder
	b.WriteByte('{')
	for i, m := range v.d.root.kids {
		switch {
		case skipStatus && v.status != nil && i == v.statusIndex:
		case v.hooks != nil && m.key == "hooks":
			var hooks strings.Builder
			for _, ev := range v.events {
				var groups strings.Builder
				for _, g := range ev.groups {
					var entries strings.Builder
					for k, h := range g.entries.kids {
						if !g.ours[k] {
							writeCanonical(&entries, src, h.val)
							entries.WriteByte(',')
						}
					}
					if entries.Len() == 0 {
						continue
					}
					groups.WriteByte('{')
					for _, gm := range g.n.kids {
						groups.WriteString(strconv.Quote(gm.key) + ":")
						if gm.val == g.entries {
							groups.WriteString("[" + entries.String() + "]")
						} else {
							writeCanonical(&groups, src, gm.val)
						}
						groups.WriteByte(',')
					}
					groups.WriteString("},")
				}
				if groups.Len() > 0 {
					hooks.WriteString(strconv.Quote(ev.name) + ":[" + groups.String() + "],")
				}
			}
			if hooks.Len() > 0 {
				b.WriteString(`"hooks":{` + hooks.String() + "},")
			}
		default:
			b.WriteString(strconv.Quote(m.key) + ":")
			writeCanonical(&b, src, m.val)
			b.WriteByte(',')
		}
	}
	b.WriteByte('}')
	return b.String()
}

// writeCanonical writes n without whitespace or comments; scalars keep their source bytes.
func writeCanonical(b *strings.Builder, src []byte, n *jsonNode) {
	switch n.kind {
	case kindObject, kindArray:
		open, close := byte('['), byte(']')
		if n.kind == kindObject {
			open, close = '{', '}'
		}
		b.WriteByte(open)
		for _, c := range n.kids {
			if n.kind == kindObject {
				b.WriteString(strconv.Quote(c.key) + ":")
			}
			writeCanonical(b, src, c.val)
			b.WriteByte(',')
		}
		b.WriteByte(close)
	default:
		b.Write(src[n.start:n.end])
	}
}
