package agentkit

import (
	"fmt"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/hookctl/hookctl/hook"
	"github.com/hookctl/hookctl/internal/clip"
	"github.com/hookctl/hookctl/internal/hookjson"
	"github.com/hookctl/hookctl/internal/wordlist"
)

// Fields are the keys under which a client's payloads carry what every client sends. A key
// that is "" is a field the client does not send.
type Fields struct {
	// Event names the hook event; "" where payloads name none (every payload is then a tool
	// call: Copilot CLI's camelCase form, of which hookctl registers preToolUse only).
	Event string
	// Session is the session's id (required), Tool the tool's name (required), Cwd the
	// session's working directory, Input the tool's input (an object).
	Session, Tool, Cwd, Input string
	// AgentID and AgentType name the subagent making a call, PermissionMode the client's own
	// permission mode, UseID the call's id (Claude-shaped payloads).
	AgentID, AgentType, PermissionMode, UseID string
}

// ClaudeFields are the keys of the payloads Claude Code's hooks introduced, which Codex and
// Qwen Code send too.
var ClaudeFields = Fields{Event: "hook_event_name", Session: "session_id", Tool: "tool_name", Cwd: "cwd", Input: "tool_input",
	AgentID: "agent_id", AgentType: "agent_type", PermissionMode: "permission_mode", UseID: "tool_use_id"}

// Protocol is one client's hook payloads as data: where its fields are, its events and which of
// them hookctl acts on, and its tools. Decode reads a payload by it.
type Protocol struct {
	Name string // the client, for errors
	Fields
	// Events are the client's hook events, space-separated: a payload naming another is refused,
	// since hookctl cannot know what it means.
	Events string
	// Acts are the events hookctl acts on, each with the gate's name for it. Every other event
	// in Events gets no opinion (hook.EventOther) or, with OnlyActs, is refused: the client was
	// told to run the hook for those events only, so another reaching it is misregistered.
	Acts     []Act
	OnlyActs bool
	// InputMayBeString: the tool's input may arrive as a JSON string holding the object (Copilot
	// CLI's documented form), which is read as strictly as the payload.
	InputMayBeString bool
	// Tools is the client's tool table. A tool not in it is an external server's (KindOther)
	// where its name starts with External, and otherwise unknown (KindUnknown), which read-only
	// mode refuses.
	Tools    Tools
	External string
	// Prepare, when set, reads what only this client's tool calls carry, after the fields
	// above and before the tool's input (Cursor: its workspace root, and which field names a
	// file). It may change the tool's entry for this call.
	Prepare func(c *hook.ToolCall, t *Tool, root, in gjson.Result) error
}

// Act is one of a client's events that hookctl acts on, and the gate's name for it.
type Act struct {
	Name  string
	Event hook.EventName
}

// Payload is a payload Decode read: the event the gate decides on, and what an adapter needs
// to read what only its client sends.
type Payload struct {
	*hook.Event
	Root gjson.Result // the whole payload
	Name string       // the client's name for the event
}

// Lookup says what the tool named name does.
func (p *Protocol) Lookup(name string) Tool {
	if t, ok := p.Tools.Find(name); ok {
		return t
	}
	if p.External != "" && strings.HasPrefix(name, p.External) {
		return Tool{Name: name, Kind: hook.KindOther}
	}
	return Tool{Name: name, Kind: hook.KindUnknown}
}

// Read is the prologue of every adapter's Decode: the payload strictly parsed (Parse: the size
// cap, valid JSON, one object, no key twice); its event named and known; for a tool call, the
// fields every client sends and the tool's input as its entry in the table says (FillCall); for
// a session's start or a prompt, the session, the working directory and the permission mode;
// for a session's end, the session. Whatever it cannot read is an error, which the runner turns
// into a refusal the client honours.
func (p *Protocol) Read(payload []byte) (*Payload, error) {
	root, err := Parse(payload)
	if err != nil {
		return nil, err
	}
	pl := &Payload{Event: &hook.Event{Name: hook.EventToolCall}, Root: root}
	if p.Event != "" {
		if pl.Name, err = Str(root, p.Event, true); err != nil {
			return nil, err
		}
		if !wordlist.Has(p.Events, pl.Name) {
			return nil, fmt.Errorf("unknown hook event %q", clip.Short(pl.Name))
		}
		if pl.Event.Name, err = p.act(pl.Name); err != nil {
			return nil, err
		}
	}
	ev := pl.Event
	switch ev.Name {
	case hook.EventOther:
	case hook.EventToolCall:
		c, err := p.call(root)
		if err != nil {
			return nil, err
		}
		ev.Session, ev.Cwd, ev.Call, ev.PermissionMode = c.Session, c.Cwd, c, c.PermissionMode
	case hook.EventSessionEnd:
		if ev.Session, err = Str(root, p.Session, true); err != nil {
			return nil, err
		}
	default:
		if err := p.strings(root, []field{{p.Session, &ev.Session, true}, {p.Cwd, &ev.Cwd, false},
			{p.PermissionMode, &ev.PermissionMode, false}}); err != nil {
			return nil, err
		}
	}
	return pl, nil
}

// Decode is Read for an adapter whose client sends nothing the prologue does not read.
func (p *Protocol) Decode(payload []byte) (*hook.Event, error) {
	pl, err := p.Read(payload)
	if err != nil {
		return nil, err
	}
	return pl.Event, nil
}

func (p *Protocol) act(name string) (hook.EventName, error) {
	var acted []string
	for _, a := range p.Acts {
		if a.Name == name {
			return a.Event, nil
		}
		acted = append(acted, a.Name)
	}
	if p.OnlyActs {
		return 0, fmt.Errorf("hookctl answers %s's %s only, not %s", p.Name, strings.Join(acted, " and "), name)
	}
	return hook.EventOther, nil
}

// field is one string field of a payload: its key ("" for one the client does not send), where
// it goes, and whether it must be there.
type field struct {
	key      string
	to       *string
	required bool
}

func (p *Protocol) strings(root gjson.Result, fields []field) error {
	for _, f := range fields {
		if f.key == "" {
			continue
		}
		var err error
		if *f.to, err = Str(root, f.key, f.required); err != nil {
			return err
		}
	}
	return nil
}

// call reads a tool call.
func (p *Protocol) call(root gjson.Result) (*hook.ToolCall, error) {
	c := &hook.ToolCall{}
	if err := p.strings(root, []field{{p.Session, &c.Session, true}, {p.Tool, &c.Tool, true}, {p.Cwd, &c.Cwd, false},
		{p.AgentID, &c.AgentID, false}, {p.AgentType, &c.AgentType, false},
		{p.PermissionMode, &c.PermissionMode, false}, {p.UseID, &c.UseID, false}}); err != nil {
		return nil, err
	}
	t := p.Lookup(c.Tool)
	in := root.Get(hookjson.Key(p.Input))
	if p.InputMayBeString && in.Type == gjson.String {
		var err error
		if in, err = Parse([]byte(in.Str)); err != nil {
			return nil, fmt.Errorf("%s: %w", p.Input, err)
		}
	}
	if p.Prepare != nil {
		if err := p.Prepare(c, &t, root, in); err != nil {
			return nil, err
		}
	}
	if err := FillCall(c, t, p.Input, in); err != nil {
		return nil, err
	}
	return c, nil
}
