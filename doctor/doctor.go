// Package doctor is the checks `hookctl doctor` runs on hookctl's installation and the machine:
// the binary and the worker beside it, Claude Code's settings scopes and what their hooks run,
// the recovery link and PATH, what no agent may write, the user's permission rules, Claude Code's
// version, the configuration, the retriever, the exporter, the version policy, the sandbox and
// hookctl run's isolation, the project's remotes, the state directory and the logs' hash
// chains. Each check says what it finds as it goes (Doctor); cmd/hookctl wires it to the
// installation it found and to the other clients' checks (doctor --agent).
package doctor

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/hookctl/hookctl/agents/claude"
	"github.com/hookctl/hookctl/agents/claude/permissions"
	"github.com/hookctl/hookctl/agents/clientversion"
	"github.com/hookctl/hookctl/audit"
	"github.com/hookctl/hookctl/config"
	"github.com/hookctl/hookctl/export/launch"
	"github.com/hookctl/hookctl/gate"
	"github.com/hookctl/hookctl/internal/buildinfo"
	"github.com/hookctl/hookctl/internal/clip"
	"github.com/hookctl/hookctl/internal/fsutil"
	"github.com/hookctl/hookctl/internal/jsonl"
	"github.com/hookctl/hookctl/policy"
	"github.com/hookctl/hookctl/retriever"
	"github.com/hookctl/hookctl/retriever/front"
	"github.com/hookctl/hookctl/retriever/settings"
	"github.com/hookctl/hookctl/sandbox"
	"github.com/hookctl/hookctl/sandbox/launcher"
	"github.com/hookctl/hookctl/sandbox/readonly"
	"github.com/hookctl/hookctl/session"
)

// verifiedClaudeVersion is the Claude Code release whose hook protocol hookctl was verified
// against, onFailure included.
const verifiedClaudeVersion = "2.1.328"

// Doctor runs the checks and says each on Out as it goes: ✓ what holds, • a note, ⚠ what
// breaks on a likely change, ✗ a problem with its fix (counted in Problems).
type Doctor struct {
	Out      io.Writer
	Env      Env
	Problems int
}

// Env is the installation the checks look at, as the wiring finds it.
type Env struct {
	Home     string // hookctl's home
	UserHome string
	Binary   string // this executable, symlinks resolved
	Version  string
	// Isolation is a sandbox probe's result as the policy reads it.
	Isolation func(sandbox.Status) policy.Isolation
	// Launcher is the sandbox launcher's view of the installation (the edit profile's frozen
	// paths, for their hard links).
	Launcher *launcher.Env
	// NetworkNamespaceProblem says why this user cannot give a run a network namespace of its
	// own, or "".
	NetworkNamespaceProblem string
	// ProbeStateDir tries a write where sessions are kept (ProbeStateDir, unless a test says
	// otherwise).
	ProbeStateDir func(dir string) error
}

// OK says what holds.
func (d *Doctor) OK(format string, args ...any) { fmt.Fprintf(d.Out, "✓ "+format+"\n", args...) }

// Note says what the user should know, which is not a problem.
func (d *Doctor) Note(format string, args ...any) {
	fmt.Fprintf(d.Out, "• "+format+"\n", args...)
}

// Problem says what does not hold, and its fix.
func (d *Doctor) Problem(fix, format string, args ...any) {
	d.Problems++
	fmt.Fprintf(d.Out, "✗ "+format+"\n    fix: %s\n", append(args, fix)...)
}

// Warn reports what works today but breaks on a likely change (the binary moved, PATH
// changed): not counted as a problem.
func (d *Doctor) Warn(fix, format string, args ...any) {
	fmt.Fprintf(d.Out, "⚠ "+format+"\n    to avoid it: %s\n", append(args, fix)...)
}

// Run checks Claude Code's installation of hookctl, and hookctl's own: the binary and what the
// hooks run, the registration in each settings scope, the /readonly command, what no agent may
// write, the user's permission rules, Claude Code's version, the configuration, the project's
// remotes, the state directory and the logs' hash chains. It returns the number of problems.
func (d *Doctor) Run() int {
	env := d.Env
	cwd, _ := os.Getwd()

	// The binary, and what the hooks run.
	d.OK("hookctl %s at %s", env.Version, env.Binary)
	d.checkWorker(env.Binary)
	d.checkLauncher(env.Binary)
	d.checkSandbox(env)

	// Registration per scope. yours: a scope of the user's own (user, project, local), whose
	// hooks run the link in hookctl's home and whose way out is uninstall.sh there; the managed
	// settings run the administrator's binary, and only root may change them.
	registered, yours, managedRuns := false, false, ""
	var runs []string // the binaries the registrations run
	var checked []string
	for _, scope := range claude.Scopes {
		path := mustSettingsPath(scope, env.UserHome, cwd)
		if slices.Contains(checked, path) {
			continue // in the home directory, the project's settings are the user's: one file, said once
		}
		checked = append(checked, path)
		ok, bin := d.checkSettings(scope, path, env)
		registered = ok || registered
		yours = ok && scope != "managed" || yours
		if ok && scope == "managed" {
			managedRuns = bin
		}
		if bin != "" && !slices.Contains(runs, bin) {
			runs = append(runs, bin)
		}
	}
	if !registered {
		d.Problem("run `hookctl install`", "hookctl is not registered as a PreToolUse hook in any settings file Claude Code reads")
	}
	d.checkRecovery(env, yours)
	if registered && !yours {
		d.Note("your organisation's managed settings register hookctl (they run %s); if that goes missing, its administrator removes the hooks", orNone(managedRuns))
	}
	d.checkPATH(env, runs)

	// The /readonly command: the user's, or where the user has none, the organisation's.
	userCmd := claude.ReadonlyCommandPath(env.UserHome)
	_, missing := os.Lstat(userCmd)
	switch err := claude.CheckReadonlyCommand(env.UserHome); {
	case err == nil:
		d.OK("the /readonly command is installed (%s)", userCmd)
	case errors.Is(missing, fs.ErrNotExist) && claude.CheckReadonlyCommandFrom(claude.ManagedCommandSource, "") == nil:
		d.OK("the /readonly command is your organisation's (%s)", claude.ManagedReadonlyCommandPath())
	default:
		d.Problem("run `hookctl install`", "%v: typing /readonly will not change the mode", err)
	}

	// What no agent may write.
	d.checkProtection(env, cwd)

	// The user's own permission rules, which hookctl applies to the commands it rewrites.
	d.checkPermissionRules(env, cwd)

	// Claude Code's version.
	d.checkClaudeVersion()

	// Configuration.
	if cfg, err := gate.LoadConfigFor(env.Home, cwd); err != nil {
		d.Problem("correct the file; until then every tool call is refused", "configuration: %v", err)
	} else {
		d.OK("configuration: %s (new sessions start %s)", describeConfig(cfg), session.Badge(cfg.SessionDefault()))
		for _, w := range cfg.Warnings {
			d.Note("%s", w)
		}
		d.checkRetrieval(cfg.Retriever)
		d.checkExport(env, cfg)
		d.checkVersions(cfg)
	}

	// The project's remotes, which edit mode reaches.
	d.checkProjectRemotes(env.Home, cwd)

	// State directory.
	d.checkStateDir(filepath.Join(env.Home, "sessions"))

	d.checkChains()

	if d.Problems == 0 {
		fmt.Fprintln(d.Out, "no problems found")
	} else {
		fmt.Fprintf(d.Out, "%d problem(s)\n", d.Problems)
	}
	return d.Problems
}

// checkProtection says what no agent may write, as the hook reckons it for a session here: the
// listed paths, the names protected in every directory, and how file tools' targets are
// resolved (issue 9).
func (d *Doctor) checkProtection(env Env, cwd string) {
	prot := gate.ProtectionFor(claude.Client, env.Home, env.UserHome, env.Binary, cwd)
	fold := "this file system is case-sensitive"
	if prot.FoldCase {
		fold = "this file system ignores case, so case variants are protected too"
	}
	d.OK("protected in every mode: %d paths (hookctl's files, shell start-up files, Claude Code's settings, ~/.claude.json, "+
		"plugins, /etc/claude-code) and %s in every directory; Write/Edit targets are resolved through symbolic and hard "+
		"links first; %s", len(prot.Paths), strings.Join(prot.Names, ", "), fold)
	if dir := os.Getenv("CLAUDE_CONFIG_DIR"); dir != "" {
		d.Note("CLAUDE_CONFIG_DIR is %s: its settings, plugins and .claude.json are protected as well as ~/.claude's", dir)
	}
}

// checkPermissionRules says which of Claude Code's permission rules hookctl applies to the
// commands the agent writes (it has the client run them rewritten, which the client's own
// matching no longer recognises), and names any rule that approves hookctl's rewrite instead of
// a command: what the client's "don't ask again" saved for a prompt hookctl left to it.
func (d *Doctor) checkPermissionRules(env Env, cwd string) {
	rules := permissions.Load(permissions.Options{Home: env.UserHome, ConfigDir: os.Getenv("CLAUDE_CONFIG_DIR"), Cwd: cwd,
		ManagedDir: permissions.ManagedDir(runtime.GOOS), ArgsKnown: true})
	count := map[permissions.Behavior]int{}
	scopes := map[string]int{}
	var order []string
	for _, r := range rules.Rules() {
		count[r.Behavior]++
		if scopes[r.Source.Scope.String()]++; scopes[r.Source.Scope.String()] == 1 {
			order = append(order, r.Source.Scope.String())
		}
	}
	var where []string
	for _, sc := range order {
		where = append(where, fmt.Sprintf("%s %d", sc, scopes[sc]))
	}
	d.OK("Claude Code permission rules for a session here: %d deny, %d ask, %d allow (%s); hookctl applies them, and the "+
		"permission mode, to each command as the agent wrote it, before it has Claude Code run its rewrite (the command line's "+
		"--allowedTools and --disallowedTools too, read from the running client)",
		count[permissions.Deny], count[permissions.Ask], count[permissions.Allow], orNone(strings.Join(where, ", ")))
	for _, p := range rules.Problems {
		d.Note("%s", p)
	}
	for _, r := range rules.WrapperRules(env.Binary) {
		d.Problem("remove it from "+r.Source.Path+"; to allow a command without being asked, add a rule for that command (Bash(npm test *))",
			"the rule %s approves hookctl's rewritten commands, not a command you chose (Claude Code's \"don't ask again\" saved it "+
				"for a prompt about hookctl's wrapper); while hookctl decides each rewritten call it approves nothing, but without hookctl it "+
				"would let any command wrapped in hookctl sandbox run unasked", r)
	}
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

func mustSettingsPath(scope, home, cwd string) string {
	p, _ := claude.SettingsPath(scope, home, cwd)
	return p
}

// checkSettings reports one settings file and says whether it registers hookctl's PreToolUse,
// and which binary that runs ("" if none).
func (d *Doctor) checkSettings(scope, path string, env Env) (bool, string) {
	text, err := fsutil.ReadFile(path, 8<<20, false)
	if errors.Is(err, fs.ErrNotExist) {
		return false, ""
	}
	if err != nil {
		d.Problem("make it readable", "%s settings %s: %v", scope, path, err)
		return false, ""
	}
	in, err := claude.Inspect(text, env.Binary)
	if err != nil {
		d.Problem("fix the file; Claude Code cannot read it either", "%s settings %s: %v", scope, path, err)
		return false, ""
	}
	if in.DisableAllHooks {
		d.Problem("remove disableAllHooks from "+path+", or install with --scope managed, which a project cannot switch off",
			"%s settings %s set disableAllHooks: EVERY hook is off, hookctl's included — nothing is gated", scope, path)
	}
	if len(in.Hooks) == 0 {
		return false, ""
	}
	if in.Ignored != nil {
		d.Problem("remove the comments or trailing commas", "%s settings %s: %v — Claude Code ignores the whole file, hookctl's hooks included", scope, path, in.Ignored)
		return false, ""
	}
	reinstall := "run `hookctl install --scope " + scope + "`"
	pre, ok := in.Hook("PreToolUse")
	if !ok {
		d.Problem(reinstall, "%s settings %s register hookctl without its PreToolUse hook", scope, path)
		return false, ""
	}
	good := true
	bin := d.checkRuns(scope, path, pre, env)
	if bin == "" {
		good = false
	}
	for _, h := range in.Hooks {
		if h.Wrapped && h.Script != claude.Wrapper {
			d.Problem(reinstall, "%s settings %s run hookctl through a wrapper that is not this hookctl's (an older one, or changed): it may not run hookctl at all", scope, path)
			good = false
			break
		}
	}
	if pre.OnFailure != "block" {
		d.Problem(reinstall, "%s settings %s: the PreToolUse hook lacks \"onFailure\": \"block\", so a crashed or missing hook lets calls through", scope, path)
		good = false
	}
	if h, ok := in.RetrievalHook(); !ok {
		d.Problem(reinstall, "%s settings %s: no retrieval hook, so WebFetch and WebSearch are refused instead of answered", scope, path)
		good = false
	} else if h.Timeout < 60 {
		d.Problem(reinstall, "%s settings %s: the retrieval hook's timeout (%ds) is too short for a retrieval", scope, path, h.Timeout)
		good = false
	}
	for _, ev := range []string{"UserPromptExpansion", "SessionStart"} {
		if _, ok := in.Hook(ev); !ok {
			d.Problem(reinstall, "%s settings %s: no %s hook (/readonly and the session-start notice need it)", scope, path, ev)
			good = false
		}
	}
	if good {
		extra := ""
		if in.StatusLineOurs {
			extra = ", with the status line"
		}
		how := ""
		if pre.Wrapped {
			how = ", through your hookctl home (the file names no path of yours)"
		}
		d.OK("registered in %s settings %s%s%s", scope, path, how, extra)
	}
	return pre.OnFailure == "block" || good, bin
}

// checkRuns checks the binary a PreToolUse entry runs, which must be there and executable, and
// should be this one. It returns that binary with its links resolved, or "" when it will not
// run: then Claude Code refuses every tool call, and Wrapper every prompt.
func (d *Doctor) checkRuns(scope, path string, pre claude.InspectedHook, env Env) string {
	named := pre.Command
	if pre.Wrapped {
		named = filepath.Join(env.Home, claude.LinkedBinary)
	}
	real, err := filepath.EvalSymlinks(named)
	var fi os.FileInfo
	if err == nil {
		fi, err = os.Stat(real)
	}
	if err != nil || !fi.Mode().IsRegular() || fi.Mode()&0o111 == 0 {
		fix := "reinstall hookctl (make install, or `hookctl install --scope " + scope + "` with the binary you mean)"
		if pre.Wrapped || named == filepath.Join(env.Home, claude.LinkedBinary) {
			fix += ", or without it: sh " + filepath.Join(env.Home, claude.UninstallScriptName)
		}
		d.Problem(fix, "%s settings %s run %s, which is missing or not executable: Claude Code will refuse every prompt and tool call", scope, path, named)
		return ""
	}
	if real != env.Binary {
		d.Warn("run `hookctl install --scope "+scope+"` with the binary you mean, so that one hookctl runs everywhere",
			"%s settings %s run hookctl at %s, not this binary (%s)", scope, path, describeLink(named, real), env.Binary)
	}
	return real
}

// describeLink names a path and, when it is a link, where it leads.
func describeLink(named, real string) string {
	if named == real {
		return named
	}
	return named + " → " + real
}

// checkRecovery checks the link the hooks run and the way out when it breaks: uninstall.sh.
// registered: a scope of the user's own registers hookctl (the managed settings need neither).
func (d *Doctor) checkRecovery(env Env, registered bool) {
	link := filepath.Join(env.Home, claude.LinkedBinary)
	script := filepath.Join(env.Home, claude.UninstallScriptName)
	if target, err := os.Readlink(link); err != nil {
		if registered {
			d.Note("no link %s: a project's committed registration (hookctl install --scope project) cannot find your hookctl; run `hookctl install`", link)
		}
	} else if real, err := filepath.EvalSymlinks(link); err != nil {
		d.Problem("reinstall hookctl (make install), or without it: sh "+script,
			"%s leads to %s, which is missing: Claude Code refuses every prompt and tool call", link, target)
	} else if real != env.Binary {
		d.Warn("run `hookctl install` with the binary you mean", "%s leads to %s, not this binary (%s)", link, real, env.Binary)
	}
	if b, err := fsutil.ReadFile(script, 1<<20, true); err != nil || !bytes.Equal(b, claude.UninstallScript) {
		if registered {
			d.Problem("run `hookctl install`", "%s is missing or out of date: if hookctl's binary went missing there would be no way to remove its hooks but by hand", script)
		}
	} else {
		d.OK("if hookctl's binary goes missing: sh %s removes its hooks", script)
	}
}

// checkPATH compares the hookctl on PATH, which a shell's `hookctl readonly` runs, with what
// the hooks run.
func (d *Doctor) checkPATH(env Env, runs []string) {
	p, err := exec.LookPath("hookctl")
	if err != nil {
		d.Note("hookctl is not on your PATH (the hooks do not need it; for `hookctl readonly` in a shell, add %s to PATH)", filepath.Dir(env.Binary))
		return
	}
	real, _ := filepath.EvalSymlinks(p)
	for _, r := range runs {
		if real != r {
			d.Warn("put the directory of the binary the hooks run first on PATH, or install that one", "the hookctl on your PATH is %s, but the hooks run %s: a `hookctl` typed in a shell is another build", describeLink(p, real), r)
			return
		}
	}
	switch {
	case len(runs) == 0 && real != env.Binary:
		d.Note("the hookctl on your PATH is %s, not this one", describeLink(p, real))
	case len(runs) > 0:
		d.OK("the hookctl on your PATH (%s) is the one the hooks run", p)
	}
}

func (d *Doctor) checkClaudeVersion() {
	p, err := exec.LookPath("claude")
	if err != nil {
		d.Note("claude is not on your PATH; not checking its version")
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, p, "--version").Output()
	if err != nil {
		d.Note("could not run `claude --version`: %v", err)
		return
	}
	v := strings.Fields(string(out))
	if len(v) == 0 {
		d.Note("could not read the Claude Code version from %q", out)
		return
	}
	switch c := compareVersions(v[0], verifiedClaudeVersion); {
	case c < 0:
		d.Problem("upgrade Claude Code (npm install -g @anthropic-ai/claude-code)",
			"Claude Code %s is older than %s, the release hookctl was verified with; it may not honour \"onFailure\": \"block\" (hookctl still refuses on its own failures)", v[0], verifiedClaudeVersion)
	case c > 0:
		d.OK("Claude Code %s (hookctl was verified with %s)", v[0], verifiedClaudeVersion)
	default:
		d.OK("Claude Code %s", v[0])
	}
}

// compareVersions compares dotted numeric versions.
func compareVersions(a, b string) int {
	as, bs := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < max(len(as), len(bs)); i++ {
		var x, y int
		if i < len(as) {
			x, _ = strconv.Atoi(as[i])
		}
		if i < len(bs) {
			y, _ = strconv.Atoi(bs[i])
		}
		if x != y {
			if x < y {
				return -1
			}
			return 1
		}
	}
	return 0
}

// checkRetrieval says what WebFetch and WebSearch will be answered with. A missing distiller
// or search provider is a note, not a problem: those calls then fail closed, saying how to
// configure one, and nothing else depends on them.
func (d *Doctor) checkRetrieval(cfg settings.Config) {
	environ := os.Environ()
	if dist, err := retriever.ChooseDistiller(&cfg, environ, nil); err != nil {
		d.Note("web retrieval: WebFetch and Bash curl/wget/gh reads will be refused until a distiller is set up (docs/configuration.md):\n    %s",
			strings.ReplaceAll(firstParagraph(err.Error()), "\n", "\n    "))
	} else {
		d.OK("web retrieval: the %s distiller answers WebFetch and Bash curl/wget/gh reads", dist.Backend)
	}
	if s, err := retriever.ChooseSearch(&cfg, environ); err != nil {
		d.Note("web search: WebSearch will be refused: %v", err)
	} else {
		d.OK("web search: %s", s.Provider)
	}
}

// checkSandbox probes the sandbox afresh (and caches the result for the hook): what holds
// read-only mode here, and what to do where the answer is the policy alone.
func (d *Doctor) checkSandbox(env Env) {
	cfg, _ := gate.LoadConfig(env.Home)
	st := sandbox.Refresh(env.Home, env.Binary)
	iso := d.Env.Isolation(st)
	switch {
	case st.Available:
		d.OK("%s", gate.Enforcement(iso, cfg))
	case st.Failing():
		d.Problem(SandboxFix(st)+"; if this machine really has no sandbox any more, `hookctl sandbox --forget` and doctor again",
			"%s", gate.Enforcement(iso, cfg))
	case cfg != nil && cfg.Sandbox == config.SandboxRequire:
		d.Problem(SandboxFix(st), "%s", gate.Enforcement(iso, cfg))
	default:
		d.Note("%s\n    to get it: %s", gate.Enforcement(iso, cfg), SandboxFix(st))
	}
	if st.Edit {
		d.OK("%s", gate.EditEnforcement(iso, cfg))
		// A protected file with a second name would be writable through it: the edit
		// launcher refuses every command until it has one (here, for this directory's project).
		cwd, _ := os.Getwd()
		p := env.Launcher.EditProfile(env.Home, "", cwd, "", false)
		if f, n := sandbox.HardLinked(append(p.Frozen, p.Hidden...)); f != "" {
			d.Problem("find the other names with `find / -xdev -samefile "+f+"` and remove them",
				"%s has %d hard links: edit mode's commands are refused until it has one", f, n)
		}
	} else if st.EditFailing() {
		d.Problem("run `hookctl sandbox --probe` to see which check fails; if this machine really has no edit sandbox any more, "+
			"`hookctl sandbox --forget` and doctor again", "%s", gate.EditEnforcement(iso, cfg))
	} else {
		d.Note("%s\n    to get it: allow unprivileged user namespaces (on Ubuntu 23.10+, an AppArmor profile granting userns to hookctl, "+
			"or kernel.apparmor_restrict_unprivileged_userns=0), or run outside the container that forbids them", gate.EditEnforcement(iso, cfg))
	}
	d.checkSecureRun(st)
}

// checkSecureRun says whether hookctl run --profile secure-read-only can start here, and with
// which networks: a run never starts without its isolation, so the user learns it here first.
func (d *Doctor) checkSecureRun(st sandbox.Status) {
	_, abi, err := sandbox.Mechanisms()
	switch {
	case err != nil || !st.Available:
		d.Note("hookctl run --profile secure-read-only cannot start here: no sandbox")
	case abi < sandbox.SecureMinABI:
		d.Note("hookctl run --profile secure-read-only cannot start here: Landlock ABI %d, and it needs %d (Linux 6.7 or later)", abi, sandbox.SecureMinABI)
	case d.Env.NetworkNamespaceProblem != "":
		d.OK("hookctl run --profile secure-read-only: --network deny; not --network model-only: %s", d.Env.NetworkNamespaceProblem)
	default:
		d.OK("hookctl run --profile secure-read-only: --network deny and model-only")
	}
}

// SandboxFix says how to get the sandbox, from why the probe failed.
func SandboxFix(st sandbox.Status) string {
	switch {
	case !sandbox.Supported:
		return "none yet on this platform; hookctl's rules still hold"
	case strings.Contains(st.Reason, "no Landlock"):
		fix := "run a kernel with Landlock (Linux 5.13 or later, with landlock in its lsm= list; `cat /sys/kernel/security/lsm` shows it)"
		if strings.Contains(st.Reason, "no mount namespace") {
			fix += ", or allow user namespaces, where read-only mounts stand in for it"
		}
		return fix
	case strings.Contains(st.Reason, "not permitted"):
		return "a container or security policy forbids Landlock or seccomp here; allow the landlock_* and seccomp system calls, or run hookctl outside the container"
	}
	return "run `hookctl sandbox --probe` to see which check fails"
}

// checkWorker checks the network executable beside this binary: there, executable, and of the
// same build, which it must be for any retrieval or egress proxy to run.
func (d *Doctor) checkWorker(binary string) {
	if buildinfo.TestSeams {
		d.Problem("install a build made without the hookctl_testseams tag (make install)", "%s", buildinfo.TestSeamsWarning)
	}
	path := front.WorkerPath(binary)
	if path == "" {
		d.Note("not checking the network executable: this binary's path is unknown")
		return
	}
	d.checkBeside(path, retriever.NetworkExecutable, "the network executable (retrieval's worker, edit mode's egress proxy, hookctl run's credential broker)", "every retrieval and every connection of edit mode will fail",
		fmt.Sprintf("web retrieval and edit mode's network: %s is not beside hookctl in %s, so WebFetch, WebSearch and Bash web reads will be refused, and edit mode's commands reach no host (make install puts both there)",
			retriever.NetworkExecutable, filepath.Dir(path)))
}

// checkLauncher checks the read-only launcher beside this binary, which every admitted read
// starts as where it is there; without it they start in `hookctl sandbox`, the same profiles,
// about a millisecond slower each.
func (d *Doctor) checkLauncher(binary string) {
	if binary == "" {
		return
	}
	path := sandbox.LauncherPath(binary)
	d.checkBeside(path, readonly.Executable, "the read-only launcher", "admitted reads start in `hookctl sandbox` instead, about a millisecond slower each, until both come from one build",
		fmt.Sprintf("the read-only launcher: %s is not beside hookctl in %s, so admitted reads start in `hookctl sandbox`, about a millisecond slower each (make install puts both there)",
			readonly.Executable, filepath.Dir(path)))
}

// checkBeside checks an executable of hookctl's build that hookctl runs from its own directory:
// there (else the note missing, or a problem where that is empty), executable, and of the same build. what names it; fails says
// what goes wrong without it.
func (d *Doctor) checkBeside(path, name, what, fails, missing string) bool {
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist) && missing == "":
		d.Problem("run make install", "%s %s is not beside hookctl: %s", what, path, fails)
		return false
	case errors.Is(err, fs.ErrNotExist):
		d.Note("%s", missing)
		return false
	case err != nil:
		d.Problem("make it readable", "%s %s: %v", what, path, err)
		return false
	case !fi.Mode().IsRegular() || fi.Mode()&0o111 == 0:
		d.Problem("run make install", "%s %s is not an executable file: %s", what, path, fails)
		return false
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, path, "version").Output()
	if err != nil {
		d.Problem("run make install", "%s %s does not run (%v): %s", what, path, err, fails)
		return false
	}
	if want := buildinfo.Describe(name); string(out) != want {
		d.Problem("install both from one build (make install)", "%s %s is from another build:\n    it says:  %s\n    hookctl:  %s",
			what, path, strings.ReplaceAll(strings.TrimSpace(clip.String(string(out), 400)), "\n", "\n              "), strings.ReplaceAll(strings.TrimSpace(want), "\n", "\n              "))
		return false
	}
	d.OK("%s %s, of the same build", what, path)
	return true
}

// checkExport says where the records go, and whether the exporter that ships them is there
// and has shipped (docs/fleet.md).
func (d *Doctor) checkExport(env Env, cfg *config.Config) {
	t := cfg.Telemetry
	if !t.Enabled() {
		d.Note("telemetry: off (no [telemetry] otlp_endpoint): the records stay on this machine")
		return
	}
	by := "your config"
	if slices.Contains(cfg.ManagedKeys, "telemetry") {
		by = "your organisation's policy (" + cfg.Managed + ")"
	}
	d.OK("telemetry: every record goes to %s over OTLP (%s), as %s sets", t.Endpoint, t.OTLPProtocol(), by)
	path := filepath.Join(filepath.Dir(env.Binary), launch.Executable)
	if !d.checkBeside(path, launch.Executable, "the exporter", "no record is exported", "") {
		return
	}
	if fi, err := os.Stat(filepath.Join(env.Home, launch.CursorFile)); err == nil {
		d.OK("telemetry: the collector last acknowledged a batch at %s", fi.ModTime().Local().Format(time.DateTime))
	} else {
		d.Note("telemetry: the collector has acknowledged no batch from this machine yet")
	}
}

// firstParagraph is s up to its first blank line (the distiller error's reasons, without the
// long configuration example after them).
func firstParagraph(s string) string {
	if i := strings.Index(s, "\n\n"); i >= 0 {
		return s[:i]
	}
	return s
}

func (d *Doctor) checkStateDir(dir string) {
	fi, err := os.Stat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		d.Note("no session state yet (%s is created on the first hook call)", dir)
		return
	}
	if err != nil {
		d.Problem("make it readable by you only", "state directory %s: %v", dir, err)
		return
	}
	if !fi.IsDir() {
		d.Problem("remove it; hookctl recreates it", "state directory %s is not a directory: every session is treated as read-only", dir)
		return
	}
	if fi.Mode().Perm()&0o022 != 0 {
		d.Problem("chmod 700 "+dir, "state directory %s is writable by others (%v): another user could change your sessions' modes", dir, fi.Mode().Perm())
		return
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Getuid() {
		d.Problem("chown it to yourself", "state directory %s is owned by uid %d", dir, st.Uid)
		return
	}
	if err := d.Env.ProbeStateDir(dir); err != nil {
		d.Problem("make room on its file system, or make it writable (HOOKCTL_HOME moves it)",
			"state directory %s: %v: new sessions are treated as read-only with a warning, and no toggle can land", dir, err)
		return
	}
	d.OK("state directory %s", dir)
}

// checkChains checks the hash chains of the decision log and the audit, which every client's
// hooks write (`hookctl log verify` details them).
func (d *Doctor) checkChains() {
	d.checkChain("decision log", "hookctl log verify", audit.DecisionLogAt(d.Env.Home).JSONL())
	d.checkChain("audit", "hookctl audit verify", audit.AuditAt(d.Env.Home).JSONL())
}

// checkChain says whether a log's hash chain holds (jsonl.Log.Verify): a record changed, removed
// or reordered since hookctl wrote it is a problem, which verify names by file, line and id.
func (d *Doctor) checkChain(name, verify string, l *jsonl.Log) {
	rep, err := l.Verify()
	if err != nil {
		d.Problem("make "+l.Dir+" readable by you", "the %s cannot be verified: %v", name, err)
		return
	}
	records, _, older, breaks := rep.Totals()
	switch {
	case breaks > 0:
		d.Problem("`"+verify+"` names each record; keep the files as they are if you investigate (moving them away starts a new chain)",
			"the %s's hash chain does not hold at %d place(s) in %s: records were changed, removed or reordered after hookctl wrote them", name, breaks, l.Dir)
	case records == 0:
		d.Note("the %s has no records yet (%s)", name, l.Dir)
	case older > 0:
		d.OK("the %s's hash chain holds (%d records, of which %d written by a hookctl older than the chain, not verifiable)", name, records, older)
	default:
		d.OK("the %s's hash chain holds (%d records)", name, records)
	}
}

// minStateFree is the free space below which doctor calls the state directory full: a state
// file is a few kilobytes, but a toggle writes a whole new one before it replaces the old.
const minStateFree = 1 << 20

// ProbeStateDir checks that the state directory takes a write, as a toggle makes one: a file
// written, synced and removed, and room for more. A variable, so tests can play a full or
// read-only file system (as root, permission bits do not stop a write).
func ProbeStateDir(dir string) error {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err == nil && st.Bavail*uint64(st.Bsize) < minStateFree {
		return fmt.Errorf("its file system is full (%d KiB free)", st.Bavail*uint64(st.Bsize)>>10)
	}
	f, err := os.CreateTemp(dir, ".doctor-*")
	if err != nil {
		return fmt.Errorf("failed to write in it: %w", err)
	}
	defer os.Remove(f.Name())
	_, err = f.Write(make([]byte, 4096))
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("failed to write in it: %w", err)
	}
	return nil
}

func describeConfig(c *config.Config) string {
	parts := []string{}
	if c.Path != "" {
		parts = append(parts, c.Path)
	} else {
		parts = append(parts, "defaults")
	}
	if c.Project != "" {
		parts = append(parts, "+ "+c.Project)
	}
	if c.Managed != "" {
		parts = append(parts, "under your organisation's policy "+c.Managed+", which sets "+strings.Join(c.ManagedKeys, ", "))
	}
	return strings.Join(parts, " ")
}

// checkProjectRemotes says which hosts edit mode reaches as this project's remotes: those
// recorded when hookctl first saw a session here, and those the user added, never what
// .git/config names now (a remote an agent added there is named, and not reached).
func (d *Doctor) checkProjectRemotes(home, cwd string) {
	project := session.ProjectOf(cwd)
	r, err := session.NewProjects(home).Load(project)
	switch {
	case errors.Is(err, session.ErrNoProject):
		d.OK("project remotes: none recorded for %s yet (recorded when a session first starts here)", project)
		return
	case err != nil:
		d.Problem("remove the file; the next session here records the project's remotes again", "project remotes: %v", err)
		return
	}
	d.OK("project remotes: edit mode reaches %s (recorded %s; add one with hookctl remotes add HOST)", session.DescribeRemotes(r), r.Recorded.Local().Format(time.DateOnly))
	for _, h := range session.ProjectRemotes(cwd) {
		if !slices.Contains(r.Hosts(), h) {
			d.Note(".git/config names %s, which is not one of the project's recorded remotes: edit mode does not reach it (hookctl remotes add %s, if you added it)", h, h)
		}
	}
}

// checkVersions says what the policy asks of hookctl's and the clients' versions, and whether
// what is installed here meets it.
func (d *Doctor) checkVersions(cfg *config.Config) {
	policy := gate.VersionPolicy(cfg)
	if cfg.MinHookctlVersion != "" {
		if why := clientversion.CheckHookctl(buildinfo.Version(), cfg.MinHookctlVersion, policy); why != "" {
			d.Problem("upgrade hookctl", "%s", why)
		} else {
			d.OK("hookctl %s: %s allows %s or newer", buildinfo.Version(), policy, cfg.MinHookctlVersion)
		}
	}
	names := slices.Sorted(maps.Keys(cfg.Clients))
	for _, name := range names {
		r := cfg.Clients[name]
		allows := "any version"
		if r.MinVersion != "" {
			allows = r.MinVersion + " or newer"
		}
		for _, v := range slices.Sorted(maps.Keys(r.Refuse)) {
			allows += fmt.Sprintf(", not %s (%s)", v, r.Refuse[v])
		}
		d.Note("%s: %s allows %s; each hook call learns the version of the %s that runs it from the client's process and package.json, and is refused when it cannot",
			clientversion.Name(name), policy, allows, clientversion.Name(name))
		f, err := clientversion.Installed(name)
		if err != nil {
			d.Note("  %s on this PATH: %v", clientversion.Name(name), err)
			continue
		}
		if why := clientversion.Check(name, r, f, nil, policy); why != "" {
			d.Problem("upgrade "+clientversion.Name(name), "the %s on this PATH would be refused: %s", clientversion.Name(name), why)
		} else {
			d.OK("%s %s on this PATH (%s) is allowed", clientversion.Name(name), f.Version, f.Source)
		}
	}
}
