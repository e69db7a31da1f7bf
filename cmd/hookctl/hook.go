package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"

	"github.com/spf13/cobra"

	"github.com/hookctl/hookctl/agents/agentkit"
	"github.com/hookctl/hookctl/agents/claude"
	"github.com/hookctl/hookctl/agents/claude/permissions"
	"github.com/hookctl/hookctl/agents/codex/execpolicy"
	copilotperm "github.com/hookctl/hookctl/agents/copilot/permissions"
	geminiperm "github.com/hookctl/hookctl/agents/gemini/permissions"
	"github.com/hookctl/hookctl/audit"
	"github.com/hookctl/hookctl/config"
	"github.com/hookctl/hookctl/export/launch"
	"github.com/hookctl/hookctl/gate"
	"github.com/hookctl/hookctl/hook"
	"github.com/hookctl/hookctl/internal/buildinfo"
	"github.com/hookctl/hookctl/internal/overload"
	"github.com/hookctl/hookctl/internal/trustedpath"
	"github.com/hookctl/hookctl/policy"
	"github.com/hookctl/hookctl/sandbox"
	"github.com/hookctl/hookctl/scrub"
	"github.com/hookctl/hookctl/session"
)

func newHookCmd(s *streams) *cobra.Command {
	web, pinned := false, false
	agentName := "claude"
	var runRead []string
	cmd := &cobra.Command{
		Use:   "hook [--agent NAME] [--retrieve]",
		Short: "Answer one hook call of a client (payload on stdin, decision on stdout)",
		Long: `hook reads one hook payload of the client --agent names (claude, the default, codex,
qwen, gemini, copilot or cursor) on standard input and prints the decision in that client's
protocol. It is what the hooks hookctl install registered run; it prints nothing but the
decision on stdout, and on any failure it refuses the call. With --retrieve it is Claude
Code's retrieval hook, which answers WebFetch and WebSearch through the quarantined retriever.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(runRead) > 0 && !pinned {
				return errors.New("--run-read is for the pinned hook of a hookctl run")
			}
			a, err := agentNamed(agentName)
			if err != nil {
				// Exit 2 with the reason on stderr, which every client reads as a block; exit 1
				// lets the call run in Gemini CLI, Codex and Qwen Code.
				fmt.Fprintln(s.err, "hookctl: "+err.Error()+"; the call is refused")
				return exitCode(hook.ExitFailed)
			}
			if code := runHook(s, web, a, pinned, runRead...); code != hook.ExitDecided {
				return exitCode(code)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&web, "retrieve", false, "answer web tools through the retriever")
	cmd.Flags().StringVar(&agentName, "agent", "claude", "the client whose hook this is")
	cmd.Flags().BoolVar(&pinned, "pinned-read-only", false, "read-only whatever the session's state says, toggles refused (the hook of a hookctl run)")
	cmd.Flags().StringArrayVar(&runRead, "run-read", nil, "with --pinned-read-only: a root of the run, which admitted commands may read in its profile")
	cmd.Flags().MarkHidden("run-read")
	return cmd
}

// runHook answers one hook call and returns the exit code: the one runner, with the decider of
// the hook instance the client started.
//
// pinned is the hook hookctl run installs for the agent it runs: the run is read-only from its
// start to its end, so the session state (which lies in the run's own, writable, home) is not
// consulted for the mode, and no toggle is honoured.
//
// runRead are the run's roots: its hooks run each admitted command in the run's own profile
// (secure-read-only) again, with these roots and no write but the session's scratch directory;
// the read-only profile, which reads all but hookctl's directories, cannot be built inside the
// run's sandbox, where / itself is unreadable. The run's launcher has applied that profile on
// this kernel already; the inner one refuses to run the command if it cannot apply.
//
// a is the client whose hook protocol the call speaks (--agent).
func runHook(s *streams, web bool, a agent, pinned bool, runRead ...string) int {
	r := &hook.Runner{Stdin: s.in, Stdout: s.out, Stderr: s.err, Adapter: a.Adapter, Agent: a.Client.Name}
	if os.Getenv(inRetrieverEnv) == "1" {
		return r.Run(hook.RefuseTools)
	}
	env := hookEnv()
	// The sandbox probe's answer, read (or, the first time after an install or an upgrade,
	// probed) before the run's deadline starts: in a burst of hooks with none cached one
	// process probes and the others wait for it, longer than a decision may take (the hooks
	// that waited inside their deadline were refused at it). The probe runs at full priority;
	// a hook that waits for another's steps back first (overload), so that when the answer
	// comes the burst's waiters do not all wake ahead of the human's toggle.
	iso := sync.OnceValue(func() policy.Isolation { return isolationWaiting(env, func() { overload.Yield() }) })
	if env.err == nil {
		iso()
		// In a burst of hooks, the human's toggle first.
		overload.Enter(filepath.Join(env.home, hookSlots))
		// Every answer, the runner's own refusals included, once given.
		log := audit.DecisionLogAt(env.home)
		r.Log = func(e *hook.LogEntry) {
			if err := log.Append(e); err != nil {
				s.err.Write([]byte("hookctl: " + err.Error() + "\n"))
			}
		}
	}
	var loaded *config.Config // the config the decision was made under, for the export after it
	loadConfig := func(cwd string) (*config.Config, error) {
		if env.err != nil {
			return nil, env.err
		}
		c, err := gate.LoadConfigFor(env.home, cwd)
		if err == nil {
			if why := gate.VersionRefusal(c, a.Name); why != "" {
				return nil, errors.New(why)
			}
			loaded = c
		}
		return c, err
	}
	// Once the client has its answer and the record is written: ship it, from another process.
	// Not from a hookctl run's pinned hook: its home is the run's own, inside its sandbox.
	if !pinned {
		defer func() { startExport(env, loaded) }()
	}
	if web {
		ret := &gate.Retrieval{LoadConfig: loadConfig, Retrieve: hookRetrieve(env), MinAnswer: claude.RetrievalAnswerDelay}
		if env.err == nil {
			store := session.NewStore(env.home)
			ret.Claim = func(c *hook.ToolCall) bool { return c.UseID == "" || store.Claim(c.Session, "retrieve", c.UseID) }
		}
		return r.Run(ret)
	}
	g := newGate(env, a, loadConfig, iso)
	if env.err == nil {
		g.AuditPublish = func(c *hook.ToolCall, r *hook.PublishRecord) error {
			cfg, err := loadConfig(c.Cwd)
			if err != nil {
				return err
			}
			a := audit.AuditAt(env.home)
			a.MaxBytes = cfg.Audit.MaxBytes
			return a.AppendPublish(c, r)
		}
	}
	if env.err == nil {
		g.Store = session.NewStore(env.home)
		g.Modes = session.StoreModes{Store: g.Store}
	}
	if len(runRead) > 0 {
		g.LaunchProfile = []string{"--profile", sandbox.SecureReadOnlyName}
		for _, r := range runRead {
			g.LaunchProfile = append(g.LaunchProfile, "--read", r)
		}
		g.Sandbox = func() policy.Isolation {
			return policy.Isolation{Available: true, Describe: "hookctl run's secure-read-only profile, again, without writes or network",
				EditReason: "a hookctl run is read-only"}
		}
	}
	if pinned {
		g.Modes = session.FixedMode(hook.ModeReadOnly)
		g.Pinned = "this session is a hookctl run (hookctl run --profile secure-read-only), read-only from its start to its end"
	}
	return r.Run(g)
}

// startExport starts hookctl-export if the config (cfg, or the global one where the call
// loaded none) names a collector: detached, and only if none runs (export/launch).
func startExport(env environment, cfg *config.Config) {
	if env.err != nil || env.binary == "" {
		return
	}
	if cfg == nil {
		var err error
		if cfg, err = gate.LoadConfig(env.home); err != nil {
			return
		}
	}
	if cfg.Telemetry.Enabled() {
		launch.Start(env.home, env.binary)
	}
}

// hookSlots is the file in hookctl's home whose locks count the running hooks (overload).
const hookSlots = "hooks.slots"

// claudeRules loads Claude Code's permission rules in force for a session in cwd: its settings
// files, and the command line of the client process the hook runs under.
func claudeRules(userHome, cwd string) *permissions.Set {
	args, dir, ok := permissions.ClientCommandLine(os.Getppid(), claude.IsClientProcess)
	return permissions.Load(permissions.Options{Home: userHome, ConfigDir: os.Getenv("CLAUDE_CONFIG_DIR"), Cwd: cwd,
		ManagedDir: permissions.ManagedDir(runtime.GOOS), Args: args, ArgsKnown: ok, ClientDir: dir})
}

// otherRules loads the permission rules of a client other than Claude Code that takes a
// rewritten command, for a session in the call's directory; nil for one whose rules are not
// modelled.
func otherRules(agent, userHome string) func(c *hook.ToolCall) policy.ClientRules {
	ancestors := func() []int {
		var pids []int
		for _, p := range session.Ancestors(os.Getpid()) {
			pids = append(pids, p.PID)
		}
		return pids
	}
	switch agent {
	case "codex":
		return func(c *hook.ToolCall) policy.ClientRules {
			home := os.Getenv("CODEX_HOME")
			if home == "" {
				home = filepath.Join(userHome, ".codex")
			}
			return execpolicy.Load(execpolicy.Options{CodexHome: home, Cwd: c.Cwd, System: "/etc/codex"})
		}
	case "gemini":
		return func(c *hook.ToolCall) policy.ClientRules {
			args, _ := agentkit.ClientArgs(ancestors(), geminiperm.IsClient)
			return geminiperm.Load(geminiperm.Options{Home: userHome, Cwd: c.Cwd, System: "/etc/gemini-cli", Args: args})
		}
	case "copilot":
		return func(c *hook.ToolCall) policy.ClientRules {
			args, ok := agentkit.ClientArgs(ancestors(), copilotperm.IsClient)
			p := &copilotperm.Permissions{}
			if ok {
				p = copilotperm.Parse(args)
			}
			// Copilot CLI reads COPILOT_ALLOW_ALL=true as allowing everything, and gives its hooks its environment.
			p.AllowAll = p.AllowAll || os.Getenv("COPILOT_ALLOW_ALL") == "true"
			return p
		}
	}
	return nil
}

// environment is where hookctl lives on this machine.
type environment struct {
	home     string // $HOOKCTL_HOME
	userHome string
	binary   string // this executable, symlinks resolved
	err      error  // hookctl's home cannot be found: every call is refused
}

func hookEnv() environment {
	var e environment
	e.home, e.err = config.Home()
	e.userHome, _ = os.UserHomeDir()
	if exe, err := os.Executable(); err == nil {
		// Linux answers from /proc/self/exe, which the kernel has resolved already; elsewhere the
		// path may be the link the process was started through.
		if runtime.GOOS != "linux" {
			if real, err := filepath.EvalSymlinks(exe); err == nil {
				exe = real
			}
		}
		e.binary = exe
	}
	return e
}

// trustedLookPath finds a program hookctl itself runs on PATH, never beneath what a sandboxed
// command may write as it is: the project (cwd, and the git work tree above it), the temporary
// directories, the config's edit_writable (trustedpath.LookPath).
func trustedLookPath(home, cwd, name string) (string, error) {
	untrusted := []string{cwd, os.TempDir(), "/tmp", "/var/tmp", "/dev/shm"}
	for d := filepath.Clean(cwd); filepath.IsAbs(d) && d != filepath.Dir(d); d = filepath.Dir(d) {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			untrusted = append(untrusted, d)
			break
		}
	}
	if cfg, err := gate.LoadConfig(home); err == nil {
		untrusted = append(untrusted, cfg.EditWritable...)
	}
	return trustedpath.LookPath(name, os.Getenv("PATH"), untrusted)
}

// isolation is the sandbox probe's result for this machine, cached in hookctl's home per
// kernel, build and launcher: reading it costs the hook one small file and three system calls.
func isolation(env environment) policy.Isolation { return isolationWaiting(env, nil) }

// isolationWaiting is isolation, calling waiting before it waits for another process's probe
// (sandbox.CurrentWaiting).
func isolationWaiting(env environment, waiting func()) policy.Isolation {
	if env.err != nil || env.binary == "" {
		why := "hookctl does not know its own path"
		return policy.Isolation{Reason: why, EditReason: why}
	}
	st := sandbox.CurrentWaiting(env.home, env.binary, waiting)
	iso := isolationOf(st)
	if st.Launcher {
		// Only a launcher of this build, as the probe found it and the cache's key says it
		// still is: one of another (hookctl upgraded without it) would refuse every command,
		// where hookctl sandbox runs the same profiles.
		iso.Launcher = sandbox.LauncherPath(env.binary)
	}
	iso.Build = buildinfo.Digest()
	return iso
}

// isolationOf is a probe's result as the policy reads it.
func isolationOf(st sandbox.Status) policy.Isolation {
	return policy.Isolation{Available: st.Available, Reason: st.Reason, Describe: st.Isolation, Edit: st.Edit, EditReason: st.EditReason,
		Failing: st.Failing(), EditFailing: st.EditFailing(), PolicyOnly: st.PolicyOnly, EditLandlock: st.EditLandlock}
}

// inRetrieverEnv marks the claude the retriever runs as a distiller (retriever.InRetrieverEnv).
// Its flags keep hookctl's settings-file hooks from firing, but managed hooks always fire; if
// this hook runs there, it refuses every tool call and leaves the rest alone, recording nothing.
// It can only tighten: a variable that turned a rule off could be set by the agent.
const inRetrieverEnv = "HOOKCTL_IN_RETRIEVER"

// newGate is the gate of client a's hook, its questions to the machine answered on this one
// (isolation: whether admitted commands run in the sandbox): the hook decides with it, and
// `hookctl check` and `hookctl log why` ask it for the same policy (Gate.NewPolicy). The hook
// adds the session store, the audit and a hookctl run's pins.
func newGate(env environment, a agent, loadConfig func(cwd string) (*config.Config, error), isolation func() policy.Isolation) *gate.Gate {
	protected := a.Client
	if a.Client.Name != claude.Client.Name {
		protected = guarding(a.Client)
	}
	g := &gate.Gate{
		Environ: os.Environ(),
		Client:  a.Client, LoadConfig: loadConfig, Binary: env.binary,
		Modes: session.FixedMode(hook.ModeReadOnly),
		Protect: func(cwd string) policy.Protection {
			p := gate.ProtectionFor(protected, env.home, env.userHome, env.binary, cwd)
			var writable []string
			if cfg, err := gate.LoadConfig(env.home); err == nil {
				writable = cfg.EditAutoRunWritable
			}
			p.AutoRun, _ = gate.AutoRun(cwd, env.userHome, writable)
			return p
		},
		Resolve:      gate.ResolveTargets,
		ResolveReads: gate.ResolveReads,
		Walk:         gate.Walk,
		ReadList:     gate.ReadList,
		VerifyToggle: nil,
		Sandbox:      isolation,
		LeftEdit:     func(id string) int { return sandbox.EndEdit(env.home, id) },
		EndSession: func(id string) {
			sandbox.EndEdit(env.home, id)
			sandbox.RemoveScratch(env.home, id)
		},
		IsClient: nil,
		ClientVersion: func() string {
			f, err := gate.LearnClient(a.Name)
			if err != nil {
				return ""
			}
			return f.Version
		},
		// gh is found on the PATH the client gave the hook, which its shell shares, in a
		// directory no sandboxed command can write (trustedLookPath).
		GH:      func(cwd string) (string, error) { return trustedLookPath(env.home, cwd, "gh") },
		Secrets: func() *scrub.Scrubber { return scrub.NewScrubber(os.Environ()) },
	}
	if a.Client.Name == claude.Client.Name {
		g.VerifyToggle = func(source string) error { return claude.CheckReadonlyCommandFrom(source, env.userHome) }
		g.IsClient = claude.IsClientProcess
		g.ClientRules = func(c *hook.ToolCall) policy.ClientRules { return claudeRules(env.userHome, c.Cwd) }
	} else {
		g.ClientRules = otherRules(a.Name, env.userHome)
	}
	return g
}
