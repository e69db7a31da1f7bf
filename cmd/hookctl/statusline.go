package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/tidwall/gjson"

	"github.com/hookctl/hookctl/config"
	"github.com/hookctl/hookctl/gate"
	"github.com/hookctl/hookctl/hook"
	"github.com/hookctl/hookctl/internal/fsutil"
	"github.com/hookctl/hookctl/policy"
	"github.com/hookctl/hookctl/session"
)

// statusLineFile keeps the status line command install replaced, which hookctl's status line
// runs after its badge and uninstall puts back.
const statusLineFile = "statusline.json"

// inWrappedEnv marks the environment of the status line command hookctl runs after its badge.
// A hookctl status line that sees it runs no command of its own, so a saved command that is
// hookctl's status line again cannot start a chain of them. It can only make the line shorter.
const inWrappedEnv = "HOOKCTL_IN_STATUSLINE"

// wrappedTimeout bounds the user's own status line command.
const wrappedTimeout = 2 * time.Second

func newStatuslineCmd(s *streams) *cobra.Command {
	return &cobra.Command{
		Use:   "statusline",
		Short: "Print the session's mode for Claude Code's status line",
		Long: `statusline reads Claude Code's status line input on standard input and prints the
session's mode (🔒 READ-ONLY, 👁 REVIEW or ✏ EDIT), followed by the output of the status line command
that hookctl install replaced, if there was one.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			runStatusline(s)
			return nil
		},
	}
}

// statuslineDeadline bounds the status line, the wrapped command included (wrappedTimeout).
const statuslineDeadline = wrappedTimeout + time.Second

// runStatusline prints the badge. It runs on every assistant message, so it reads the session's
// state, writes only what it drew from (StatusLineDrawn), and never fails loudly: a problem
// shows in the badge, and if reading stalls, the badge says read-only and why.
func runStatusline(s *streams) {
	line := make(chan string, 1)
	go func() { line <- statusLine(s.in) }()
	timer := time.NewTimer(statuslineDeadline)
	defer timer.Stop()
	select {
	case l := <-line:
		io.WriteString(s.out, l+"\n")
	case <-timer.C:
		io.WriteString(s.out, "🔒 READ-ONLY (⚠ hookctl timed out reading its state)\n")
	}
}

func statusLine(stdin io.Reader) string {
	in, _ := io.ReadAll(io.LimitReader(stdin, hook.MaxPayload))
	id := gjson.GetBytes(in, "session_id").Str
	home, err := config.Home()
	if err != nil {
		return "🔒 READ-ONLY (⚠ " + err.Error() + ")"
	}
	cfg, cfgErr := gate.LoadConfig(home)
	line := statusBadge(home, id, cfg, cfgErr)
	if cfgErr != nil {
		// The hook refuses every call while the config is broken, whatever the mode.
		if line != brokenConfigBadge {
			line += " " + brokenConfigBadge
		}
		if out := runWrapped(home, in); out != "" {
			line += "  " + out
		}
		return line
	}
	store := session.NewStore(home)
	store.StatusLineDrawn(id, drawFingerprint(in))
	plan := line != session.Badge(hook.ModeReadOnly) && store.InPlanMode(id)
	switch line {
	case session.Badge(hook.ModeReadOnly):
		iso := isolation(hookEnv())
		line += filterBadge(sandboxBadge(cfg, iso.Available, iso.Failing), iso) + partialBadge(iso)
	case session.Badge(hook.ModeEdit):
		iso := isolation(hookEnv())
		held := iso.Edit || iso.EditLandlock
		line += sandboxBadge(cfg, held, iso.EditFailing)
		if iso.EditLandlock && !iso.Edit && !iso.EditFailing {
			line += " " + editLandlockBadge
		}
		if held && cfg.FullNetwork() {
			line += " " + fullNetworkBadge
		}
	case session.Badge(hook.ModeReview):
		// Review mode's reads are held as read-only mode's are; its publishes are not.
		iso := isolation(hookEnv())
		line += filterBadge(sandboxBadge(cfg, iso.Available, iso.Failing), iso) + partialBadge(iso)
		if held, _ := iso.Publish(); !held {
			line += " " + reviewPublishBadge
		}
	}
	if plan {
		line += " " + planBadge
	}
	if cfgErr == nil && cfg.DirectFetch {
		line += " ⚠ DIRECT FETCH" // shown after the mode while direct_fetch is on
	}
	if out := runWrapped(home, in); out != "" {
		line += "  " + out
	}
	return line
}

// drawFingerprint identifies what a status line input shows, without what changes by itself
// (the session's cost and duration, rate limits, the prompt cache's state): two inputs with the
// same fingerprint were redrawn for a reason the input does not carry (Store.StatusLineDrawn).
func drawFingerprint(in []byte) string {
	var m map[string]json.RawMessage
	if json.Unmarshal(in, &m) != nil {
		return ""
	}
	for _, k := range []string{"cost", "rate_limits", "prompt_cache"} {
		delete(m, k)
	}
	b, _ := json.Marshal(m) // map keys sorted: the same input, the same bytes
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:16])
}

// brokenConfigBadge is shown, after the mode, while hookctl's config cannot be loaded: the hook
// then refuses every call.
const brokenConfigBadge = "⚠ hookctl config broken: every call refused"

// planBadge is what the badge adds while the client is in its plan mode, which hookctl holds
// read-only whatever the session's mode (shown once a prompt or call in plan mode reached the
// hook: the status line's input does not say).
const planBadge = "(⏸ plan mode: read-only)"

// fullNetworkBadge is what the edit badge adds while the user has given edit mode's commands the
// whole network (network.edit = "full"), past the egress proxy.
const fullNetworkBadge = "⚠ FULL NETWORK"

// editLandlockBadge is what the edit badge adds where edit mode's commands run in the
// Landlock-only edit profile (no namespaces): doctor says what holds and what does not.
const editLandlockBadge = "(⚠ partial edit sandbox: hookctl doctor)"

// reviewPublishBadge is what the review badge adds where an approved publish runs outside the
// sandbox.
const reviewPublishBadge = "(publish: unsandboxed)"

// statusBadge is the session's mode; a session not seen yet shows the mode it will start in.
func statusBadge(home, id string, cfg *config.Config, cfgErr error) string {
	mode, _, err := session.NewStore(home).Peek(id)
	switch {
	case err == nil:
		return session.Badge(mode)
	case errors.Is(err, session.ErrNoSession):
		if cfgErr != nil {
			return brokenConfigBadge
		}
		return session.Badge(cfg.SessionDefault())
	}
	return "🔒 READ-ONLY (⚠ state unreadable)"
}

// partialBadge is what the badge adds where the sandbox holds without some of its layers (the
// probe's description names them after "; without ": a container's root that cannot empty its
// bounding set, a machine without namespaces); doctor says which.
func partialBadge(iso policy.Isolation) string {
	if iso.Available && strings.Contains(iso.Describe, "; without ") {
		return " (⚠ partial sandbox: hookctl doctor)"
	}
	return ""
}

// filterBadge is badge, but where commands run on the policy alone for their files and the
// policy-only launch still holds its seccomp filter (no network): says so (issue 28).
func filterBadge(badge string, iso policy.Isolation) string {
	if badge == " "+policy.PolicyOnlyBadge && iso.PolicyOnly != "" {
		return " (⚠ policy only for files, seccomp holds: hookctl doctor)"
	}
	return badge
}

// sandboxBadge is what a mode's badge adds where its commands cannot run in their sandbox
// (held says whether they can): policy only, or, when the config requires the sandbox or the
// sandbox held here before (failing), that the shell is refused.
func sandboxBadge(cfg *config.Config, held, failing bool) string {
	switch {
	case held:
		return ""
	case failing:
		return " (⚠ sandbox failing: shell refused)"
	case cfg != nil && cfg.Sandbox == config.SandboxRequire:
		return " (⚠ no sandbox: shell refused)"
	}
	return " " + policy.PolicyOnlyBadge
}

// runWrapped runs the status line install replaced, with the same input, and returns its output.
func runWrapped(home string, in []byte) string {
	b, err := fsutil.ReadFile(filepath.Join(home, statusLineFile), 64<<10, true)
	if err != nil {
		return ""
	}
	var saved struct {
		Previous string `json:"previous"`
	}
	if json.Unmarshal(b, &saved) != nil {
		return ""
	}
	command := gjson.Get(saved.Previous, "command").Str
	if command == "" {
		return ""
	}
	if os.Getenv(inWrappedEnv) == "1" {
		return "" // the saved command is hookctl's own status line again: never nest
	}
	ctx, cancel := context.WithTimeout(context.Background(), wrappedTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", command)
	cmd.Env = append(os.Environ(), inWrappedEnv+"=1")
	// The command leads a process group of its own, all of which the timeout kills: a command
	// that starts children must not leave them running after the status line has printed.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = time.Second
	cmd.Stdin = bytes.NewReader(in)
	out, err := cmd.Output()
	if err != nil && len(out) == 0 {
		return ""
	}
	return strings.TrimRight(string(out), "\n")
}
