package doctor

import (
	"os"
	"os/exec"
	"path/filepath"

	"github.com/hookctl/hookctl/agents/agentkit"
	"github.com/hookctl/hookctl/agents/claude"
	"github.com/hookctl/hookctl/agents/codex"
	"github.com/hookctl/hookctl/gate"
	"github.com/hookctl/hookctl/sandbox"
)

// Agent is a client other than Claude Code, as `hookctl doctor --agent NAME` checks it.
type Agent struct {
	Name      string // what --agent takes
	Client    string // its name for the user
	AsWritten bool   // it takes no rewritten shell command (agent.AsWritten)
	Install   agentkit.Install
}

// Agent checks client a's registration: the hooks file holds hookctl's group as install writes
// it, the binary it names runs, for Codex that Codex trusts it and the machine keeps its hooks
// on, whether the project switches user hooks off, where its shell commands run, and the logs'
// hash chains. It returns the number of problems.
func (d *Doctor) Agent(a Agent) int {
	env, name := d.Env, a.Name
	found := false
	for _, scope := range agentkit.Scopes {
		binary := filepath.Join(env.Home, claude.LinkedBinary)
		if scope == "managed" {
			binary = env.Binary
		}
		r := a.Install.Register(scope, env.UserHome, agentkit.HookCommand(binary, name))
		text, _, existed, err := agentkit.ReadSettingsFile(r.File)
		switch {
		case err != nil:
			d.Problem("fix or remove the file", "%v", err)
			continue
		case !existed:
			continue
		}
		if a.Install.Settle != nil {
			a.Install.Settle(&r, scope, text)
		}
		registered, exact := r.Registered(text, agentkit.Ours(name))
		if !registered {
			continue
		}
		found = true
		if !exact {
			d.Problem("hookctl install --agent "+name+scopeFlag(scope), "%s registers hookctl, but not as install writes it (another binary, or settings changed)", r.File)
		} else {
			d.OK("%s registers hookctl (%s)", r.File, r.Command)
		}
		if fi, err := os.Stat(binary); err != nil || fi.Mode()&0o111 == 0 {
			d.Problem("hookctl install --agent "+name, "%s, which the hook runs, is missing: every call is refused", binary)
		}
		if name == "codex" {
			d.codexTrust(r, scope)
			if scope == "managed" {
				d.codexPin()
			}
		}
		if why := a.Install.RepoSwitchesOff; why != "" && scope == "user" {
			d.Note("⚠ %s: a repository's %s switches off user hooks; install the hook no repository can switch off with sudo hookctl install --agent %s --scope managed", a.Client, why, name)
			if cwd, err := os.Getwd(); err == nil && a.Install.RepoHooksOff != nil {
				if off := a.Install.RepoHooksOff(cwd); off != "" {
					d.Problem("remove it, or install with --scope managed", "%s: EVERY hook is off in this project, hookctl's included — nothing is gated", off)
				}
			}
		}
	}
	if !found {
		d.Problem("hookctl install --agent "+name, "no %s hooks file registers hookctl", name)
	}
	d.agentSandbox(a)
	d.checkChains()
	return d.Problems
}

// agentSandbox says where the client's admitted shell commands run: in the OS sandbox, or
// on hookctl's policy alone (the machine has no sandbox, or the client takes no rewrite).
func (d *Doctor) agentSandbox(a Agent) {
	cfg, _ := gate.LoadConfig(d.Env.Home)
	st := sandbox.Current(d.Env.Home, d.Env.Binary)
	switch {
	case a.AsWritten:
		d.Note("%s runs shell commands as it sent them (it takes no rewritten command): its admitted reads run on hookctl's policy alone, never in the OS sandbox, and reads that need the sandbox are refused", a.Client)
	case st.Available:
		d.OK("%s", gate.Enforcement(d.Env.Isolation(st), cfg))
	default:
		d.Note("%s\n    to get it: %s", gate.Enforcement(d.Env.Isolation(st), cfg), SandboxFix(st))
	}
}

func scopeFlag(scope string) string {
	if scope == "user" {
		return ""
	}
	return " --scope " + scope
}

// codexTrust asks Codex whether it runs hookctl's hook: an untrusted or changed hook is
// skipped without a word, the worst failure an installed gate can have.
func (d *Doctor) codexTrust(r agentkit.Registration, scope string) {
	bin, err := exec.LookPath("codex")
	if err != nil {
		d.Problem("put codex on your PATH and run hookctl doctor --agent codex again", "cannot ask Codex whether it trusts hookctl's hook: codex is not on your PATH")
		return
	}
	cwd, _ := os.Getwd()
	hooks, err := codex.ListHooks(bin, os.Environ(), cwd)
	if err != nil {
		d.Problem("run hookctl install --agent codex", "cannot ask Codex whether it trusts hookctl's hook: %v", err)
		return
	}
	ours := codex.Ours(hooks, r.Command)
	if len(ours) < len(r.Entries()) {
		d.Problem("hookctl install --agent codex", "Codex lists %d of hookctl's %d hooks for this directory", len(ours), len(r.Entries()))
	}
	for _, h := range ours {
		switch {
		case !h.Enabled:
			d.Problem("enable it in Codex (/hooks) or run hookctl install --agent codex", "Codex lists hookctl's %s hook as disabled: it does not run", h.EventName)
		case scope == "managed" && h.TrustStatus == "managed":
			d.OK("Codex runs hookctl's %s hook as managed (%s): no repository or user config can switch it off", h.EventName, h.Key)
		case h.TrustStatus != "trusted":
			d.Problem("hookctl install --agent codex (it trusts the hook as installed)", "Codex reports hookctl's %s hook %s: it SKIPS it without a word, so nothing is gated", h.EventName, h.TrustStatus)
		default:
			d.OK("Codex trusts hookctl's %s hook (%s)", h.EventName, h.Key)
		}
	}
}

// codexPin says whether the machine's requirements keep Codex's hooks on.
func (d *Doctor) codexPin() {
	text, _, existed, err := agentkit.ReadSettingsFile(codex.Requirements)
	if err != nil {
		d.Problem("fix or remove the file", "%v", err)
		return
	}
	if _, on, err := codex.Features(text); existed && err == nil && on != nil && *on {
		d.OK("%s keeps Codex's hooks on: no repository can switch them off", codex.Requirements)
		return
	}
	d.Problem("sudo hookctl install --agent codex --scope managed", "%s does not say [features] hooks = true: a repository's .codex/config.toml can switch off every Codex hook, hookctl's managed one included", codex.Requirements)
}
