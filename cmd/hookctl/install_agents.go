package main

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/hookctl/hookctl/agents/codex"
	"github.com/hookctl/hookctl/agents/hookfile"
	"github.com/hookctl/hookctl/gate"
	"github.com/hookctl/hookctl/internal/fsutil"
	"github.com/hookctl/hookctl/internal/hookjson"
	"github.com/hookctl/hookctl/lexer"
	"github.com/hookctl/hookctl/sandbox"
)

// hookRegistration is where install registers hookctl for a client other than Claude Code, and
// what it writes there.
type hookRegistration struct {
	File  string   // the client's hooks file
	Keys  []string // the array hookctl's group goes in
	Group string   // hookctl's group, JSON text
	Init  string   // how a new file begins ("" for {})
	// Own says the whole file is hookctl's (Copilot CLI reads every file in its hooks
	// directory): install writes it whole and uninstall removes it.
	Own     bool
	Command string // the command the group runs
	// Also are more groups in the same file, each in its own array (Codex's SessionStart).
	Also []hookEntry
	// Pins are settings the hook depends on, set in the same file, each a path and its JSON
	// value: a managed file's "hooks are on", which a repository's own settings file could
	// otherwise switch off. Uninstall leaves them: each is the client's default.
	Pins []hookEntry
}

// hookEntry is one more group of a registration, and the array it goes in.
type hookEntry struct {
	Keys  []string
	Group string
}

// entries are every group of the registration, the main one first.
func (r hookRegistration) entries() []hookEntry {
	return append([]hookEntry{{r.Keys, r.Group}}, r.Also...)
}

// addAll is the file with every group of r in place (hookfile.Add of each).
func (r hookRegistration) addAll(text []byte, ours hookfile.Ours) ([]byte, bool, error) {
	changed := false
	for _, e := range r.entries() {
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

// removeAll is the file without hookctl's groups in any of r's arrays.
func (r hookRegistration) removeAll(text []byte, ours hookfile.Ours) ([]byte, bool, error) {
	changed := false
	for _, e := range r.entries() {
		out, c, err := hookfile.Remove(text, e.Keys, ours)
		if err != nil {
			return nil, false, err
		}
		text, changed = out, changed || c
	}
	return text, changed, nil
}

// agentScopes are the scopes each client's install takes: a user's own hooks file, and where
// the client has one, a root-owned file of the machine's that no repository's settings switch
// off (Copilot CLI's policy directory, Gemini CLI's and Qwen Code's system settings, which they
// read last, Codex's and Cursor's system hooks files).
var agentScopes = map[string][]string{"codex": {"user", "managed"}, "qwen": {"user", "managed"}, "gemini": {"user", "managed"}, "copilot": {"user", "managed"}, "cursor": {"user", "managed"}}

// repoSwitchesOff is how a repository's own settings switch off a user's hooks, for the clients
// where one can (each tested for real: TestRealClientsManagedHookHoldsAgainstTheRepository).
var repoSwitchesOff = map[string]string{
	"codex":   ".codex/config.toml ([features] hooks = false)",
	"copilot": "disableAllHooks",
	"gemini":  ".gemini/settings.json (hooksConfig.enabled = false, or hookctl in hooksConfig.disabled)",
	"qwen":    ".qwen/settings.json (disableAllHooks)",
}

// managedFiles are the machine's settings files of the clients whose install takes --scope
// managed, on Linux.
var managedFiles = map[string]string{
	// Codex's system config folder: its hooks are "managed", run without the user's trust and
	// cannot be disabled by any config file (codex-rs/hooks/src/engine/discovery.rs).
	"codex":   "/etc/codex/hooks.json",
	"copilot": "/etc/github-copilot/policy.d/hookctl.json",
	// Cursor's enterprise hooks, first in its documented priority order.
	"cursor": "/etc/cursor/hooks.json",
	"gemini": "/etc/gemini-cli/settings.json",
	"qwen":   "/etc/qwen-code/settings.json",
}

// codexHome is where Codex keeps its configuration: $CODEX_HOME, else ~/.codex.
func codexHome(userHome string) string {
	if d := os.Getenv("CODEX_HOME"); filepath.IsAbs(d) {
		return d
	}
	return filepath.Join(userHome, ".codex")
}

// agentRegistration is install's registration of hookctl, as binary, for client name in scope.
// Each timeout leaves hookctl's own deadline (hook.Deadline) far inside the client's: a client
// that timed the hook out would run the call (Codex, Gemini CLI, Qwen Code, Copilot CLI).
func agentRegistration(name, scope, userHome, binary string) (hookRegistration, error) {
	ok := false
	for _, s := range agentScopes[name] {
		ok = ok || s == scope
	}
	if !ok {
		return hookRegistration{}, fmt.Errorf("hookctl install --agent %s takes --scope %s", name, strings.Join(agentScopes[name], " or "))
	}
	command := lexer.Quote(binary) + " hook --agent " + name
	q := func(s string) string { return string(mustJSON(s)) }
	r := hookRegistration{Command: command, Keys: []string{"hooks", "PreToolUse"}}
	switch name {
	case "codex":
		// No matcher: every tool, apply_patch and MCP tools too. SessionStart tells the model its
		// mode and the user what holds it, and notes the session for the mode-change notices.
		r.File = filepath.Join(codexHome(userHome), "hooks.json")
		r.Group = `{"hooks":[{"type":"command","command":` + q(command) + `,"timeout":30}]}`
		r.Also = []hookEntry{{[]string{"hooks", "SessionStart"}, r.Group}}
		if scope == "managed" {
			r.File = managedFiles[name]
		}
	case "qwen":
		r.File = filepath.Join(userHome, ".qwen", "settings.json")
		r.Group = `{"matcher":"*","hooks":[{"type":"command","command":` + q(command) + `,"timeout":30000}]}`
		if scope == "managed" {
			// A repository's .qwen/settings.json could say disableAllHooks; the system file,
			// read last, says otherwise.
			r.File, r.Pins = managedFiles[name], []hookEntry{{[]string{"disableAllHooks"}, "false"}}
		}
	case "gemini":
		r.File, r.Keys = filepath.Join(userHome, ".gemini", "settings.json"), []string{"hooks", "BeforeTool"}
		r.Group = `{"matcher":".*","hooks":[{"type":"command","name":"hookctl","command":` + q(command) + `,"timeout":30000}]}`
		if scope == "managed" {
			// A repository's .gemini/settings.json could turn hooks off (hooksConfig.enabled,
			// which the system file, read last, sets back) or name hookctl's in
			// hooksConfig.disabled, which every file adds to: the managed hook's name is one no
			// repository can know in advance (geminiHookName).
			r.File, r.Pins = managedFiles[name], []hookEntry{{[]string{"hooksConfig", "enabled"}, "true"}}
		}
	case "copilot":
		r.File, r.Own = filepath.Join(userHome, ".copilot", "hooks", "hookctl.json"), true
		if scope == "managed" {
			r.File = managedFiles[name]
		}
		r.Group = `{"version":1,"hooks":{"preToolUse":[{"type":"command","bash":` + q(command) + `,"timeoutSec":30}]}}`
	case "cursor":
		// failClosed: without it Cursor runs the call when the hook fails.
		r.File, r.Keys, r.Init = filepath.Join(userHome, ".cursor", "hooks.json"), []string{"hooks", "preToolUse"}, `{"version":1}`
		r.Group = `{"command":` + q(command) + `,"timeout":30,"failClosed":true}`
		if scope == "managed" {
			r.File = managedFiles[name]
		}
	default:
		return hookRegistration{}, fmt.Errorf("unknown agent %q", name)
	}
	return r, nil
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

// oursFor recognises a group of hookctl's for client name, whatever binary path it names: a
// command whose first word is a hookctl and whose arguments are hook --agent NAME.
func oursFor(name string) hookfile.Ours {
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

// agentRecord is what install remembers of one client's registration, so that uninstall puts
// back exactly what was there: the file as install left it (by hash), whether install created
// it, the backup of what it held before, and Codex's trust block.
type agentRecord struct {
	File       string `json:"file"`
	Created    bool   `json:"created"`
	Installed  string `json:"installed_sha256"`
	Backup     string `json:"backup,omitempty"`
	TrustFile  string `json:"trust_file,omitempty"`
	TrustBlock string `json:"trust_block,omitempty"`
}

func recordPath(home, name, scope string) string {
	return filepath.Join(home, "agents", name+"-"+scope+".json")
}

func sha(b []byte) string { s := sha256.Sum256(b); return hex.EncodeToString(s[:]) }

// agentInstallRun is hookctl install (or uninstall) --agent NAME.
func agentInstallRun(s *streams, name string, opts *installOptions) error {
	env := hookEnv()
	if env.err != nil {
		return env.err
	}
	if env.binary == "" || env.userHome == "" {
		return errors.New("failed to find this binary's path or your home directory")
	}
	binary := linkedBinary(env.home) // a user's files name the link, which install points at this binary
	if opts.Scope == "managed" {
		binary = env.binary
	}
	r, err := agentRegistration(name, opts.Scope, env.userHome, binary)
	if err != nil {
		return err
	}
	a, _ := agentNamed(name)
	text, mode, existed, err := readSettingsFile(r.File)
	if err != nil {
		return err
	}
	r.settle(name, opts.Scope, text)
	rec := &agentRecord{}
	recFile := recordPath(env.home, name, opts.Scope)
	if b, err := fsutil.ReadFile(recFile, 1<<20, true); err == nil {
		if err := json.Unmarshal(b, rec); err != nil {
			return fmt.Errorf("%s is damaged: %v", recFile, err)
		}
	}
	var out []byte
	changed := false
	switch {
	case opts.Remove:
		out, changed, err = agentRemoval(r, name, rec, text, existed)
	case r.Own:
		out = append([]byte(r.Group), '\n')
		changed = string(out) != string(text)
	default:
		out, changed, err = r.addAll(text, oursFor(name))
	}
	if err != nil {
		return fmt.Errorf("%s: %w; nothing changed", r.File, err)
	}
	if !opts.Remove && name == "codex" && opts.Scope != "managed" {
		// Check before writing anything: without codex, install cannot make Codex trust the hook,
		// and Codex skips an untrusted hook without a word, so a half install would look done.
		if _, err := exec.LookPath("codex"); err != nil {
			return errors.New("codex is not on your PATH, and hookctl needs it to make Codex trust the hook (Codex skips untrusted hooks without a word); " +
				"nothing was changed. Put codex on your PATH and run hookctl install --agent codex again")
		}
	}
	if !opts.Remove && name == "codex" && opts.Scope == "managed" {
		if err := pinCodexHooks(s, codexRequirements, opts.DryRun); err != nil {
			return err
		}
	}
	verb := map[bool]string{false: "register hookctl in", true: "remove hookctl from"}[opts.Remove]
	if opts.DryRun {
		if !changed {
			fmt.Fprintf(s.out, "%s: nothing to change\n", r.File)
			return nil
		}
		fmt.Fprintf(s.out, "would %s %s:\n%s", verb, r.File, lineDiff(string(text), string(out)))
		return nil
	}
	if !opts.Remove && opts.Scope != "managed" {
		if err := linkBinaryAt(binary, env.binary); err != nil {
			return err
		}
	}
	if changed {
		if existed {
			backup, err := backUp(env.home, map[bool]string{false: "install", true: "uninstall"}[opts.Remove], r.File, text)
			if err != nil {
				return fmt.Errorf("failed to back up %s: %w", r.File, err)
			}
			if !opts.Remove && rec.File != r.File {
				rec.Backup = backup // the file as it was before hookctl, which uninstall puts back
			}
		}
		switch {
		case out == nil:
			if err := os.Remove(r.File); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
		default:
			if err := os.MkdirAll(filepath.Dir(r.File), 0o755); err != nil {
				return err
			}
			if err := fsutil.WriteAtomic(r.File, out, mode); err != nil {
				return fmt.Errorf("failed to write %s: %w", r.File, err)
			}
		}
		fmt.Fprintf(s.out, "%s %s\n", map[bool]string{false: "registered hookctl in", true: "removed hookctl from"}[opts.Remove], r.File)
	} else {
		fmt.Fprintf(s.out, "%s: already %s\n", r.File, map[bool]string{false: "registers hookctl", true: "holds no hookctl hook"}[opts.Remove])
	}
	if !opts.Remove {
		if changed {
			if rec.File != r.File {
				rec.File, rec.Created = r.File, !existed
			}
			rec.Installed = sha(out)
		}
		if name == "codex" && opts.Scope == "managed" {
			// Codex runs a hook of its system folder as managed: no trust to write, and none a
			// user's config can take away.
			confirmCodexManaged(s, r)
		} else if name == "codex" {
			if err := trustCodexHook(s, env, r, rec); err != nil {
				writeRecord(recFile, rec)
				return err
			}
		}
		if err := writeRecord(recFile, rec); err != nil {
			return err
		}
		fmt.Fprintf(s.out, "new %s sessions start 🔒 READ-ONLY; run `hookctl readonly off` in the session's shell to let the agent edit\n", a.Client.Name)
		if why, ok := repoSwitchesOff[name]; ok && opts.Scope != "managed" {
			fmt.Fprintf(s.out, "note: a repository's %s switches off user hooks; sudo hookctl install --agent %s --scope managed installs a hook no repository can\n", why, name)
		}
		return nil
	}
	if name == "codex" && rec.TrustBlock != "" {
		if err := removeTrustBlock(env.home, rec); err != nil {
			return err
		}
	}
	os.Remove(recFile)
	return nil
}

// agentRemoval is the file without hookctl's registration: the bytes that were there before
// install when the file is as install left it (nil when install created it), else the file with
// hookctl's group taken out in place.
func agentRemoval(r hookRegistration, name string, rec *agentRecord, text []byte, existed bool) ([]byte, bool, error) {
	if !existed {
		return nil, false, nil
	}
	if rec.File == r.File && rec.Installed == sha(text) {
		if rec.Created {
			return nil, true, nil
		}
		if rec.Backup != "" {
			b, err := fsutil.ReadFile(rec.Backup, 8<<20, true)
			if err == nil {
				return b, string(b) != string(text), nil
			}
		}
	}
	if r.Own {
		if !oursFor(name)(gjson.Get(string(text), "hooks.preToolUse.0")) {
			return text, false, nil // not hookctl's file after all: left alone
		}
		return nil, true, nil
	}
	return r.removeAll(text, oursFor(name))
}

func writeRecord(path string, rec *agentRecord) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return fsutil.WriteAtomic(path, append(mustJSON(rec), '\n'), 0o600)
}

// codexEnv is the environment codex app-server runs in: the user's own.
func codexEnv() []string { return os.Environ() }

// trustCodexHook makes Codex trust hookctl's hook as installed: Codex skips an untrusted or
// changed hook without a word, and the user running install is the human act trust stands for.
// It asks Codex for the hook's key and hash (app-server hooks/list), appends the trust to
// config.toml, and asks again to confirm that Codex now runs it.
func trustCodexHook(s *streams, env environment, r hookRegistration, rec *agentRecord) error {
	bin, err := exec.LookPath("codex")
	if err != nil {
		return errors.New("hookctl's hook is registered but NOT trusted, and Codex skips untrusted hooks: codex is not on your PATH, so hookctl cannot ask it for the hook's hash. Put codex on your PATH and run hookctl install --agent codex again")
	}
	cwd, _ := os.Getwd()
	hooks, err := codex.ListHooks(bin, codexEnv(), cwd)
	if err != nil {
		return fmt.Errorf("hookctl's hook is registered but could not be trusted: %w", err)
	}
	ours := codex.Ours(hooks, r.Command)
	if len(ours) < len(r.entries()) {
		return fmt.Errorf("hookctl's hooks are registered in %s, but Codex lists %d of %d", r.File, len(ours), len(r.entries()))
	}
	config := filepath.Join(codexHome(env.userHome), "config.toml")
	text, mode, existed, err := readSettingsFile(config)
	if err != nil {
		return err
	}
	// An earlier install's block goes, and every hook it trusted is trusted again as it is now,
	// with every hook not yet trusted. A hook trusted some other way (the user's /hooks) keeps
	// that trust; a table for it that hookctl did not write is left alone, and install stops
	// rather than write a second one, which Codex would not parse.
	old := ""
	if rec.TrustFile == config && strings.Contains(string(text), rec.TrustBlock) {
		old = rec.TrustBlock
	}
	rest := strings.Replace(string(text), old, "", 1)
	block := ""
	for _, h := range ours {
		table := "[hooks.state." + string(mustJSON(h.Key)) + "]"
		if h.TrustStatus == "trusted" && (old == "" || !strings.Contains(old, table)) {
			continue
		}
		if strings.Contains(rest, table) {
			return fmt.Errorf("%s already holds %s, which hookctl did not write, and Codex reports the hook %s: trust it in Codex with /hooks, or remove that table and run hookctl install --agent codex again", config, table, h.TrustStatus)
		}
		block += codex.TrustBlock(h)
	}
	if block == old {
		fmt.Fprintln(s.out, "Codex trusts hookctl's hooks")
		return nil
	}
	if existed {
		if _, err := backUp(env.home, "install", config, text); err != nil {
			return err
		}
	}
	text = []byte(rest)
	if err := fsutil.WriteAtomic(config, append(text, block...), mode); err != nil {
		return err
	}
	rec.TrustFile, rec.TrustBlock = config, block
	hooks, err = codex.ListHooks(bin, codexEnv(), cwd)
	if err != nil {
		return fmt.Errorf("hookctl trusted its hooks in %s but could not confirm it: %w", config, err)
	}
	for _, h := range codex.Ours(hooks, r.Command) {
		if h.TrustStatus != "trusted" {
			return fmt.Errorf("hookctl wrote its hooks' trust to %s, but Codex still reports %s %q: run codex and trust it with /hooks", config, h.Key, h.TrustStatus)
		}
	}
	fmt.Fprintf(s.out, "trusted hookctl's hooks in %s (Codex skips untrusted hooks)\n", config)
	return nil
}

// confirmCodexManaged asks Codex, where it is on the PATH, whether it runs the hooks just
// written as managed.
func confirmCodexManaged(s *streams, r hookRegistration) {
	bin, err := exec.LookPath("codex")
	if err != nil {
		fmt.Fprintf(s.out, "codex is not on this PATH: run hookctl doctor --agent codex as a user to confirm that Codex runs the hook\n")
		return
	}
	cwd, _ := os.Getwd()
	hooks, err := codex.ListHooks(bin, codexEnv(), cwd)
	if err != nil {
		fmt.Fprintf(s.out, "could not ask Codex about the hook: %v\n", err)
		return
	}
	n := 0
	for _, h := range codex.Ours(hooks, r.Command) {
		if h.TrustStatus == "managed" && h.Enabled {
			n++
		}
	}
	fmt.Fprintf(s.out, "Codex runs %d of hookctl's %d hooks as managed\n", n, len(r.entries()))
}

// removeTrustBlock takes install's trust block out of config.toml, exactly as it was added.
func removeTrustBlock(home string, rec *agentRecord) error {
	text, mode, existed, err := readSettingsFile(rec.TrustFile)
	if err != nil || !existed || !strings.Contains(string(text), rec.TrustBlock) {
		return err
	}
	if _, err := backUp(home, "uninstall", rec.TrustFile, text); err != nil {
		return err
	}
	return fsutil.WriteAtomic(rec.TrustFile, []byte(strings.Replace(string(text), rec.TrustBlock, "", 1)), mode)
}

// agentDoctorRun checks client name's registration: the hooks file holds hookctl's group as
// install writes it, the binary it names runs, and for Codex that Codex trusts it.
func agentDoctorRun(s *streams, name string) int {
	d := &doctor{s: s}
	env := hookEnv()
	if env.err != nil {
		d.problem("set HOOKCTL_HOME or HOME", "hookctl's home: %v", env.err)
		return d.problems
	}
	found := false
	a, _ := agentNamed(name)
	for _, scope := range agentScopes[name] {
		binary := linkedBinary(env.home)
		if scope == "managed" {
			binary = env.binary
		}
		r, err := agentRegistration(name, scope, env.userHome, binary)
		if err != nil {
			d.problem("report this", "%v", err)
			continue
		}
		text, _, existed, err := readSettingsFile(r.File)
		switch {
		case err != nil:
			d.problem("fix or remove the file", "%v", err)
			continue
		case !existed:
			continue
		}
		r.settle(name, scope, text)
		var exact bool
		if r.Own {
			exact = string(text) == r.Group+"\n"
		} else {
			_, changed, err := r.addAll(text, oursFor(name))
			exact = err == nil && !changed
		}
		registered := false
		if !r.Own {
			arr := gjson.GetBytes(text, strings.Join(r.Keys, "."))
			arr.ForEach(func(_, g gjson.Result) bool { registered = registered || oursFor(name)(g); return true })
		} else {
			registered = oursFor(name)(gjson.GetBytes(text, "hooks.preToolUse.0"))
		}
		if !registered {
			continue
		}
		found = true
		if !exact {
			d.problem("hookctl install --agent "+name+scopeFlag(scope), "%s registers hookctl, but not as install writes it (another binary, or settings changed)", r.File)
		} else {
			d.ok("%s registers hookctl (%s)", r.File, r.Command)
		}
		if fi, err := os.Stat(binary); err != nil || fi.Mode()&0o111 == 0 {
			d.problem("hookctl install --agent "+name, "%s, which the hook runs, is missing: every call is refused", binary)
		}
		if name == "codex" {
			doctorCodexTrust(d, r, scope)
			if scope == "managed" {
				doctorCodexPin(d)
			}
		}
		if why, ok := repoSwitchesOff[name]; ok && scope == "user" {
			d.note("⚠ %s: a repository's %s switches off user hooks; install the hook no repository can switch off with sudo hookctl install --agent %s --scope managed", a.Client.Name, why, name)
			if cwd, err := os.Getwd(); err == nil {
				if off := repoHooksOff(name, cwd); off != "" {
					d.problem("remove it, or install with --scope managed", "%s: EVERY hook is off in this project, hookctl's included — nothing is gated", off)
				}
			}
		}
	}
	if !found {
		d.problem("hookctl install --agent "+name, "no %s hooks file registers hookctl", name)
	}
	d.checkAgentSandbox(env, name)
	return d.problems
}

// checkAgentSandbox says where the client's admitted shell commands run: in the OS sandbox, or
// on hookctl's policy alone (the machine has no sandbox, or the client takes no rewrite).
func (d *doctor) checkAgentSandbox(env environment, name string) {
	a, _ := agentNamed(name)
	cfg, _ := gate.LoadConfig(env.home)
	st := sandbox.Current(env.home, env.binary)
	switch {
	case a.AsWritten:
		d.note("%s runs shell commands as it sent them (it takes no rewritten command): its admitted reads run on hookctl's policy alone, never in the OS sandbox, and reads that need the sandbox are refused", a.Client.Name)
	case st.Available:
		d.ok("%s", gate.Enforcement(isolationOf(st), cfg))
	default:
		d.note("%s\n    to get it: %s", gate.Enforcement(isolationOf(st), cfg), sandboxFix(st))
	}
}

func scopeFlag(scope string) string {
	if scope == "user" {
		return ""
	}
	return " --scope " + scope
}

// doctorCodexTrust asks Codex whether it runs hookctl's hook: an untrusted or changed hook is
// skipped without a word, the worst failure an installed gate can have.
func doctorCodexTrust(d *doctor, r hookRegistration, scope string) {
	bin, err := exec.LookPath("codex")
	if err != nil {
		d.problem("put codex on your PATH and run hookctl doctor --agent codex again", "cannot ask Codex whether it trusts hookctl's hook: codex is not on your PATH")
		return
	}
	cwd, _ := os.Getwd()
	hooks, err := codex.ListHooks(bin, codexEnv(), cwd)
	if err != nil {
		d.problem("run hookctl install --agent codex", "cannot ask Codex whether it trusts hookctl's hook: %v", err)
		return
	}
	ours := codex.Ours(hooks, r.Command)
	if len(ours) < len(r.entries()) {
		d.problem("hookctl install --agent codex", "Codex lists %d of hookctl's %d hooks for this directory", len(ours), len(r.entries()))
	}
	for _, h := range ours {
		switch {
		case !h.Enabled:
			d.problem("enable it in Codex (/hooks) or run hookctl install --agent codex", "Codex lists hookctl's %s hook as disabled: it does not run", h.EventName)
		case scope == "managed" && h.TrustStatus == "managed":
			d.ok("Codex runs hookctl's %s hook as managed (%s): no repository or user config can switch it off", h.EventName, h.Key)
		case h.TrustStatus != "trusted":
			d.problem("hookctl install --agent codex (it trusts the hook as installed)", "Codex reports hookctl's %s hook %s: it SKIPS it without a word, so nothing is gated", h.EventName, h.TrustStatus)
		default:
			d.ok("Codex trusts hookctl's %s hook (%s)", h.EventName, h.Key)
		}
	}
}

// settle makes r what install writes into text: the managed Gemini CLI hook keeps the name
// already there (geminiHookName).
func (r *hookRegistration) settle(name, scope string, text []byte) {
	if name == "gemini" && scope == "managed" {
		r.Group = strings.Replace(r.Group, `"name":"hookctl"`, `"name":`+string(mustJSON(geminiHookName(text, r.Keys, oursFor(name)))), 1)
	}
}

// repoHooksOff says how the project at dir switches off a user's hooks in client name (its
// settings file and the setting), or "".
func repoHooksOff(name, dir string) string {
	file, off := "", func(gjson.Result) bool { return false }
	switch name {
	case "codex":
		if file = filepath.Join(dir, ".codex", "config.toml"); codexHooksOffIn(file) {
			return file + " switches hooks off"
		}
		return ""
	case "gemini":
		file = filepath.Join(dir, ".gemini", "settings.json")
		off = func(s gjson.Result) bool {
			named := false
			s.Get("hooksConfig.disabled").ForEach(func(_, v gjson.Result) bool { named = named || v.Str == "hookctl"; return !named })
			return s.Get("hooksConfig.enabled").Type == gjson.False || named
		}
	case "qwen":
		file = filepath.Join(dir, ".qwen", "settings.json")
		off = func(s gjson.Result) bool { return s.Get("disableAllHooks").Bool() }
	default:
		return ""
	}
	b, err := fsutil.ReadFile(file, 1<<20, false)
	if err != nil || !off(gjson.ParseBytes(b)) {
		return ""
	}
	return file + " switches hooks off"
}

// geminiHookName is the name of the managed Gemini CLI hook already in text, or a new random
// one: Gemini CLI skips a hook whose name any settings file lists in hooksConfig.disabled, a
// repository's included, so the name must be one a repository's author cannot write down in
// advance; it is kept across installs so that install stays idempotent.
func geminiHookName(text []byte, keys []string, ours hookfile.Ours) string {
	root := gjson.ParseBytes(text)
	for _, k := range keys {
		root = root.Get(hookjson.Key(k))
	}
	name := ""
	root.ForEach(func(_, g gjson.Result) bool {
		if ours(g) {
			if n := g.Get("hooks.0.name").Str; strings.HasPrefix(n, "hookctl-") {
				name = n
			}
		}
		return name == ""
	})
	if name != "" {
		return name
	}
	b := make([]byte, 8)
	rand.Read(b)
	return "hookctl-" + hex.EncodeToString(b)
}
