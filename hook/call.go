// Package hook is the protocol between hookctl and the clients it guards, in neutral terms: a
// tool call (ToolCall, Kind), an event (Event), the answer (Verdict, Decision), a session's Mode,
// the client's own files (Client), the record of an answer (LogEntry), and the one fail-closed
// runner (Runner) every client adapter runs its decider through. It holds no judge and does no
// deciding: gate decides, agents/<client> translates the client's payloads into Events and
// renders Decisions as the client's output.
package hook

import "encoding/json"

// Kind says what a tool does, in terms the policy judges. Adapters map their client's tool
// names onto kinds; a tool an adapter does not know is KindUnknown, which read-only refuses.
type Kind uint8

const (
	KindUnknown   Kind = iota // not known to the adapter
	KindFileRead              // reads local files (the client's read, grep and glob tools)
	KindSession               // changes only the client's own session state (todo lists, plan mode)
	KindAgent                 // starts a subagent, whose calls are judged in turn
	KindShell                 // runs a shell command, which the client can take back rewritten
	KindWeb                   // reaches the network for content (web fetch and search tools)
	KindFileWrite             // writes the files in ToolCall.Paths
	KindOther                 // anything else that changes things: runs programs, schedules work, publishes
)

func (k Kind) String() string {
	switch k {
	case KindFileRead:
		return "file read"
	case KindSession:
		return "session"
	case KindAgent:
		return "agent"
	case KindShell:
		return "shell"
	case KindWeb:
		return "web"
	case KindFileWrite:
		return "file write"
	case KindOther:
		return "other"
	}
	return "unknown"
}

// EventName is what a hook invocation is about.
type EventName uint8

const (
	// EventOther is an event the gate has no opinion on (a tool's result, a stop, …).
	EventOther EventName = iota
	// EventToolCall asks whether a tool call may run.
	EventToolCall
	// EventSessionStart is a session starting or resuming: the gate records it and tells the
	// model its mode.
	EventSessionStart
	// EventPrompt is a prompt the user submitted that is not a toggle.
	EventPrompt
	// EventToggle is the user's mode command, recognised by the adapter.
	EventToggle
	// EventSessionEnd is a session ending: its sandbox scratch directory goes.
	EventSessionEnd
)

// Event is one hook invocation, in neutral terms.
type Event struct {
	Name    EventName
	Session string
	Cwd     string
	Call    *ToolCall      // EventToolCall
	Toggle  *ToggleRequest // EventToggle
	// PermissionMode is the client's own permission mode as the payload states it, when it does
	// ("plan": see PermissionPlan).
	PermissionMode string
}

// ToggleRequest is the user's mode command as the client delivered it.
type ToggleRequest struct {
	Args     string // what followed the command: "on", "off", "status", ""
	PromptID string // the client's id of the prompt, so that one prompt toggles once
	// Trusted is set by the adapter only when the command is hookctl's own, from a place only the
	// user controls (Claude Code: the user-level command file install wrote, which the model may
	// not invoke). Source names where an untrusted one came from, for the refusal.
	Trusted bool
	Source  string
}

// ToolCall is a tool call, whatever client made it.
type ToolCall struct {
	Session string
	// UseID is the client's id of this call (Claude Code's tool_use_id), "" if it gives none:
	// what two hook processes for one call claim (Store.Claim).
	UseID     string
	AgentID   string // empty on the main thread
	AgentType string // the subagent type, or the agent of the main thread
	Cwd       string
	// PermissionMode is the client's own permission mode ("default", "plan", …; "" unknown).
	PermissionMode string
	Tool           string          // the client's name for the tool, for messages and the audit
	Kind           Kind            // what the tool does
	Input          json.RawMessage // the tool's input as the client sent it
	Command        string          // the command line of a tool that runs one
	// NoRewrite marks a tool that runs a command but cannot take it back rewritten (the client
	// streams it, say): an allow that needs a rewrite is refused instead.
	NoRewrite bool
	Paths     []string // the files a writing tool writes
	// ReadPaths are the files or directories a reading tool reads the content of (Read's file,
	// Grep's path), for the sensitive-file rule.
	ReadPaths []string
	// Prompt is the prompt a scheduling tool will submit later; Skill the skill or command a
	// call runs. Either could carry the user's toggle command.
	Prompt string
	Skill  string
	// Description is what the agent says a shell command is for: the need when the command is a
	// web read answered by the retriever.
	Description string
	// Web is the request of a web tool.
	Web *WebRequest
}

// WebRequest is what a web tool asks for.
type WebRequest struct {
	URL   string // a fetch
	Query string // a search
	Need  string // what the agent wants from it
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
	// Ask: the user decides, shown Decision.Reason and the call (with Decision.Command in place
	// of the agent's, for a shell call). Where the client cannot ask (Claude Code's -p), it
	// refuses the call. Only review mode's publishes are asked.
	Ask
)

func (v Verdict) String() string {
	switch v {
	case Allow:
		return "allow"
	case Deny:
		return "deny"
	case Ask:
		return "ask"
	}
	return "pass"
}

// Decision is what the hook answers.
type Decision struct {
	Verdict Verdict
	Reason  string
	// Command, on Allow of a shell call, is the canonical form of exactly what was judged,
	// with the hook's own configuration pins; on Pass (edit mode), the judged command wrapped
	// in the edit sandbox, left to the client's own check (the client's rules settle it first
	// where its adapter models them: ClientRules). The adapter sends it in place of the agent's.
	Command string
	// Isolation, on Allow of a shell call, says what holds the command besides the policy: the
	// OS sandbox, or "policy only: " and why there is none. For the decision log.
	Isolation string
	// Context is text for the model: at session start, with a prompt, or with a tool call (the
	// notice of a mode change). Message is text for the user.
	Context string
	Message string
	// Publish, on a review-mode decision about a gh publish (asked or refused), is what the
	// audit records of it. The gate refuses an Ask it cannot audit.
	Publish *PublishRecord
	// Rule names the part of the policy that decided, for the decision log: "read-only rules",
	// "edit guard", "retriever", "review publish", "mode change by the model", ….
	Rule string
	// Record is what the decision log keeps of this decision (nil: nothing, as for a second
	// registration's answer), written by the runner once the answer is given.
	Record *LogEntry
	// ClientRule is the user's own permission rule that settled a rewritten call (ClientRules),
	// with its kind and file; ClientBy says what of the client's check decided ("your permission
	// rule", "the client's default mode"). Both empty when the client's check was not asked.
	ClientRule, ClientBy string
	// Toggled, on the answer to a mode command, is the change it made (From equals To for a
	// status request): the decision log records it as the human's request carried out, though
	// the answer itself stops the prompt.
	Toggled *ModeChange
	// Audit, on the retrieval hook's answer, is the audit entry that records the retrieval: the
	// decision log names it rather than keep the answer's text (web content, distilled).
	Audit string
}

// ModeChange is a session's mode before and after a mode command.
type ModeChange struct{ From, To Mode }

// PublishRecord is one review-mode publish decision as the audit keeps it: never the text,
// only its length and hash.
type PublishRecord struct {
	Repo       string // OWNER/REPO, or "inferred": gh takes it from the project's git remotes
	PR         string // the pull request's number, if it was read
	Verb       string // "review --comment", "review --approve", "review --request-changes", "comment"
	BodyBytes  int
	BodySHA256 string // hex
	Scrub      string // "clean", the kind of secret found, or "" when not checked
	Decision   Verdict
	Refused    string // why, for a Deny (hookctl's words; never the text)
	Isolation  string // where an asked publish runs: the publish sandbox, or "none: why"
}

// Client is what the gate must know of the agent it guards, supplied by its adapter: words for
// messages, and the client's own files, which no agent may write.
type Client struct {
	Name string // "Claude Code"
	// ToggleCommand is how the user switches modes in the client ("/readonly"); the gate refuses
	// a tool call that would submit or run it as if the user had.
	ToggleCommand string
	// Settings lists the client's configuration files and directories that would change what
	// the hook sees or whether it runs, for the user whose home is home and a session in cwd.
	Settings func(home, cwd string) []string
	// SettingsNames are the client's files protected in every directory, as relative paths
	// (".claude/settings.json"): a subdirectory's settings apply to a session started there.
	SettingsNames []string
	// RetrievalHook says install registers hookctl's retrieval hook for the client's web tools
	// (Claude Code's): the main hook's refusal of a web tool then means that hook did not run.
	// Without one, a web tool is refused with the retriever's shell command as the way.
	RetrievalHook bool
	// ShellTool names the client's shell tool that takes a rewritten command ("the Bash tool"),
	// for the hint of a refusal on a tool that cannot; "" when the client has none.
	ShellTool string
}

// toEdit and toReadOnly tell the user and the model how the human switches: the client's own
// command, or hookctl's, which works from any shell the user types in.
func (c Client) ToEdit() string     { return c.how("off") }
func (c Client) ToReadOnly() string { return c.how("on") }

// modeCommand says how the user switches modes, for the session's start message.
func (c Client) ModeCommand() string {
	if c.ToggleCommand == "" {
		return "run `hookctl readonly on`, `off` or `review` to switch"
	}
	return "type " + c.ToggleCommand + " on, off or review to switch"
}

func (c Client) how(verb string) string {
	if c.ToggleCommand == "" {
		return "run `hookctl readonly " + verb + "`"
	}
	return "type " + c.ToggleCommand + " " + verb
}

// PermissionPlan is the client's plan mode as a tool call reports it (ToolCall.PermissionMode).
const PermissionPlan = "plan"
