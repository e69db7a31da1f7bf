package policy

import (
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"mvdan.cc/sh/v3/syntax"

	"github.com/hookctl/hookctl/config"
	"github.com/hookctl/hookctl/hook"
	"github.com/hookctl/hookctl/internal/clip"
	"github.com/hookctl/hookctl/lexer"
)

// Isolation is how the commands the policy admits run on this machine.
type Isolation struct {
	// Available: admitted read-only commands run in hookctl's OS sandbox.
	Available bool
	// Reason says why not, in the user's terms.
	Reason string
	// Describe names the sandbox's mechanisms ("landlock ABI 7, seccomp, no capabilities").
	Describe string
	// Edit: edit mode's commands run in the edit profile; EditReason says why not.
	Edit       bool
	EditReason string
	// Failing and EditFailing: the sandbox held on this machine and does not now. That is never a
	// reason to run a command without it (something a command did, such as a link planted at a
	// hidden path, could have caused it): every shell command the profile would hold is refused.
	Failing, EditFailing bool
	// EditLandlock, where Edit is false: edit mode's commands run in the Landlock-only edit
	// profile (no namespaces here: issue 28).
	EditLandlock bool
	// PolicyOnly, where Available is false, names what the policy-only launch still holds (a
	// seccomp filter, no_new_privs, no capabilities: issue 28), or "".
	PolicyOnly string
	// Launcher is the read-only launcher's executable beside hookctl's (hookctl-sandbox), which
	// admitted read-only and policy-only commands start in, and Build the digest of the build it
	// must come from (it refuses to run for another). "": they start in `hookctl sandbox`.
	Launcher, Build string
}

// Status is the sandbox's state in a few words, for a session start's record: "sandbox"
// (with its mechanisms), "failing" or "policy-only" (with why), then edit mode's the same way.
func (i Isolation) Status() string {
	s := "read-only: "
	switch {
	case i.Failing:
		s += "failing (" + i.Reason + ")"
	case i.Available:
		s += "sandbox (" + i.Describe + ")"
	default:
		s += "policy-only (" + i.Reason + ")"
	}
	switch {
	case i.EditFailing:
		return s + "; edit: failing (" + i.EditReason + ")"
	case i.Edit:
		return s + "; edit: sandbox"
	case i.EditLandlock:
		return s + "; edit: Landlock-only sandbox (" + i.EditReason + ")"
	}
	return s + "; edit: policy-only (" + i.EditReason + ")"
}

// Publish says whether review mode's approved publishes run in the publish profile: the
// read-only profile with a network namespace whose one way out is the egress proxy, which needs
// both what the read-only profile and what the edit profile's namespaces need.
func (i Isolation) Publish() (bool, string) {
	switch {
	case i.Failing:
		return false, "the sandbox held here before and cannot apply now: " + i.Reason
	case i.EditFailing:
		return false, "edit mode's sandbox held here before and cannot apply now: " + i.EditReason
	}
	switch {
	case !i.Available:
		return false, i.Reason
	case !i.Edit:
		return false, i.EditReason
	}
	return true, ""
}

// PolicyOnlyBadge is what the status line adds where commands run on the policy alone.
const PolicyOnlyBadge = "(policy only)"

// contain rewrites an admitted read-only command to run in the sandbox: hookctl's launcher
// applies the read-only profile to itself and execs a clean shell on exactly the judged
// command. A leading `cd DIR &&` stays outside, so that the client's shell keeps the
// directory for the session's next command as it would have without the sandbox.
//
// Where the sandbox cannot apply, the command runs as judged, on the policy alone, unless the
// user's config requires the sandbox. A lone hookctl read (check, readonly status) runs
// outside: it reads hookctl's own directory, which the sandbox hides.
//
// A runner (Config.ReadOnlyRunners) runs only in the sandbox: it runs the repository's code; so
// does a program whose rule says it may run what no rule sees (programs.Program.SandboxOnly).
func (p *Policy) contain(c *hook.ToolCall, sc *lexer.Script, need sandboxNeed, isolation func() Isolation, d hook.Decision) hook.Decision {
	if need == (sandboxNeed{}) && hookctlOnly(sc) && p.Binary != "" {
		d.Command = lexer.Print(sc, func(c *lexer.SimpleCommand) lexer.Printed {
			pr := rewriteFor(p.Config)(c)
			pr.Words[0] = lexer.Word{Value: p.Binary}
			return pr
		})
		d.Isolation = "hookctl's own read, outside the sandbox"
		return d
	}
	iso := isolation()
	if need.launcher != "" && len(p.LaunchProfile) > 0 {
		// A launch profile of the caller's (hookctl run's secure-read-only) passes the run's
		// environment, not the read-only allowlist.
		return hook.Decision{Verdict: hook.Deny, Reason: "hookctl read-only: " + need.launcher + ", and this session's commands run in " +
			strings.Join(p.LaunchProfile[:min(2, len(p.LaunchProfile))], " ") + ", whose environment is the run's; name the variables: printenv HOME PATH."}
	}
	if !iso.Available {
		if need.runner {
			return hook.Decision{Verdict: hook.Deny, Reason: "hookctl read-only: `" + clip.Short(lexer.Print(sc, nil)) + "` is one of your read_only_runners, " +
				"which run the repository's code and so run only in the sandbox, and it cannot apply: " + iso.Reason +
				". Ask the user to leave read-only mode to run it (they " + p.Client.ToEdit() + ")."}
		}
		if need.why != "" {
			return hook.Decision{Verdict: hook.Deny, Reason: "hookctl read-only: " + need.why + ", so it runs only in the sandbox, and the sandbox cannot apply: " + iso.Reason +
				". Read the files it would read (go.mod, Cargo.toml, package.json, their lock files) with cat or rg instead, or ask the user to leave read-only mode (they " + p.Client.ToEdit() + ")."}
		}
		if iso.Failing {
			return hook.Decision{Verdict: hook.Deny, Reason: "hookctl: the sandbox held on this machine before and cannot apply now: " + iso.Reason +
				". No command runs without it until it holds again; ask the user to run `hookctl doctor`."}
		}
		if p.Config.Sandbox == config.SandboxRequire {
			return hook.Decision{Verdict: hook.Deny, Reason: "hookctl: your config requires the sandbox (sandbox = \"require\"), " +
				"and it cannot apply: " + iso.Reason + ". No command runs until it can; ask the user to run `hookctl doctor`."}
		}
		d.Isolation = "policy only: " + iso.Reason
		if c.NoRewrite || p.Binary == "" {
			return d
		}
		// Where the kernel's sandbox cannot apply, hookctl's launcher still gives the command
		// its environment allowlist and its time bound (docs/decisions/0012-environment.md).
		d.Command = p.launch(leadingCdOf(sc), p.readOnlyLauncher(iso), append([]string{"--profile", PolicyOnlyProfile, "--session", c.Session}, p.commandFlags(c)...), printBody(sc, p.Config))
		d.Isolation += "; hookctl's launcher: environment allowlist, time bound"
		if iso.PolicyOnly != "" {
			d.Isolation += ", " + iso.PolicyOnly
		}
		return d
	}
	flags := append(append([]string{}, p.LaunchProfile...), "--session", c.Session)
	if len(p.LaunchProfile) == 0 {
		flags = append(flags, p.commandFlags(c)...)
	}
	d.Command = p.launch(leadingCdOf(sc), p.readOnlyLauncher(iso), flags, printBody(sc, p.Config))
	d.Isolation = "sandbox: " + iso.Describe
	return d
}

// EditLandlockProfile is the launcher's edit profile where the kernel gives no namespaces:
// Landlock and the seccomp filter alone (sandbox.EditLandlock).
const EditLandlockProfile = "edit-landlock"

// PolicyOnlyProfile is the launcher's profile where the sandbox cannot apply (`hookctl sandbox
// --profile policy-only`): the read-only profile's environment and time bound, no kernel rules.
const PolicyOnlyProfile = "policy-only"

// leadingCdOf is the script's leading `cd DIR`, as the client's shell runs it, or "".
func leadingCdOf(sc *lexer.Script) string {
	if sc.Cd == nil {
		return ""
	}
	return "cd " + lexer.FormatWord(*sc.Cd)
}

// printBody is the script without its leading cd, as the launched shell runs it.
func printBody(sc *lexer.Script, cfg *config.Config) string {
	body := *sc
	body.Cd = nil
	return lexer.Print(&body, rewriteFor(cfg))
}

// commandFlags are the launcher's for an admitted read-only command: its bound, the config's
// command_timeout or the call's own timeout when the client sends a longer one (Claude Code's
// Bash, up to its 10 minutes), so that the client, not hookctl, cuts a run the model asked to
// be long; and the variables the config adds to its environment (pass_env), as this call read
// the config, since the launcher reads none.
func (p *Policy) commandFlags(c *hook.ToolCall) []string {
	d := p.Config.Timeout()
	if ms := gjson.GetBytes(c.Input, "timeout"); ms.Type == gjson.Number {
		if t := time.Duration(ms.Int()) * time.Millisecond; t > d {
			d = min(t, config.MaxCommandTimeout)
		}
	}
	flags := []string{"--timeout", d.String()}
	for _, n := range p.Config.PassEnv {
		flags = append(flags, "--pass-env="+n) // one word: a name may start with "-"
	}
	return flags
}

// isolation is what can hold c's command: the probe's answer, unless the client takes no
// rewrite or hookctl does not know its own path.
func (p *Policy) isolation(c *hook.ToolCall) Isolation {
	none := func(why string) Isolation { return Isolation{Reason: why, EditReason: why} }
	switch {
	case c.NoRewrite:
		return none("the client runs " + c.Tool + " commands as it received them (no rewrite)")
	case p.Binary == "":
		return none("hookctl does not know its own path")
	case p.Sandbox == nil:
		return none("hookctl has no sandbox here")
	}
	return p.Sandbox()
}

// launch is the command that runs script in the sandbox: the launcher's words, its flags, and
// after cd (run in the client's shell) if it is set.
func (p *Policy) launch(cd string, launcher, flags []string, script string) string {
	var b strings.Builder
	if cd != "" {
		b.WriteString(cd)
		b.WriteString(" && ")
	}
	b.WriteString(lexer.Quote(launcher[0]))
	for _, w := range launcher[1:] {
		b.WriteByte(' ')
		b.WriteString(lexer.Quote(w))
	}
	for _, f := range flags {
		b.WriteByte(' ')
		b.WriteString(lexer.Quote(f))
	}
	b.WriteString(" -- bash --noprofile --norc -c ")
	b.WriteString(lexer.Quote(script))
	return b.String()
}

// sandboxVerb starts hookctl's launcher of every profile: `hookctl sandbox`.
func (p *Policy) sandboxVerb() []string { return []string{p.Binary, "sandbox"} }

// readOnlyLauncher starts an admitted read-only or policy-only command: in the read-only
// launcher's own executable where it is installed (iso.Launcher), whose start-up is a small
// program's rather than all of hookctl's (issue 28), unless a run's profile is asked for.
func (p *Policy) readOnlyLauncher(iso Isolation) []string {
	if iso.Launcher == "" || len(p.LaunchProfile) > 0 {
		return p.sandboxVerb()
	}
	return []string{iso.Launcher, "--build", iso.Build}
}

// hookctlOnly says whether the script is one hookctl command and nothing else.
func hookctlOnly(sc *lexer.Script) bool {
	return sc.Cd == nil && len(sc.Items) == 1 && sc.Items[0].Pipeline != nil && len(sc.Items[0].Pipeline.Cmds) == 1 &&
		sc.Items[0].Pipeline.Cmds[0].Name.Value == "hookctl"
}

// containEdit rewrites an edit-mode shell command, which the guard passed, to run in the edit
// profile of the sandbox: it may write the session's project, the temporary directories and the
// tool caches, but not hookctl's files or the client's settings, whatever spelling it finds.
// The command is the agent's own text, unchanged (what the guard judged), run by a clean bash;
// a leading `cd DIR &&` stays outside, so the directory carries over as before. The verdict
// stays Pass: the client's own permission rules still decide (the adapter sends the rewrite
// without a permission decision). Where the edit profile cannot apply, the command runs as
// passed, unless the config requires the sandbox.
func (p *Policy) containEdit(c *hook.ToolCall, cl *lexer.CommandLine, st SessionState) hook.Decision {
	iso := p.isolation(c)
	if strings.IndexByte(cl.Src, 0) >= 0 {
		// No shell argument can carry a NUL: the command run would not be the one judged.
		return hook.Decision{Verdict: hook.Deny, Reason: "hookctl edit-mode guard: the command holds a NUL byte, which no shell reads as written; send it without one."}
	}
	if !iso.Edit {
		if iso.EditFailing {
			return hook.Decision{Verdict: hook.Deny, Reason: "hookctl: edit mode's sandbox held on this machine before and cannot apply now: " + iso.EditReason +
				". No command runs without it until it holds again; ask the user to run `hookctl doctor`."}
		}
		if p.Config.Sandbox == config.SandboxRequire && !iso.EditLandlock {
			return hook.Decision{Verdict: hook.Deny, Reason: "hookctl: your config requires the sandbox (sandbox = \"require\"), " +
				"and edit mode's cannot apply: " + iso.EditReason + ". No command runs until it can; ask the user to run `hookctl doctor`."}
		}
		if !iso.EditLandlock {
			return hook.Decision{Verdict: hook.Pass, Isolation: "policy only: " + iso.EditReason}
		}
	}
	project := st.Project
	if project == "" {
		project = c.Cwd
	}
	// A lone hookctl retrieve: the prefix first, since the shape parse and its cross-check are
	// not worth running on every edit-mode command.
	if strings.HasPrefix(strings.TrimSpace(cl.Src), "hookctl ") {
		if sc, err := cl.Shape(); err == nil && hookctlOnly(sc) && len(sc.Items[0].Pipeline.Cmds[0].Args) > 0 && sc.Items[0].Pipeline.Cmds[0].Args[0].Value == "retrieve" {
			// A retrieval runs outside the sandbox, where it can write its audit: it has its own
			// isolation, and the guard refused the HOOKCTL_* variables that could move the audit.
			return hook.Decision{Verdict: hook.Pass, Command: lexer.Print(sc, func(c *lexer.SimpleCommand) lexer.Printed {
				return lexer.Printed{Words: append([]lexer.Word{{Value: p.Binary}}, c.Args...)}
			}), Isolation: "the quarantined retriever (its own isolation)"}
		}
	}
	cd, rest := leadingCd(cl)
	if cd != "" && rest == "" {
		// A lone cd is the shell's own builtin: nothing to contain, and it must move the
		// client's shell, not a sandboxed one.
		return hook.Decision{Verdict: hook.Pass, Isolation: "a cd, in the client's shell"}
	}
	profile, under := "edit", "edit sandbox: "+iso.Describe
	if !iso.Edit {
		// No namespaces here: Landlock and the filter alone (EditEnforcement says what holds).
		profile, under = EditLandlockProfile, "Landlock-only edit sandbox (no namespaces: "+iso.EditReason+")"
	}
	return hook.Decision{Verdict: hook.Pass, Command: p.launch(cd, p.sandboxVerb(), []string{"--profile", profile, "--session", c.Session, "--project", project}, rest),
		Isolation: under}
}

// leadingCd splits `cd DIR && REST` into the cd, as written, and REST's own text, when DIR is
// a literal the hand lexer reads alone; a lone `cd DIR` gives an empty REST; otherwise it
// returns "" and the whole command.
func leadingCd(cl *lexer.CommandLine) (cd, rest string) {
	f, err := cl.Tree()
	if err != nil || len(f.Stmts) != 1 {
		return "", cl.Src
	}
	s := f.Stmts[0]
	if call, ok := s.Cmd.(*syntax.CallExpr); ok && len(call.Args) == 2 && len(call.Assigns) == 0 && len(s.Redirs) == 0 && !s.Negated && !s.Background {
		name, _ := lexer.Literal(call.Args[0])
		if dir, ok := lexer.Literal(call.Args[1]); name == "cd" && ok && dir != "" {
			return "cd " + lexer.Quote(dir), "" // the whole command is this cd
		}
	}
	bin, ok := s.Cmd.(*syntax.BinaryCmd)
	if !ok || bin.Op != syntax.AndStmt || s.Negated || s.Background || len(s.Redirs) > 0 || len(bin.X.Redirs) > 0 || bin.X.Negated {
		return "", cl.Src
	}
	call, ok := bin.X.Cmd.(*syntax.CallExpr)
	if !ok || len(call.Assigns) > 0 || len(call.Args) != 2 {
		return "", cl.Src
	}
	name, _ := lexer.Literal(call.Args[0])
	dir, ok := lexer.Literal(call.Args[1])
	if name != "cd" || !ok || dir == "" {
		return "", cl.Src
	}
	end := int(bin.Y.End().Offset())
	if end != len(strings.TrimRight(cl.Src, " \t\n;")) {
		return "", cl.Src
	}
	return "cd " + lexer.Quote(dir), cl.Src[bin.Y.Pos().Offset():]
}
