package worker

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/hookctl/hookctl/retriever"
	"github.com/hookctl/hookctl/retriever/settings"
)

// The user's Claude Code CLI as the distiller: `claude -p`, reading the prompt on stdin, with no
// tools, no hooks, no settings files, no MCP servers, no CLAUDE.md and no saved session. It is
// the backend for users whose only model access is a Claude subscription.
//
// What each guard does, as seen live with Claude Code 2.1.328 against a fake Messages API whose
// model answers its first turn with a Bash tool call. TestClaudeCLIRealClient re-checks the
// first three points and --no-session-persistence, and fails when any of those flags is dropped
// (--settings and --setting-sources each stop the hooks alone; both are kept as two locks):
//
//   - --tools "": the request offers no tools at all; a tool call the model makes anyway is
//     refused by the client ("No such tool available") and runs nothing, and no PreToolUse hook
//     fires. Without it the client offers Agent, Bash, Edit, Read, Write and more.
//   - --settings '{"disableAllHooks":true}': no hook from the user's or the project's settings
//     fires (SessionStart, UserPromptSubmit, Stop, SessionEnd all fired without it, even with
//     no tools), and it won over a project file that set disableAllHooks to false. Hooks in
//     managed (organization) settings are documented to survive every flag (not tested here);
//     a hookctl hook registered there sees HOOKCTL_IN_RETRIEVER=1 and must not retrieve.
//   - --setting-sources "": user, project and local settings files are not read, and neither
//     is any CLAUDE.md, so no local file content reaches the request. (Without it, both
//     ~/.claude/CLAUDE.md and ./CLAUDE.md were in the request, even with --system-prompt.)
//   - --strict-mcp-config with no --mcp-config: no MCP server from any configuration (defence
//     in depth; not exercised, no MCP server was configured).
//   - --system-prompt: SystemPrompt replaces Claude Code's agent prompt (the client still
//     prepends its own short identity and billing lines).
//   - --max-turns 2: a model that tries a tool gets one error back and one more turn to answer.
//   - --no-session-persistence: no transcript of the untrusted content under ~/.claude/projects.
//   - --disable-slash-commands: no skills.
//
// The client still writes ~/.claude.json and ~/.claude/{backups,plugins,sessions}, so a
// sandbox around the retriever must let it read and write those, and read its credentials.
//
// --bare would also skip hooks, but it restricts authentication to ANTHROPIC_API_KEY (no OAuth,
// no keychain), which defeats the purpose of this backend, and it still offered Bash, Edit and
// Read; it is not used.

// claudeCLIArgs are the arguments of every distiller run, the prompt coming on stdin: system is
// SystemPrompt, or the research loop's prompt with its tools described as text.
func claudeCLIArgs(model, system string) []string {
	return []string{
		"-p",
		"--output-format", "text",
		"--tools", "",
		"--settings", `{"disableAllHooks":true}`,
		"--setting-sources", "",
		"--strict-mcp-config",
		"--disable-slash-commands",
		"--no-session-persistence",
		"--max-turns", "2",
		"--system-prompt", system,
		"--model", model,
	}
}

type claudeCLIDistiller struct {
	path    string
	model   string
	environ []string
	timeout time.Duration
}

func newClaudeCLI(c *retriever.DistillerChoice, environ []string) *claudeCLIDistiller {
	return &claudeCLIDistiller{path: c.Argv[0], model: c.Model, environ: environ, timeout: settings.DistillTimeout}
}

func (c *claudeCLIDistiller) Name() string   { return settings.BackendClaudeCLI }
func (c *claudeCLIDistiller) String() string { return "claude-cli:" + c.model }

func (c *claudeCLIDistiller) Distill(ctx context.Context, need string, docs []retriever.Document) (*retriever.Answer, error) {
	argv := append([]string{c.path}, claudeCLIArgs(c.model, SystemPrompt)...)
	env := withEnv(c.environ, retriever.InRetrieverEnv+"=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1")
	out, err := runProgram(ctx, argv, env, BuildPrompt(need, docs), c.timeout, settings.MaxDistilledBytes)
	if err != nil {
		return nil, fmt.Errorf("failed to distill with claude -p: %w", err)
	}
	if strings.TrimSpace(out) == "" {
		return nil, fmt.Errorf("failed to distill with claude -p: it printed nothing")
	}
	return finishAnswer(c.String(), out), nil
}
