package hook

// Mode is a session's mode.
type Mode uint8

const (
	// ModeEdit leaves tool calls to the client's own permission rules (and, later, an exclude
	// list of destructive commands).
	ModeEdit Mode = iota
	// ModeReadOnly refuses every tool that is not a read, and every shell command that is not
	// on the read-only allowlist.
	ModeReadOnly
)

func (m Mode) String() string {
	if m == ModeReadOnly {
		return "read-only"
	}
	return "edit"
}

// Policy decides tool calls. It does no I/O: config and session state are read before it runs,
// so no I/O failure can turn into an allow.
type Policy struct {
	Config *Config
}

// scope says why read-only rules bind a call, so the deny reason can say what to do.
type scope uint8

const (
	scopeSession scope = iota + 1 // the session is in read-only mode
	scopeAgent                    // the agent type is read-only in every mode
)

// Decide judges one tool call made in a session whose mode is sessionMode.
func (p *Policy) Decide(c *Call, sessionMode Mode) Decision {
	var sc scope
	switch {
	case p.Config.ReadOnlyAgent(c.AgentType):
		sc = scopeAgent
	case sessionMode == ModeReadOnly:
		sc = scopeSession
	default:
		return Decision{Verdict: Pass}
	}
	return p.readOnly(c, sc)
}

// readOnly applies read-only rules to a call.
func (p *Policy) readOnly(c *Call, sc scope) Decision {
	switch c.Kind {
	case KindRead, KindSession, KindAgent:
		return Decision{Verdict: Pass}
	case KindWeb:
		// No opinion here: web content is routed through the quarantined retriever, in every
		// mode, by its own rule.
		return Decision{Verdict: Pass}
	case KindShell:
		cmd, r := JudgeReadOnly(c.Command, p.Config)
		if r != nil {
			return Decision{Verdict: Deny, Reason: r.render(sc)}
		}
		return Decision{Verdict: Allow, Reason: "hookctl: read-only command", Command: cmd}
	case KindMutate:
		return Decision{Verdict: Deny, Reason: (&Refusal{What: "`" + c.Tool + "` changes things", tool: true}).render(sc)}
	}
	return Decision{Verdict: Deny, Reason: (&Refusal{What: "`" + c.Tool + "` is not a tool hookctl knows to be read-only", tool: true}).render(sc)}
}
