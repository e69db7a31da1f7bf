package worker

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/hookctl/hookctl/internal/clip"
	"github.com/hookctl/hookctl/retriever"
	"github.com/hookctl/hookctl/retriever/internal/proc"
	"github.com/hookctl/hookctl/retriever/settings"
)

// A user's own program as the distiller: [retriever.command] argv, run without a shell.
//
// Its stdin is plain text a model can read as is (so `ollama run llama3.1` or `llm -m x` work
// unchanged), exactly:
//
//	<SystemPrompt>
//	<blank line>
//	=== END OF SYSTEM PROMPT. THE REQUEST FOLLOWS. ===
//	<blank line>
//	<BuildPrompt(need, docs)>
//
// A wrapper that talks to an API with separate system and user messages splits stdin at the
// first line equal to CommandPromptSeparator. Its stdout is the answer (a final "Suspected
// injection:" section is parsed as for every backend); stderr is shown only in errors. It runs in
// a fresh empty directory, with the retriever's environment plus HOOKCTL_IN_RETRIEVER=1, for at
// most DistillTimeout; output past MaxDistilledBytes stops it and is clipped. A non-zero exit is
// an error.

// CommandPromptSeparator is the line between the system prompt and the request on a command
// distiller's stdin.
const CommandPromptSeparator = "=== END OF SYSTEM PROMPT. THE REQUEST FOLLOWS. ==="

// maxProgramStderr caps the stderr kept for an error message.
const maxProgramStderr = 4 << 10

type commandDistiller struct {
	argv    []string // argv[0] resolved to a path
	environ []string
	timeout time.Duration
}

func newCommand(c *retriever.DistillerChoice, environ []string) *commandDistiller {
	return &commandDistiller{argv: append([]string(nil), c.Argv...), environ: environ, timeout: settings.DistillTimeout}
}

func (c *commandDistiller) Name() string   { return settings.BackendCommand }
func (c *commandDistiller) String() string { return "command:" + filepath.Base(c.argv[0]) }

func (c *commandDistiller) Distill(ctx context.Context, need string, docs []retriever.Document) (*retriever.Answer, error) {
	stdin := SystemPrompt + "\n\n" + CommandPromptSeparator + "\n\n" + BuildPrompt(need, docs)
	env := withEnv(c.environ, retriever.InRetrieverEnv+"=1")
	out, err := runProgram(ctx, c.argv, env, stdin, c.timeout, settings.MaxDistilledBytes)
	if err != nil {
		return nil, fmt.Errorf("failed to distill with command %s: %w", filepath.Base(c.argv[0]), err)
	}
	if strings.TrimSpace(out) == "" {
		return nil, fmt.Errorf("failed to distill with command %s: it printed nothing", filepath.Base(c.argv[0]))
	}
	return finishAnswer(c.String(), out), nil
}

// runProgram runs argv (no shell) in a fresh temporary directory with env, stdin as its input,
// for at most timeout. It returns stdout; output past maxOut stops the program and is clipped
// with a note. A non-zero exit, a timeout or a start failure is an error quoting the start of
// stderr (or of stdout when stderr is empty).
func runProgram(ctx context.Context, argv, env []string, stdin string, timeout time.Duration, maxOut int) (string, error) {
	dir, err := os.MkdirTemp("", "hookctl-distill-")
	if err != nil {
		return "", fmt.Errorf("failed to create a working directory: %w", err)
	}
	defer os.RemoveAll(dir)

	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = env
	cmd.Stdin = strings.NewReader(stdin)
	stdout := &cappedBuffer{max: maxOut, full: cancel}
	stderr := &cappedBuffer{max: maxProgramStderr}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	// A grandchild holding the pipes open must not keep us waiting past the program's exit.
	cmd.WaitDelay = 2 * time.Second
	runErr := proc.RunStopping(ctx, cmd)

	out := stdout.String()
	switch {
	case stdout.overflow():
		return out + fmt.Sprintf("\n[output clipped at %d bytes; the program was stopped]", maxOut), nil
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return "", fmt.Errorf("no answer within %v", timeout)
	case runErr != nil:
		detail := oneLine(stderr.String(), 300)
		if detail == "" {
			detail = oneLine(out, 300)
		}
		if detail != "" {
			return "", fmt.Errorf("%w: %s", runErr, detail)
		}
		return "", runErr
	}
	return out, nil
}

// cappedBuffer keeps the first max bytes written to it and discards the rest, calling full once
// when that happens so the writer can be stopped. It never fails a write, so a program is never
// blocked on a full pipe.
type cappedBuffer struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	max  int
	over bool
	full func()
}

func (c *cappedBuffer) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if room := c.max - c.buf.Len(); room < len(p) {
		c.buf.Write(p[:max(room, 0)])
		if !c.over && c.full != nil {
			c.full()
		}
		c.over = true
		return len(p), nil
	}
	c.buf.Write(p)
	return len(p), nil
}

func (c *cappedBuffer) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return clip.Prefix(c.buf.String(), c.max)
}

func (c *cappedBuffer) overflow() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.over
}
