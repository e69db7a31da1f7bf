//go:build linux

// Package faultbench runs hookctl's reliability faults for real against a built hookctl binary
// and counts what went wrong: a toggle that did not land on a full disk, a torn or blank line in
// a log, an answer the log does not hold, a call refused at the deadline in a burst, a reader
// that hangs, a state file a toggle cannot repair, a read that misses records across a
// rotation, a temporary file left behind. It drives the binary only through its command line
// (hook, readonly, log, audit) and reads the files it leaves raw, with its own parser, so the
// same measurement runs against any build: the tests (cmd/hookctl) hold each figure at zero, and
// `go run ./internal/faultbench/cmd/faultbench -bin PATH` prints the figures of any binary, to
// compare one build with another.
//
// It runs in tests and in that command only; nothing in hookctl imports it.
package faultbench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// World is one hookctl home and the binary that runs in it.
type World struct {
	Bin  string
	Home string
	// Cred, if set, runs every command as that user (the home must be theirs).
	Cred *syscall.Credential
	// Env is added to the environment of every command.
	Env []string
}

// NewWorld makes a home under dir for bin, owned by cred's user when cred is set.
func NewWorld(bin, dir string, cred *syscall.Credential) (*World, error) {
	home := filepath.Join(dir, "home")
	if err := os.MkdirAll(home, 0o700); err != nil {
		return nil, err
	}
	if cred != nil {
		if err := os.Chown(home, int(cred.Uid), int(cred.Gid)); err != nil {
			return nil, err
		}
	}
	return &World{Bin: bin, Home: home, Cred: cred}, nil
}

// Command is bin with args, in the world's environment.
func (w *World) Command(args ...string) *exec.Cmd {
	cmd := exec.Command(w.Bin, args...)
	env := []string{"HOOKCTL_HOME=" + w.Home, "HOME=" + filepath.Dir(w.Home), "PATH=/usr/local/bin:/usr/bin:/bin"}
	cmd.Env = append(env, w.Env...)
	cmd.Dir = "/"
	if w.Cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: w.Cred}
	}
	return cmd
}

// Result is what one command did.
type Result struct {
	Out, Err string
	Code     int // -1: killed or not started
	Took     time.Duration
}

// Run runs bin with args and stdin, waiting at most limit (0: 30 s); a command past it is killed
// and reported with Code -1 and Err "timed out".
func (w *World) Run(stdin string, limit time.Duration, args ...string) Result {
	if limit == 0 {
		limit = 30 * time.Second
	}
	cmd := w.Command(args...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return Result{Err: err.Error(), Code: -1}
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	timer := time.NewTimer(limit)
	defer timer.Stop()
	select {
	case <-done:
	case <-timer.C:
		cmd.Process.Kill()
		<-done
		return Result{Out: out.String(), Err: "timed out", Code: -1, Took: time.Since(start)}
	}
	return Result{Out: out.String(), Err: errb.String(), Code: cmd.ProcessState.ExitCode(), Took: time.Since(start)}
}

// Hook runs `hookctl hook` on payload.
func (w *World) Hook(payload string) Result { return w.Run(payload, 0, "hook") }

// Readonly runs `hookctl readonly VERB --session ID`.
func (w *World) Readonly(verb, session string) Result {
	return w.Run("", 0, "readonly", verb, "--session", session)
}

// Payloads of Claude Code's hook events.

// ToolCall is a PreToolUse payload.
func ToolCall(session, cwd, tool string, input map[string]any, useID string) string {
	p := map[string]any{"session_id": session, "cwd": cwd, "hook_event_name": "PreToolUse", "tool_name": tool,
		"tool_input": input, "permission_mode": "default", "transcript_path": "/dev/null"}
	if useID != "" {
		p["tool_use_id"] = useID
	}
	b, _ := json.Marshal(p)
	return string(b)
}

// Bash is a Bash tool call.
func Bash(session, cwd, command string) string {
	return ToolCall(session, cwd, "Bash", map[string]any{"command": command, "description": "d"}, "")
}

// Write is a Write tool call.
func Write(session, cwd, path string) string {
	return ToolCall(session, cwd, "Write", map[string]any{"file_path": path, "content": "x"}, "")
}

// SessionStart is a SessionStart payload.
func SessionStart(session, cwd string) string {
	b, _ := json.Marshal(map[string]any{"session_id": session, "cwd": cwd, "hook_event_name": "SessionStart", "source": "startup",
		"transcript_path": "/dev/null"})
	return string(b)
}

// Verdict is the decision a PreToolUse answer gives: deny, allow, ask, or pass (no decision).
// An answer that is not one is "unreadable".
func Verdict(out string) string {
	var o struct {
		Decision string `json:"decision"`
		H        *struct {
			PermissionDecision string `json:"permissionDecision"`
		} `json:"hookSpecificOutput"`
	}
	out = strings.TrimSpace(out)
	if out == "" {
		return "pass"
	}
	if json.Unmarshal([]byte(out), &o) != nil {
		return "unreadable"
	}
	switch {
	case o.H != nil && o.H.PermissionDecision != "":
		return o.H.PermissionDecision
	case o.Decision == "block":
		return "deny"
	}
	return "pass"
}

// DeadlineRefusal reports whether an answer is the runner's refusal at its deadline.
func DeadlineRefusal(r Result) bool {
	return strings.Contains(r.Out, "did not decide within") || strings.Contains(r.Err, "did not decide within")
}

// Record a session in mode: recorded by a first hook call, then toggled by the human.
func (w *World) Record(session, cwd, mode string) error {
	if r := w.Hook(SessionStart(session, cwd)); r.Code != 0 {
		return fmt.Errorf("SessionStart: exit %d: %s %s", r.Code, r.Out, r.Err)
	}
	verb := map[string]string{"read-only": "on", "edit": "off", "review": "review"}[mode]
	if r := w.Readonly(verb, session); r.Code != 0 {
		return fmt.Errorf("readonly %s: exit %d: %s %s", verb, r.Code, r.Out, r.Err)
	}
	return nil
}

// Mode is the session's mode as `readonly status` shows it, or "damaged: …".
func (w *World) Mode(session string) string {
	r := w.Readonly("status", session)
	switch {
	case r.Code != 0:
		return "damaged: " + strings.TrimSpace(r.Err)
	case strings.Contains(r.Out, "READ-ONLY"):
		return "read-only"
	case strings.Contains(r.Out, "REVIEW"):
		return "review"
	case strings.Contains(r.Out, "EDIT"):
		return "edit"
	}
	return "unknown: " + r.Out
}
