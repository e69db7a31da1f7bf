package main

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/hookctl/hookctl/agents/claude"
	"github.com/hookctl/hookctl/audit"
	"github.com/hookctl/hookctl/gate"
	"github.com/hookctl/hookctl/programs"
	"github.com/hookctl/hookctl/retriever/front"
	"github.com/hookctl/hookctl/sandbox"
	"github.com/hookctl/hookctl/securerun"
)

type runOptions struct {
	Profile, Repo, Out, Network, Credentials string
	ModelURL, ModelBackend                   string
	AllowSensitive, Env, Read                []string
	DryRun, JSON                             bool
	MaxArtifactSize                          int64
	Grace                                    time.Duration
}

func newRunCmd(s *streams) *cobra.Command {
	opts := &runOptions{}
	cmd := &cobra.Command{
		Use:   "run --profile secure-read-only [--repo DIR] [--out DIR] [--dry-run] [--json] -- COMMAND [ARG…]",
		Short: "Run an agent (or any command) on a sensitive repository under a fail-closed profile",
		Long: `run checks the repository and the machine (the preflight), prints the effective policy, and
runs COMMAND in the repository under the secure-read-only sandbox: it reads only the repository
and the system's programs, libraries and /etc (without its credential files), writes only the
output directory (HOME and TMPDIR are fresh directories there; $HOOKCTL_RUN_OUT is where its
artifacts go), has no network and no credential of yours. runmeta.json in the output directory
records the preflight, the outcome and the artifacts. See docs/secure-read-only.md.

The run is refused, and nothing runs, when the repository holds sensitive files (.env*, private
keys, credential stores, tokens in well-known files; --allow-sensitive PATH lets one, or a
directory of them, through), when --env would forward a credential, or when any part of the
isolation cannot apply.

--network model-only gives the run one destination, the model's API, through hookctl's
credential broker: the credential (ANTHROPIC_API_KEY or ANTHROPIC_AUTH_TOKEN in hookctl's
environment) never enters the run; the agent sees a placeholder. When COMMAND is Claude Code,
hookctl's hooks are installed for it, pinned read-only, and the repository's own settings and
MCP servers are not loaded.

Exit status: COMMAND's; 128+N when signal N interrupted the run; 125 when it did not start;
3 on a usage error.`,
		Example: `  hookctl run --profile secure-read-only --dry-run -- claude -p "review the auth code"
  hookctl run --profile secure-read-only --out /tmp/review -- ./scripts/analyse.sh`,
		RunE: func(cmd *cobra.Command, args []string) error {
			switch {
			case opts.Profile == "":
				return errors.New("give --profile secure-read-only (the one profile so far)")
			case opts.Profile != securerun.Profile:
				return fmt.Errorf("unknown profile %q: the one profile is %s", opts.Profile, securerun.Profile)
			case opts.Network != securerun.NetworkDeny && opts.Network != securerun.NetworkModelOnly:
				return fmt.Errorf("--network %q: the policies are deny and model-only", opts.Network)
			case opts.MaxArtifactSize <= 0:
				return errors.New("--max-artifact-size must be positive")
			case len(args) == 0:
				return errors.New("give the command after --, e.g. hookctl run --profile secure-read-only -- ./analyse.sh")
			}
			return runRun(s, opts, args)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.Profile, "profile", "", "the profile: secure-read-only")
	f.StringVar(&opts.Repo, "repo", "", "the repository `DIR` (default: the git work tree holding the current directory)")
	f.StringVar(&opts.Out, "out", "", "the output `DIR`, new or empty (default: a new directory under hookctl's runs/)")
	f.StringVar(&opts.Network, "network", securerun.NetworkDeny, "the network: deny (none), or model-only (the model's API alone, through hookctl's credential broker)")
	f.StringVar(&opts.ModelURL, "model-url", "", "model-only: the model's base `URL` (default: $ANTHROPIC_BASE_URL, else the backend's public endpoint); it must be on [run] model_endpoints")
	f.StringVar(&opts.ModelBackend, "model-backend", "anthropic", "model-only: the model API, "+strings.Join(securerun.BackendNames(), " or "))
	f.StringArrayVar(&opts.Read, "read", nil, "let the run read and execute `DIR` too (a program installed outside /usr, such as the agent's own installation); repeat it for more")
	f.StringVar(&opts.Credentials, "credentials", securerun.CredentialsNone, "the credential mode: none")
	f.StringArrayVar(&opts.AllowSensitive, "allow-sensitive", nil, "let a sensitive `PATH` (a file, or a directory) of the repository through; repeat it for more")
	f.StringArrayVar(&opts.Env, "env", nil, "forward a variable, `NAME` (its value here) or NAME=VALUE; never a credential")
	f.BoolVar(&opts.DryRun, "dry-run", false, "print the preflight and stop")
	f.BoolVar(&opts.JSON, "json", false, "print the preflight (and at the end the run's record) as JSON")
	f.Int64Var(&opts.MaxArtifactSize, "max-artifact-size", securerun.DefaultMaxSize, "the `BYTES` an artifact may have before it is quarantined")
	f.DurationVar(&opts.Grace, "grace", 2*time.Second, "how long the run's processes get between SIGTERM and SIGKILL when it is interrupted")
	f.SetInterspersed(false)
	return cmd
}

func runRun(s *streams, opts *runOptions, args []string) error {
	env := hookEnv()
	if env.err != nil {
		return env.err
	}
	if env.binary == "" {
		return errors.New("hookctl does not know its own path, so it cannot start its launcher")
	}
	dir, err := os.Getwd()
	if err != nil {
		return err
	}
	// The user's own config only: the repository's .hookctl.toml has no say in where its
	// content goes.
	cfg, err := gate.LoadConfig(env.home)
	if err != nil {
		return err
	}
	started := time.Now()
	id := securerun.NewRunID(started, randomHex(4))
	probe := ""
	if st := sandbox.Current(env.home, env.binary); !st.Available {
		probe = st.Reason
	}
	p := securerun.Gather(securerun.Options{
		Profile: opts.Profile, Network: opts.Network, Credentials: opts.Credentials,
		Repo: opts.Repo, Dir: dir, Out: opts.Out, StateDir: env.home, ID: id, UserHome: env.userHome,
		AllowSensitive: opts.AllowSensitive, Env: opts.Env, Command: args, Environ: os.Environ(),
		MaxArtifactBytes: opts.MaxArtifactSize, Git: containedGit(env, probe == ""), ProbeProblem: probe,
		Read: opts.Read, ModelURL: opts.ModelURL, ModelBackend: opts.ModelBackend, ModelEndpoints: cfg.Run.ModelEndpoints,
		Agent: claude.RunAgent(env.binary, front.WorkerPath(env.binary)), NetworkNamespaces: networkNamespaceProblem(),
	})
	out := s.err
	if opts.DryRun {
		out = s.out
	}
	if opts.JSON {
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		enc.Encode(p)
	} else {
		securerun.Render(out, p)
	}
	if !opts.DryRun {
		recordRunStart(s, env, cfg, p, id, started)
	}
	if !p.OK() || opts.DryRun {
		if p.OK() {
			return nil
		}
		return exitCode(securerun.ExitNotStarted)
	}
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigs)
	meta, code, err := securerun.Run(p, id, securerun.Launch{
		Launcher: securerun.LauncherArgs(env.binary, p),
		Stdin:    os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Record: !isTerminal(os.Stdout),
		Signals: sigs, Grace: opts.Grace,
		Worker:    front.WorkerPath(env.binary),
		Decisions: agentDecisions(p),
	})
	if err != nil {
		fmt.Fprintln(s.err, "hookctl run:", err)
	}
	recordRunEnd(s, env, cfg, p, id, meta, code, err)
	if meta != nil {
		if opts.JSON {
			enc := json.NewEncoder(s.err)
			enc.SetIndent("", "  ")
			enc.Encode(meta)
		} else {
			fmt.Fprintln(s.err, summary(meta))
		}
	}
	return exitCode(code)
}

// summary is the line hookctl run ends with.
func summary(m *securerun.RunMeta) string {
	var b strings.Builder
	fmt.Fprintf(&b, "hookctl run: %s", m.State)
	switch {
	case m.NotStarted != "":
		fmt.Fprintf(&b, ": %s; nothing ran", m.NotStarted)
	case m.Interrupted != nil:
		fmt.Fprintf(&b, " by %s", m.Interrupted.Signal)
	case m.Exit != nil:
		fmt.Fprintf(&b, ", exit %d", m.Exit.Code)
	}
	if n := m.Network; n != nil {
		fmt.Fprintf(&b, "; %d model requests, %d refused", n.Requests, n.Refused)
		if n.BrokerError != "" {
			fmt.Fprintf(&b, " (the credential broker: %s)", n.BrokerError)
		}
	}
	if tc := m.ToolCalls; tc != nil {
		fmt.Fprintf(&b, "; %d tool calls denied, %d allowed", tc.Denied, tc.Allowed)
	}
	if m.Output != nil {
		fmt.Fprintf(&b, "; %d artifacts, %d quarantined", len(m.Output.Artifacts)+m.Output.Unlisted, len(m.Output.Quarantined))
	}
	fmt.Fprintf(&b, "; %s", filepath.Join(m.Preflight.Out, securerun.MetaName))
	return b.String()
}

// agentDecisions counts what the agent's hookctl hooks decided in the run, from the decision
// log in the run's hookctl home; nil when hookctl installed no hooks (not an agent it knows).
func agentDecisions(p *securerun.Preflight) func() *securerun.ToolCalls {
	if p.Agent == nil || p.Agent.HookctlHome == "" {
		return nil
	}
	return func() *securerun.ToolCalls {
		entries, damaged, _ := audit.DecisionLogAt(p.Agent.HookctlHome).Entries()
		tc := &securerun.ToolCalls{Damaged: damaged}
		for _, e := range entries {
			if e.Event != "tool" {
				continue
			}
			if e.Verdict == "deny" {
				tc.Denied++
			} else {
				tc.Allowed++
			}
		}
		return tc
	}
}

// networkNamespaceProblem says why this user cannot give a run a network namespace of its own
// (which --network model-only needs), or "": root can; anyone else needs unprivileged user
// namespaces, which some systems turn off.
func networkNamespaceProblem() string {
	if os.Geteuid() == 0 {
		return ""
	}
	for _, f := range []struct{ path, off string }{
		{"/proc/sys/user/max_user_namespaces", "0"},
		{"/proc/sys/kernel/unprivileged_userns_clone", "0"},
		{"/proc/sys/kernel/apparmor_restrict_unprivileged_userns", "1"},
	} {
		if b, err := os.ReadFile(f.path); err == nil && strings.TrimSpace(string(b)) == f.off {
			return "unprivileged user namespaces are turned off (" + f.path + " is " + f.off + ")"
		}
	}
	return ""
}

// containedGit runs git for the preflight in hookctl's read-only sandbox, pinned as the hook pins
// the agent's git (programs.GitPins): a hostile repository's filter drivers and hooks, which
// git status can run, then run where they can write nothing and reach no network. Without a
// sandbox nothing of the repository's runs: the preflight fails on it.
func containedGit(env environment, sandboxed bool) func(dir string, args ...string) ([]byte, error) {
	return func(dir string, args ...string) ([]byte, error) {
		if !sandboxed {
			return nil, errors.New("no sandbox to run git in")
		}
		scratch, err := os.MkdirTemp("", "hookctl-run-git-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(scratch)
		pinEnv, pins := programs.GitPins()
		argv := append([]string{"sandbox", "--scratch", scratch, "--", "git"}, pins...)
		cmd := exec.Command(env.binary, append(append(argv, "-C", dir), args...)...)
		cmd.Env = append([]string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + env.userHome, "HOOKCTL_HOME=" + env.home, "LC_ALL=C"}, pinEnv...)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			return out, fmt.Errorf("%v: %s", err, strings.TrimSpace(stderr.String()))
		}
		return out, nil
	}
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// isTerminal says whether f is a terminal (a character device): an interactive agent's output,
// which is not recorded (a copy through a pipe would take the terminal from it).
func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
