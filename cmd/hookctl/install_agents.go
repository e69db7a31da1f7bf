package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/hookctl/hookctl/agents/agentkit"
	"github.com/hookctl/hookctl/agents/codex"
	"github.com/hookctl/hookctl/agents/copilot"
	"github.com/hookctl/hookctl/agents/cursor"
	"github.com/hookctl/hookctl/agents/gemini"
	"github.com/hookctl/hookctl/agents/qwen"
	"github.com/hookctl/hookctl/doctor"
	"github.com/hookctl/hookctl/internal/fsutil"
)

// installs are the installations of the clients other than Claude Code, each its adapter's.
var installs = map[string]agentkit.Install{"codex": codex.Install, "qwen": qwen.Install, "gemini": gemini.Install,
	"copilot": copilot.Install, "cursor": cursor.Install}

// agentRegistration is install's registration of hookctl, as binary, for client name in scope.
// Each timeout leaves hookctl's own deadline (hook.Deadline) far inside the client's: a client
// that timed the hook out would run the call (Codex, Gemini CLI, Qwen Code, Copilot CLI).
func agentRegistration(name, scope, userHome, binary string) (agentkit.Registration, error) {
	inst, known := installs[name]
	if !known {
		return agentkit.Registration{}, fmt.Errorf("unknown agent %q", name)
	}
	if !slices.Contains(agentkit.Scopes, scope) {
		return agentkit.Registration{}, fmt.Errorf("hookctl install --agent %s takes --scope %s", name, strings.Join(agentkit.Scopes, " or "))
	}
	return inst.Register(scope, userHome, agentkit.HookCommand(binary, name)), nil
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
	text, mode, existed, err := agentkit.ReadSettingsFile(r.File)
	if err != nil {
		return err
	}
	settle(&r, name, opts.Scope, text)
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
		out, changed, err = r.AddAll(text, agentkit.Ours(name))
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
		if err := pinCodexHooks(s, codex.Requirements, opts.DryRun); err != nil {
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
		if why := installs[name].RepoSwitchesOff; why != "" && opts.Scope != "managed" {
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
func agentRemoval(r agentkit.Registration, name string, rec *agentRecord, text []byte, existed bool) ([]byte, bool, error) {
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
		if !agentkit.Ours(name)(gjson.Get(string(text), "hooks.preToolUse.0")) {
			return text, false, nil // not hookctl's file after all: left alone
		}
		return nil, true, nil
	}
	return r.RemoveAll(text, agentkit.Ours(name))
}

func writeRecord(path string, rec *agentRecord) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return fsutil.WriteAtomic(path, append(agentkit.JSON(rec), '\n'), 0o600)
}

// codexEnv is the environment codex app-server runs in: the user's own.
func codexEnv() []string { return os.Environ() }

// trustCodexHook makes Codex trust hookctl's hook as installed: Codex skips an untrusted or
// changed hook without a word, and the user running install is the human act trust stands for.
// It asks Codex for the hook's key and hash (app-server hooks/list), appends the trust to
// config.toml, and asks again to confirm that Codex now runs it.
func trustCodexHook(s *streams, env environment, r agentkit.Registration, rec *agentRecord) error {
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
	if len(ours) < len(r.Entries()) {
		return fmt.Errorf("hookctl's hooks are registered in %s, but Codex lists %d of %d", r.File, len(ours), len(r.Entries()))
	}
	config := filepath.Join(codex.Home(env.userHome), "config.toml")
	text, mode, existed, err := agentkit.ReadSettingsFile(config)
	if err != nil {
		return err
	}
	// An earlier install's block goes (codex.Trust), if the file still holds it as written.
	old := ""
	if rec.TrustFile == config && strings.Contains(string(text), rec.TrustBlock) {
		old = rec.TrustBlock
	}
	rest, block, err := codex.Trust(config, string(text), old, ours)
	if err != nil {
		return err
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
func confirmCodexManaged(s *streams, r agentkit.Registration) {
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
	fmt.Fprintf(s.out, "Codex runs %d of hookctl's %d hooks as managed\n", n, len(r.Entries()))
}

// removeTrustBlock takes install's trust block out of config.toml, exactly as it was added.
func removeTrustBlock(home string, rec *agentRecord) error {
	text, mode, existed, err := agentkit.ReadSettingsFile(rec.TrustFile)
	if err != nil || !existed || !strings.Contains(string(text), rec.TrustBlock) {
		return err
	}
	if _, err := backUp(home, "uninstall", rec.TrustFile, text); err != nil {
		return err
	}
	return fsutil.WriteAtomic(rec.TrustFile, []byte(strings.Replace(string(text), rec.TrustBlock, "", 1)), mode)
}

// agentDoctorRun checks client name's registration (doctor.Doctor.Agent).
func agentDoctorRun(s *streams, name string) int {
	env := hookEnv()
	d := newDoctor(s, env)
	if env.err != nil {
		d.Problem("set HOOKCTL_HOME or HOME", "hookctl's home: %v", env.err)
		return d.Problems
	}
	a, _ := agentNamed(name)
	return d.Agent(doctor.Agent{Name: name, Client: a.Client.Name, AsWritten: a.AsWritten, Install: installs[name]})
}

// settle makes r what install writes into text, the file as it is (agentkit.Install.Settle).
func settle(r *agentkit.Registration, name, scope string, text []byte) {
	if f := installs[name].Settle; f != nil {
		f(r, scope, text)
	}
}

// pinCodexHooks makes the machine's requirements say hooks are on: it writes the file where
// there is none, adds the table where the file has no features table, and otherwise leaves an
// administrator's file alone, saying what to add. Uninstall leaves the pin: on is Codex's default.
func pinCodexHooks(s *streams, path string, dryRun bool) error {
	text, mode, _, err := agentkit.ReadSettingsFile(path)
	if err != nil {
		return err
	}
	present, hooks, err := codex.Features(text)
	switch {
	case err != nil:
		return fmt.Errorf("%s does not parse (%v): nothing changed", path, err)
	case hooks != nil && *hooks:
		return nil
	case present:
		return fmt.Errorf("%s has a [features] table without hooks = true, so a repository's .codex/config.toml can switch off every Codex hook, hookctl's managed one included: add hooks = true to that table and run this again", path)
	}
	out := append([]byte(nil), text...)
	if len(out) > 0 && out[len(out)-1] != '\n' {
		out = append(out, '\n')
	}
	if len(out) > 0 {
		out = append(out, '\n')
	}
	out = append(out, codex.HooksOn...)
	if _, on, err := codex.Features(out); err != nil || on == nil || !*on {
		return fmt.Errorf("%s: adding %q would not parse as hooks on; nothing changed", path, codex.HooksOn)
	}
	if dryRun {
		fmt.Fprintf(s.out, "would pin Codex's hooks on in %s:\n%s", path, lineDiff(string(text), string(out)))
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	if err := fsutil.WriteAtomic(path, out, mode); err != nil {
		return fmt.Errorf("failed to write %s: %w", path, err)
	}
	fmt.Fprintf(s.out, "pinned Codex's hooks on in %s (a repository's .codex/config.toml could otherwise switch them off)\n", path)
	return nil
}
