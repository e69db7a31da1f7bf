package policy

import (
	"errors"
	"path/filepath"
	"strings"

	"github.com/hookctl/hookctl/config"
	"github.com/hookctl/hookctl/hook"
	"github.com/hookctl/hookctl/internal/clip"
	"github.com/hookctl/hookctl/lexer"
	"github.com/hookctl/hookctl/programs"
	"github.com/hookctl/hookctl/programs/editguard"
	"github.com/hookctl/hookctl/retriever"
	"github.com/hookctl/hookctl/route"
	"github.com/hookctl/hookctl/scrub"
)

// Policy decides tool calls. It does no I/O: config and session state are read before it runs,
// so no I/O failure can turn into an allow.
type Policy struct {
	Config *config.Config
	// Client names the agent's client in messages and its toggle command.
	Client hook.Client
	// Protection lists what no agent may write, in any mode; if it is empty, Protect is asked for
	// it when a call needs it (edit mode), since listing it costs more than judging a read.
	Protection Protection
	Protect    func() Protection
	// Resolve resolves the paths a file tool writes, and the protected set, as the kernel will
	// reach them (ResolveTargets), so that a link cannot carry a write past the comparison. Nil:
	// paths are compared as written.
	Resolve func(paths []string, prot Protection) Resolution
	// ResolveReads resolves the absolute paths a read names as the kernel will reach them, and
	// finds hard links to credential files (ResolveReads), for the sensitive-file rule. Nil:
	// paths are judged as written and made absolute.
	ResolveReads func(paths []string) []Target
	// Walk judges the walks of a command's recursive readers by where they can go (Walk), and
	// ReadList reads a file of names a command reads names from (ReadList), for the
	// sensitive-file rule. Nil: walks are judged by their words only, and a file of names is
	// refused.
	Walk     func(reqs []WalkRequest) *WalkHit
	ReadList func(path string, sep byte) ([]string, error)
	// Binary is hookctl's own path, which the rewrite of a web read runs as `hookctl retrieve`,
	// and an admitted command as `hookctl sandbox`.
	Binary string
	// Sandbox says whether admitted commands can run in the OS sandbox; asked only when one is
	// admitted. Nil: they cannot, and run on the policy alone.
	Sandbox func() Isolation
	// LaunchProfile are the launcher's flags that choose its profile for an admitted read-only
	// command, before --session; nil is the read-only profile. A hookctl run's hooks give the
	// run's own profile, secure-read-only, with the run's roots (the read-only profile reads the
	// whole tree but hookctl's directories, which the run's sandbox around it does not allow).
	LaunchProfile []string
	// GH finds the gh executable a review-mode publish runs (an absolute path), and Secrets
	// is the scrubber its text must pass; each asked only when a publish is judged. Nil: review
	// mode publishes nothing.
	GH      func() (string, error)
	Secrets func() *scrub.Scrubber
	// GitHubRepo names the repository a GitHub read that names none reads, as gh would find it
	// among the project's git remotes (ProjectGitHubRepo): the remote named, or gh's choice for
	// "". "" when there is none. Asked only when such a read is judged. Nil: none is found.
	GitHubRepo func(remote string) string
	// GitHubRepoAt and GitBranchAt are GitHubRepo and GitBranch for another directory: the one
	// a `cd DIR &&` before a gh read moves to.
	GitHubRepoAt func(dir, remote string) string
	GitBranchAt  func(dir string) string
	// GitBranch names the branch the project's HEAD is on (ProjectBranch), for a gh read of
	// "the current branch's pull request"; "" when detached or unknown. Asked only then.
	GitBranch func() string
	// GHRepo is GH_REPO in the client's environment (which the agent's shell inherits, and the
	// agent cannot change): the repository gh reads when a command names none.
	GHRepo string
	// ClientRules loads the client's own permission rules (clientrules.go), asked only when a
	// shell call is admitted with a rewrite. Nil: the client judges the rewrite itself.
	ClientRules func() ClientRules
	// World answers what the command's globs match and where the user's home is.
	World World
}

// World is how the policy asks the machine what a command alone does not say: the one port of
// its own questions (the func fields of Policy are the others, asked of the hook's process).
// internal/shellglob's World answers from this machine; the policy does no I/O itself, so that no I/O failure
// can turn into an allow. A nil World knows nothing: no glob can be checked, no home is known.
type World interface {
	// Globs returns the expander of one command's globs (Globber), its bounds shared by all.
	Globs() Globber
	// Home is the user's home directory, "" when unknown.
	Home() string
}

// Globber returns the existing paths pattern matches, as the shell that runs the command will
// expand it (zsh: with its recursive **/ and ***/), or an error when it cannot say within its
// bounds. (An alias, so that a World need not import this package: internal/shellglob's.)
type Globber = func(pattern string, zsh bool) ([]string, error)

// world is p's World, or one that knows nothing.
func (p *Policy) world() World {
	if p.World != nil {
		return p.World
	}
	return noWorld{}
}

type noWorld struct{}

func (noWorld) Globs() Globber {
	return func(string, bool) ([]string, error) {
		return nil, errors.New("hookctl cannot check here which files the glob matches; name the files")
	}
}
func (noWorld) Home() string { return "" }

// SessionState is a session's mode as the policy sees it. When the state could not be read,
// Mode is read-only and Warning says why.
type SessionState struct {
	Mode    hook.Mode
	Warning string
	// Project is where the session was first seen, which edit mode's sandbox lets it write;
	// empty if unknown (then the call's own directory).
	Project string
	// Plan says the client is in its own plan mode: the user asked for a plan, not changes, so
	// the call is judged by read-only rules whatever the session's mode.
	Plan bool
}

// Protection is what no agent may write in any mode: hookctl's config, state and binary, the
// client's settings files (Client.Settings), shell start-up files.
type Protection struct {
	Home  string   // the user's home directory
	Paths []string // absolute files and directories
	// Names are relative paths protected in every directory (Client.SettingsNames).
	Names []string
	// FoldCase says the home or project directory's file system ignores case (FoldsCase).
	FoldCase bool
	// Uninstaller is hookctl's uninstall.sh: hookctl uninstall without the binary.
	Uninstaller string
	// AutoRun are the project's files that run code later outside any sandbox (git's hooks
	// and config, .envrc, …): edit mode's file tools may not write them (AutoRun).
	AutoRun []AutoRunPath
}

// UninstallScript is the name, in hookctl's home, of the script install writes that removes
// hookctl's hooks without the hookctl binary (agents/claude's uninstall.sh).
const UninstallScript = "uninstall.sh"

// scope says why read-only rules bind a call, so the deny reason can say what to do.
type scope uint8

const (
	scopeSession scope = iota + 1 // the session is in read-only mode
	scopeAgent                    // the agent type is read-only in every mode
	scopeReview                   // the session is in review mode: read-only plus publishing
	scopePlan                     // the client is in plan mode: read-only whatever the session's mode
)

// Decide judges one tool call made in a session in state st: hookctl's own rules first, then,
// for a command it has the client run rewritten, the user's own permission rules on the command
// as written (withClientRules).
//
// A command is parsed once, here, and every judge reads that one parse (lexer.CommandLine).
func (p *Policy) Decide(c *hook.ToolCall, st SessionState) hook.Decision {
	var cl *lexer.CommandLine
	if c.Command != "" {
		cl = lexer.NewCommandLine(c.Command)
	}
	return p.withClientRules(c, cl, p.decide(c, cl, st))
}

func (p *Policy) decide(c *hook.ToolCall, cl *lexer.CommandLine, st SessionState) hook.Decision {
	ruled := func(d hook.Decision, rule string) hook.Decision {
		if d.Rule == "" {
			d.Rule = rule
		}
		return d
	}
	if d, ok := p.modeChangeByModel(c); ok {
		return ruled(d, "mode change by the model")
	}
	// A shell command is routed once: review and network read the same route.
	var rt *route.Route
	var rr *programs.Refusal
	if cl != nil && (c.Kind == hook.KindShell || c.Kind == hook.KindOther) {
		rt, rr = route.RouteNetwork(cl)
	}
	if st.Mode == hook.ModeReview && !st.Plan && !p.Config.ReadOnlyAgent(c.AgentType) {
		if d, ok := p.review(c, cl, rt); ok {
			return ruled(d, "review publish")
		}
	}
	if d, ok := p.network(c, cl, st, rt, rr); ok {
		return ruled(d, "retriever")
	}
	if c.Kind == hook.KindFileRead && len(c.ReadPaths) > 0 {
		sc, bound := scopeSession, st.Mode != hook.ModeEdit
		switch {
		case p.Config.ReadOnlyAgent(c.AgentType):
			sc, bound = scopeAgent, true
		case st.Mode == hook.ModeReview:
			sc = scopeReview
		}
		if d, ok := p.fileToolReads(c, bound, sc); ok {
			return ruled(d, "sensitive files")
		}
	}
	switch {
	case p.Config.ReadOnlyAgent(c.AgentType):
		return ruled(p.readOnly(c, cl, scopeAgent, ""), "read-only rules (agent type "+c.AgentType+")")
	case st.Plan:
		return ruled(p.readOnly(c, cl, scopePlan, ""), "read-only rules (the client's plan mode)")
	case st.Mode == hook.ModeReadOnly:
		return ruled(p.readOnly(c, cl, scopeSession, st.Warning), "read-only rules")
	case st.Mode == hook.ModeReview:
		return ruled(p.readOnly(c, cl, scopeReview, st.Warning), "read-only rules (review mode)")
	}
	return ruled(p.edit(c, cl, st), "edit guard")
}

// network routes web content through the quarantined retriever, in every mode: a web tool is
// answered by hookctl's retrieval hook (this instance refuses it, so that a missing retrieval
// hook fails closed); a shell command that is one plain web read is rewritten into `hookctl
// retrieve`; any other network access from the shell is refused. rt and r are the shell
// command's route (route.RouteNetwork), made once by decide.
func (p *Policy) network(c *hook.ToolCall, cl *lexer.CommandLine, st SessionState, rt *route.Route, r *programs.Refusal) (hook.Decision, bool) {
	if c.Kind == hook.KindWeb {
		if p.Config.DirectFetch {
			return hook.Decision{Verdict: hook.Pass}, true
		}
		if !p.Client.RetrievalHook {
			return hook.Decision{Verdict: hook.Deny, Reason: "hookctl: web content reaches you only through hookctl's quarantined retriever, " +
				"which " + c.Tool + " does not go through; run hookctl retrieve fetch URL --need '…' (or hookctl retrieve search 'query') in the shell instead."}, true
		}
		// Both hooks run for the call: the retrieval hook's answer, which comes last, is the one
		// the client shows; this one holds the call closed if that hook gave none.
		return hook.Decision{Verdict: hook.Deny, Reason: "hookctl: " + c.Tool + " is answered by hookctl's retrieval hook, with the retriever's answer; " +
			"if you see no such answer, that hook did not run: ask the user to run `hookctl doctor`. Meanwhile: hookctl retrieve fetch URL --need '…'.",
			Rule: "retriever (the retrieval hook answers)"}, true
	}
	if cl == nil || c.Kind != hook.KindShell && c.Kind != hook.KindOther {
		return hook.Decision{}, false
	}
	if rt != nil && rt.ReadOnlyOnly && st.Mode == hook.ModeEdit && !p.Config.ReadOnlyAgent(c.AgentType) {
		return hook.Decision{}, false // the edit guard's: git reaching the project's own remote
	}
	if rt != nil && rt.GitHub != nil {
		rt, r = p.githubRoute(rt, c.Cwd)
	}
	switch {
	case r != nil:
		what := r.What
		if r.Program != "" {
			what = r.Program + ": " + what
		}
		return hook.Decision{Verdict: hook.Deny, Reason: "hookctl: " + what + "; " + r.Hint + "."}, true
	case rt == nil:
		return hook.Decision{}, false
	case c.Kind != hook.KindShell || c.NoRewrite || p.Binary == "":
		return hook.Decision{Verdict: hook.Deny, Reason: "hookctl: web reads come through the retriever: " +
			"run hookctl retrieve fetch URL --need '…' in the shell"}, true
	}
	return hook.Decision{Verdict: hook.Allow, Reason: "hookctl: answered by the quarantined retriever", Command: p.retrieveCommand(rt, c),
		Isolation: "the quarantined retriever (its own isolation)"}, true
}

// githubRoute completes a GitHub read: the repository, when the command named none, is the one
// gh would read (GH_REPO in the client's environment, else the project's git remote); and the
// operation is checked exactly as the retriever will check it, so that a refusal comes now,
// with a hint, rather than from the retriever.
// Why: the retriever reads no files, so it cannot find the project's remote; and a read the
// retriever would refuse must not be rewritten into a command that fails.
// Test: TestGitHubReadsRepository, TestCorpusGitHubReads.
func (p *Policy) githubRoute(rt *route.Route, cwd string) (*route.Route, *programs.Refusal) {
	refuse := func(what string) (*route.Route, *programs.Refusal) {
		return nil, &programs.Refusal{Program: "gh", What: what, Hint: route.RetrieveHint}
	}
	op := *rt.GitHub
	repoOf, branchOf := p.GitHubRepo, p.GitBranch
	if rt.Dir != "" {
		// `cd DIR && …`: that directory's repository and branch, not the session's.
		dir := rt.Dir
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(cwd, dir)
		}
		if p.GitHubRepoAt == nil || p.GitBranchAt == nil || strings.HasPrefix(rt.Dir, "~") {
			repoOf, branchOf = nil, nil
		} else {
			repoOf = func(remote string) string { return p.GitHubRepoAt(dir, remote) }
			branchOf = func() string { return p.GitBranchAt(dir) }
		}
	}
	if rt.RepoMissing {
		repo := ""
		switch {
		case rt.Remote != "":
			if repoOf != nil {
				repo = repoOf(rt.Remote)
			}
		case p.GHRepo != "":
			repo = p.GHRepo
		case repoOf != nil:
			repo = repoOf("")
		}
		if repo == "" {
			return refuse("this read names no repository, and hookctl found no GitHub remote for it (or more than one); name it with -R OWNER/REPO")
		}
		parts := strings.Split(repo, "/")
		switch len(parts) {
		case 2:
			op.Owner, op.Repo = parts[0], parts[1]
		case 3:
			op.Owner, op.Repo, op.Host = parts[1], parts[2], strings.ToLower(parts[0])
		default:
			return refuse("GH_REPO or the git remote names " + clip.Short(repo) + ", not OWNER/REPO")
		}
	}
	if rt.CurrentBranch {
		branch := ""
		if branchOf != nil {
			branch = branchOf()
		}
		if branch == "" {
			return refuse("this read means the current branch's pull request, and hookctl could not tell the branch (a detached HEAD?); give the pull request's number")
		}
		op.Branch = branch
	}
	if h, err := retriever.NormalizeGitHubHost(op.Host); err == nil {
		op.Host = h
	}
	if err := op.Validate(); err != nil {
		return refuse(err.Error())
	}
	r := *rt
	r.GitHub, r.RepoMissing, r.CurrentBranch = &op, false, false
	return &r, nil
}

// retrieveCommand is the shell command that answers a routed web read: hookctl retrieve, with
// the agent's description of the call as the need — and what the command's own flags asked
// for — and the caller recorded for the audit.
func (p *Policy) retrieveCommand(r *route.Route, c *hook.ToolCall) string {
	need := strings.TrimSpace(c.Description)
	if need == "" {
		need = "Summarize what this says, briefly."
	}
	if r.Need != "" {
		need += " (" + r.Need + ")"
	}
	// The operation this judge parsed, whole and checked: retrieve decodes it, and parses no
	// curl, wget or gh argument again.
	words := []string{p.Binary, "retrieve", r.Kind}
	switch r.Kind {
	case "fetch":
		words = append(words, "--op", retriever.EncodeFetchOp(r.Fetch))
	case "github", "repo":
		words = append(words, "--op", retriever.EncodeGitHubOp(r.GitHub))
	}
	words = append(words, "--need", need, "--session", c.Session, "--tool", c.Tool)
	if c.AgentType != "" {
		words = append(words, "--agent-type", c.AgentType)
	}
	quoted := make([]string, len(words))
	for i, w := range words {
		quoted[i] = lexer.Quote(w)
	}
	return strings.Join(quoted, " ")
}

// modeChangeByModel refuses, in every mode, the ways an agent could make the toggle command
// reach the session as if the user had typed it: running the command or skill itself, or
// scheduling a prompt that starts with it.
func (p *Policy) modeChangeByModel(c *hook.ToolCall) (hook.Decision, bool) {
	cmd := p.Client.ToggleCommand
	if cmd == "" {
		return hook.Decision{}, false
	}
	refusal := func(what string) (hook.Decision, bool) {
		return hook.Decision{Verdict: hook.Deny, Reason: "hookctl: " + what + "; only the user may change the session's mode (they type " + cmd + ")."}, true
	}
	if c.Skill != "" && strings.TrimPrefix(strings.TrimSpace(c.Skill), "/") == strings.TrimPrefix(cmd, "/") {
		return refusal("the " + cmd + " command is the user's")
	}
	if strings.HasPrefix(strings.TrimSpace(c.Prompt), cmd) {
		return refusal("a scheduled " + cmd + " would arrive as if the user typed it")
	}
	return hook.Decision{}, false
}

// edit applies edit mode's accident guard: writes to protected paths, and the short exclude
// list of destructive commands. Everything else is left to the client's own permissions.
func (p *Policy) edit(c *hook.ToolCall, cl *lexer.CommandLine, st SessionState) hook.Decision {
	prot := p.protection()
	ctx := &editguard.Context{Project: c.Cwd, Home: prot.Home, Protected: prot.Paths, Names: prot.Names,
		FoldCase: prot.FoldCase, Binary: p.Binary, Uninstaller: prot.Uninstaller}
	if p.Config != nil {
		ctx.TempDir, ctx.Sudo, ctx.Allow = p.Config.TempDir, p.Config.SudoPrefixes(), p.Config.Edit.Allow
	}
	if len(c.Paths) > 0 {
		if d, ok := p.fileWrites(c, prot, ctx); ok {
			return d
		}
	}
	if cl != nil && (c.Kind == hook.KindShell || c.Kind == hook.KindOther) {
		if r := editguard.Judge(cl, ctx); r != nil {
			what := r.What
			if r.Program != "" {
				what = r.Program + ": " + what
			}
			hint := r.Hint
			if hint == "" {
				hint = "if it is really wanted, ask the user to run it themselves"
			}
			return hook.Decision{Verdict: hook.Deny, Reason: "hookctl edit-mode guard: " + what + "; " + hint + "."}
		}
		if d, ok := p.editCredentialRead(c, cl); ok {
			return d
		}
		if c.Kind == hook.KindShell {
			return p.containEdit(c, cl, st)
		}
	}
	return hook.Decision{Verdict: hook.Pass}
}

// fileWrites refuses a file tool's write to a protected path: as written, or as the kernel will
// reach it through links (Policy.Resolve), or through another hard link to a protected file.
//
// Why: in edit mode 21 of 21 writes through a symbolic or hard link to a protected file got
// through, and so did case variants on case-insensitive disks (issue 9).
// What: each target is refused when the path as written or resolved is protected, compared with
// the protected set as listed and as resolved, folding case where the target's directory or
// the protected set's file system folds; when it is a hard link to a protected file; and when
// it cannot be resolved.
// Test: TestFileToolsThroughLinks, TestFileToolProtectedPaths.
func (p *Policy) fileWrites(c *hook.ToolCall, prot Protection, ctx *editguard.Context) (hook.Decision, bool) {
	refuse := func(path, how string) (hook.Decision, bool) {
		return hook.Decision{Verdict: hook.Deny, Reason: "hookctl: `" + c.Tool + "` would write " + clip.Short(path) + how +
			", which only the user may change (hookctl's own files and " + p.clientName() + "'s settings are protected in every mode)."}, true
	}
	for _, path := range c.Paths {
		if editguard.ProtectedPath(path, ctx) {
			return refuse(path, "")
		}
	}
	autoRun := func(path string) (hook.Decision, bool) {
		for _, a := range prot.AutoRun {
			if editguard.ProtectedPath(path, &editguard.Context{Project: c.Cwd, Protected: []string{a.Path}, FoldCase: ctx.FoldCase}) {
				return hook.Decision{Verdict: hook.Deny, Reason: "hookctl: `" + c.Tool + "` would write " + clip.Short(path) + ": " + a.Refusal() + "."}, true
			}
		}
		return hook.Decision{}, false
	}
	for _, path := range c.Paths {
		if d, ok := autoRun(path); ok {
			return d, true
		}
	}
	if p.Resolve == nil {
		return hook.Decision{}, false
	}
	abs := make([]string, len(c.Paths))
	for i, path := range c.Paths {
		abs[i] = path
		if !filepath.IsAbs(path) && filepath.IsAbs(c.Cwd) {
			abs[i] = c.Cwd + "/" + path // not Join, which would take `..` before the links
		}
	}
	res := p.Resolve(abs, prot)
	resolved := *ctx
	resolved.Protected = append(append([]string(nil), ctx.Protected...), res.Protected...)
	for _, t := range res.Targets {
		resolved.FoldCase = ctx.FoldCase || t.FoldsCase
		switch {
		case t.Err != "":
			return hook.Decision{Verdict: hook.Deny, Reason: "hookctl: `" + c.Tool + "` would write " + clip.Short(t.Path) +
				", and " + t.Err + ", so it may be a protected file; ask the user."}, true
		case protectedTarget(t, &resolved):
			how := ""
			if t.Resolved != t.Path {
				how = " (through a link, it is " + clip.Short(t.Resolved) + ")"
			}
			return refuse(t.Path, how)
		case t.LinkOf != "":
			return refuse(t.Path, " (a hard link to "+clip.Short(t.LinkOf)+")")
		}
		if t.Resolved != "" {
			if d, ok := autoRun(t.Resolved); ok {
				return d, true
			}
		}
	}
	return hook.Decision{}, false
}

// protectedTarget reports whether a target is protected as written or as resolved.
func protectedTarget(t Target, ctx *editguard.Context) bool {
	return editguard.ProtectedPath(t.Path, ctx) || t.Resolved != "" && editguard.ProtectedPath(t.Resolved, ctx)
}

// readOnly applies read-only rules to a call. warning, if set, says why the session's state
// could not be read; it is appended to every refusal.
func (p *Policy) readOnly(c *hook.ToolCall, cl *lexer.CommandLine, sc scope, warning string) hook.Decision {
	d := p.readOnlyRules(c, cl, sc)
	if d.Verdict == hook.Deny && warning != "" {
		d.Reason += " (hookctl could not read this session's state — " + warning + " — so it is treated as read-only.)"
	}
	return d
}

func (p *Policy) readOnlyRules(c *hook.ToolCall, cl *lexer.CommandLine, sc scope) hook.Decision {
	switch c.Kind {
	case hook.KindFileRead, hook.KindSession, hook.KindAgent:
		return hook.Decision{Verdict: hook.Pass}
	case hook.KindWeb:
		// No opinion here: web content is routed through the quarantined retriever, in every
		// mode, by its own rule.
		return hook.Decision{Verdict: hook.Pass}
	case hook.KindShell:
		if cl == nil {
			return hook.Decision{Verdict: hook.Deny, Reason: p.render(&Refusal{What: "`" + c.Tool + "` came with no command", tool: true}, sc)}
		}
		script, j, r := judgeScript(cl, p.Config)
		if r != nil {
			return hook.Decision{Verdict: hook.Deny, Reason: p.render(r, sc)}
		}
		if c.NoRewrite && needsRewrite(script) {
			return hook.Decision{Verdict: hook.Deny, Reason: p.render(&Refusal{What: "`" + c.Tool + "` runs its command as written, and this one is a read " +
				"only as hookctl rewrites it (a glob, a brace group or ~)", Hint: p.noRewriteHint()}, sc)}
		}
		// Without hookctl's launcher the command runs in the client's own shell and
		// environment, with no time bound; without the rewrite also without its pins.
		launched := !c.NoRewrite && p.Binary != ""
		if !launched {
			if r := judgeUnlaunched(c, script, &j); r != nil {
				r.Hint = p.noRewriteHint()
				return hook.Decision{Verdict: hook.Deny, Reason: p.render(r, sc)}
			}
		}
		dir := c.Cwd
		if j.cd != "" {
			dir = j.cd
			if !filepath.IsAbs(dir) && filepath.IsAbs(c.Cwd) {
				dir = c.Cwd + "/" + j.cd
			}
		}
		// The probe is asked only when the answer matters: a walk (which the sandbox's hidden
		// stores make safer), or a command to contain (hookctl's own lone read is not).
		var iso *Isolation
		isolation := func() Isolation {
			if iso == nil {
				i := p.isolation(c)
				iso = &i
			}
			return *iso
		}
		rc := readContext{dir: dir, projectToo: true, rewritten: !c.NoRewrite, launched: launched}
		rc.sandboxed = len(j.access.Walks) > 0 && isolation().Available
		if h := p.sensitiveAccess(j.access, rc); h != nil {
			return hook.Decision{Verdict: hook.Deny, Reason: p.render(h.reason(p.allowReadHint()), sc)}
		}
		if !launched {
			if r := p.unboundedUnlaunched(script, dir); r != nil {
				r.Hint = p.noRewriteHint()
				return hook.Decision{Verdict: hook.Deny, Reason: p.render(r, sc)}
			}
		}
		return p.contain(c, script, j.need, isolation, hook.Decision{Verdict: hook.Allow, Reason: "hookctl: read-only command", Command: lexer.Print(script, rewriteFor(p.Config))})
	case hook.KindFileWrite, hook.KindOther:
		return hook.Decision{Verdict: hook.Deny, Reason: p.render(&Refusal{What: "`" + c.Tool + "` changes things", tool: true}, sc)}
	}
	return hook.Decision{Verdict: hook.Deny, Reason: p.render(&Refusal{What: "`" + c.Tool + "` is not a tool hookctl knows to be read-only", tool: true}, sc)}
}

// protection is what no agent may write, asked for once.
func (p *Policy) protection() Protection {
	if len(p.Protection.Paths) == 0 && p.Protect != nil {
		p.Protection = p.Protect()
	}
	return p.Protection
}

// noRewriteHint is what a refusal of a command that is a read only as rewritten suggests.
func (p *Policy) noRewriteHint() string {
	if p.Client.ShellTool == "" {
		return "write the file names and paths out; read files with cat, head or sed -n, and search named files with grep"
	}
	return "write the file names and paths out, or use " + p.Client.ShellTool
}

// clientName is the client's name for messages.
func (p *Policy) clientName() string {
	if p.Client.Name == "" {
		return "the client"
	}
	return p.Client.Name
}

// ProtectedPaths lists what no agent may write, for a session whose project is cwd: hookctl's
// own directory (config and state) and binary, the shell start-up files (which run the next time
// the user opens a shell), and the client's own settings (client.Settings).
func ProtectedPaths(client hook.Client, hookctlHome, userHome, binary, cwd string) []string {
	var out []string
	add := func(p string) {
		if p != "" && filepath.IsAbs(p) {
			out = append(out, filepath.Clean(p))
		}
	}
	add(hookctlHome)
	add(binary)
	if userHome != "" {
		for _, rc := range []string{".bashrc", ".bash_profile", ".bash_login", ".profile", ".zshrc", ".zprofile",
			".zshenv", ".zlogin", ".config/fish/config.fish"} {
			add(filepath.Join(userHome, rc))
		}
	}
	if client.Settings != nil {
		for _, p := range client.Settings(userHome, cwd) {
			add(p)
		}
	}
	return out
}

// PlanModeRule is what the model and the status line are told of the client's plan mode.
const PlanModeRule = "The client is in plan mode, which hookctl holds to read-only rules whatever the session's mode: the user asked for a plan, not changes."
