// Package hook turns a client-neutral tool call into a decision: the policy (read-only mode and
// read-only agent types), the read-only Bash judge, configuration, and the fail-closed runner
// that every client adapter uses.
//
// Nothing here knows any client's payload format; agents/<client> translates payloads into
// Events and Decisions back into the client's output.
package hook

import "encoding/json"

// Kind says what a tool does, in terms the policy judges. Adapters map their client's tool
// names onto kinds; a tool an adapter does not know is KindUnknown, which read-only refuses.
type Kind uint8

const (
	KindUnknown Kind = iota // not known to the adapter
	KindRead                // reads local files or the client's own state (Read, Grep, Glob)
	KindSession             // changes only the client's own session state (todo lists, plan mode)
	KindAgent               // starts a subagent, which is judged in turn
	KindShell               // runs a shell command (Bash)
	KindWeb                 // reaches the network for content (WebFetch, WebSearch)
	KindMutate              // writes files, runs programs, schedules work, or calls external tools
)

func (k Kind) String() string {
	switch k {
	case KindRead:
		return "read"
	case KindSession:
		return "session"
	case KindAgent:
		return "agent"
	case KindShell:
		return "shell"
	case KindWeb:
		return "web"
	case KindMutate:
		return "mutate"
	}
	return "unknown"
}

// EventName is a client-neutral hook event.
type EventName string

const (
	EventPreToolUse      EventName = "PreToolUse"
	EventSessionStart    EventName = "SessionStart"
	EventPromptSubmit    EventName = "UserPromptSubmit"
	EventPromptExpansion EventName = "UserPromptExpansion"
)

// Event is one hook invocation.
type Event struct {
	Name    EventName
	Session string
	Cwd     string
	Call    *Call // for EventPreToolUse

	// For prompts: the text the user submitted, its id, and for an expanded slash command
	// its name, arguments and where it was defined ("userSettings", "projectSettings", …).
	Prompt        string
	PromptID      string
	CommandName   string
	CommandArgs   string
	CommandSource string
}

// Call is a tool call, whatever client made it.
type Call struct {
	Session   string
	AgentID   string // empty on the main thread
	AgentType string // the subagent type, or the --agent of the main thread
	Cwd       string
	Tool      string          // the client's tool name, for messages
	Kind      Kind            // what the tool does
	Input     json.RawMessage // the tool's input as the client sent it
	Command   string          // the command line of a tool that runs one (Bash, Monitor)
	Paths     []string        // the files a writing tool writes (Write, Edit, NotebookEdit)
	// Prompt is the prompt a scheduling tool will submit later (CronCreate, ScheduleWakeup);
	// Skill the skill or command a Skill call runs.
	Prompt string
	Skill  string
	// Description is what the agent says a shell command is for: the need when the command
	// is a web read answered by the retriever.
	Description string
	// Web is the request of a web tool (WebFetch, WebSearch).
	Web *WebRequest
}

// WebRequest is what a web tool asks for.
type WebRequest struct {
	URL   string // WebFetch
	Query string // WebSearch
	Need  string // WebFetch's prompt; for WebSearch, the query
}

// Verdict is the policy's answer.
type Verdict uint8

const (
	// Pass: no opinion; the client's own permission rules decide.
	Pass Verdict = iota
	// Allow: run it, as rewritten in Decision.Command for a shell call.
	Allow
	// Deny: refuse, telling the agent Decision.Reason (for a prompt: block it, telling the
	// user).
	Deny
)

func (v Verdict) String() string {
	switch v {
	case Allow:
		return "allow"
	case Deny:
		return "deny"
	}
	return "pass"
}

// Decision is what the hook answers.
type Decision struct {
	Verdict Verdict
	Reason  string
	// Command, on Allow of a shell call, is the canonical form of exactly what was judged,
	// with the hook's own configuration pins. The adapter sends it in place of the agent's.
	Command string
	// Context is text for the model (at session start); Message is text for the user.
	Context string
	Message string
}
