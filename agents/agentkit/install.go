package agentkit

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/tidwall/gjson"

	"github.com/hookctl/hookctl/agents/hookfile"
	"github.com/hookctl/hookctl/internal/fsutil"
	"github.com/hookctl/hookctl/lexer"
)

// Scopes are the scopes `hookctl install --agent NAME` takes: a user's own hooks file, and a
// root-owned file of the machine's that no repository's settings switch off (Install.ManagedFile).
var Scopes = []string{"user", "managed"}

// Install is one client's installation, for the clients other than Claude Code: the file each
// of Scopes registers hookctl in, and how a repository's own settings switch the client's user
// hooks off.
type Install struct {
	ManagedFile string // on Linux
	// Register is the registration of command in scope, one of Scopes.
	Register func(scope, userHome, command string) Registration
	// RepoSwitchesOff says how a repository's own settings switch off a user's hooks, where
	// one can (each tested for real: TestRealClientsManagedHookHoldsAgainstTheRepository), and
	// RepoHooksOff, where set, whether the project at dir does ("" when not).
	RepoSwitchesOff string
	RepoHooksOff    func(dir string) string
	// Settle, where set, makes r what install writes into text, the file as it is.
	Settle func(r *Registration, scope string, text []byte)
}

// Registration is where install registers hookctl for a client other than Claude Code, and
// what it writes there.
type Registration struct {
	File  string   // the client's hooks file
	Keys  []string // the array hookctl's group goes in
	Group string   // hookctl's group, JSON text
	Init  string   // how a new file begins ("" for {})
	// Own says the whole file is hookctl's (Copilot CLI reads every file in its hooks
	// directory): install writes it whole and uninstall removes it.
	Own     bool
	Command string // the command the group runs
	// Also are more groups in the same file, each in its own array (Codex's SessionStart).
	Also []HookEntry
	// Pins are settings the hook depends on, set in the same file, each a path and its JSON
	// value: a managed file's "hooks are on", which a repository's own settings file could
	// otherwise switch off. Uninstall leaves them: each is the client's default.
	Pins []HookEntry
}

// HookEntry is one more group of a registration, and the array it goes in.
type HookEntry struct {
	Keys  []string
	Group string
}

// Entries are every group of the registration, the main one first.
func (r Registration) Entries() []HookEntry {
	return append([]HookEntry{{r.Keys, r.Group}}, r.Also...)
}

// AddAll is the file with every group of r in place (hookfile.Add of each).
func (r Registration) AddAll(text []byte, ours hookfile.Ours) ([]byte, bool, error) {
	changed := false
	for _, e := range r.Entries() {
		out, c, err := hookfile.Add(text, e.Keys, e.Group, ours, r.Init)
		if err != nil {
			return nil, false, err
		}
		text, changed = out, changed || c
	}
	for _, p := range r.Pins {
		out, c, err := hookfile.Pin(text, p.Keys, p.Group)
		if err != nil {
			return nil, false, err
		}
		text, changed = out, changed || c
	}
	return text, changed, nil
}

// RemoveAll is the file without hookctl's groups in any of r's arrays.
func (r Registration) RemoveAll(text []byte, ours hookfile.Ours) ([]byte, bool, error) {
	changed := false
	for _, e := range r.Entries() {
		out, c, err := hookfile.Remove(text, e.Keys, ours)
		if err != nil {
			return nil, false, err
		}
		text, changed = out, changed || c
	}
	return text, changed, nil
}

// Registered says whether text, the hooks file, holds a group of hookctl's (ours) where r puts
// it, and whether it holds r exactly as install writes it.
func (r Registration) Registered(text []byte, ours hookfile.Ours) (registered, exact bool) {
	if r.Own {
		return ours(gjson.GetBytes(text, "hooks.preToolUse.0")), string(text) == r.Group+"\n"
	}
	_, changed, err := r.AddAll(text, ours)
	gjson.GetBytes(text, strings.Join(r.Keys, ".")).ForEach(func(_, g gjson.Result) bool {
		registered = registered || ours(g)
		return true
	})
	return registered, err == nil && !changed
}

// SettingsSwitchOff says, for RepoHooksOff, whether the JSON settings file at dir/name switches
// hooks off (off reads it): "FILE switches hooks off", or "".
func SettingsSwitchOff(dir, name string, off func(settings gjson.Result) bool) string {
	file := filepath.Join(dir, name)
	b, err := fsutil.ReadFile(file, 1<<20, false)
	if err != nil || !off(gjson.ParseBytes(b)) {
		return ""
	}
	return file + " switches hooks off"
}

// HookCommand is the command a client's hooks file runs for hookctl as binary: what Ours
// recognises.
func HookCommand(binary, client string) string {
	return lexer.Quote(binary) + " hook --agent " + client
}

// Ours recognises a group of hookctl's for client name, whatever binary path it names: a
// command whose first word is a hookctl and whose arguments are hook --agent NAME.
func Ours(name string) hookfile.Ours {
	return func(g gjson.Result) bool {
		var cmds []string
		for _, k := range []string{"command", "bash"} {
			cmds = append(cmds, g.Get(k).Str)
		}
		g.Get("hooks").ForEach(func(_, h gjson.Result) bool {
			cmds = append(cmds, h.Get("command").Str, h.Get("bash").Str)
			return true
		})
		for _, c := range cmds {
			words := strings.Fields(c)
			if len(words) == 4 && filepath.Base(strings.Trim(words[0], `'"`)) == "hookctl" && strings.Join(words[1:], " ") == "hook --agent "+name {
				return true
			}
		}
		return false
	}
}

// JSON is v as JSON text (v is a string or a plain record, which always encodes).
func JSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

// ReadSettingsFile reads a client's settings file, refusing what is not a regular file (a FIFO
// would hang install); a missing one is empty.
func ReadSettingsFile(path string) (text []byte, mode os.FileMode, existed bool, err error) {
	// Non-blocking, so that a FIFO in place of a settings file is refused below, not waited on.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0o644, false, nil
	}
	if err != nil {
		return nil, 0, false, fmt.Errorf("failed to read %s: %w", path, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, 0, false, err
	}
	if !fi.Mode().IsRegular() {
		return nil, 0, false, fmt.Errorf("%s is not a regular file", path)
	}
	text, err = io.ReadAll(io.LimitReader(f, 8<<20))
	if err != nil {
		return nil, 0, false, fmt.Errorf("failed to read %s: %w", path, err)
	}
	return text, fi.Mode().Perm(), true, nil
}
