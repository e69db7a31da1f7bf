package claude

import "strconv"

// Inspection is what one settings file says about hookctl, for hookctl doctor.
type Inspection struct {
	// Ignored is set when Claude Code ignores the whole file (a comment or trailing comma),
	// naming where.
	Ignored error
	// DisableAllHooks is true when the file sets disableAllHooks: a project file that does
	// silences the user's hooks, hookctl's among them.
	DisableAllHooks bool
	// Hooks are hookctl's entries, by event.
	Hooks []InspectedHook
	// StatusLineOurs is true when the status line is hookctl's.
	StatusLineOurs bool
}

// InspectedHook is one hookctl hook entry.
type InspectedHook struct {
	Event   string
	Matcher string
	// Command is the program the entry runs: hookctl's path, or for a wrapped entry the shell.
	Command string
	// Wrapped: the entry runs hookctl through Wrapper (Script), from the hookctl home.
	Wrapped bool
	Script  string
	// Args are hookctl's arguments ("hook", …), after the shell's for a wrapped entry.
	Args      []string
	Timeout   int // 0 when not set
	OnFailure string
}

// Inspect reads a settings file's text. hookctl's entries are those running binary, or any
// program named hookctl, with the argument hook. Blank text is an empty file.
func Inspect(text []byte, binary string) (*Inspection, error) {
	in := &Inspection{}
	if isBlank(text) {
		return in, nil
	}
	d, err := parseSettings(text)
	if err != nil {
		return nil, err
	}
	in.Ignored, in.DisableAllHooks = d.ignored(), d.isTrue("disableAllHooks")
	v, err := readSettingsView(d, binary)
	if err != nil {
		return nil, err
	}
	for _, ev := range v.events {
		for _, g := range ev.groups {
			for k, h := range g.entries.kids {
				if !g.ours[k] {
					continue
				}
				ih := InspectedHook{Event: ev.name}
				if m := g.n.get("matcher"); m != nil && m.kind == kindString {
					ih.Matcher = m.str
				}
				if c := h.val.get("command"); c != nil {
					ih.Command = c.str
				}
				if a := h.val.get("args"); a != nil && a.kind == kindArray {
					for _, k := range a.kids {
						ih.Args = append(ih.Args, k.val.str)
					}
				}
				if len(ih.Args) >= 4 && ih.Args[0] == "-c" && ih.Args[2] == wrapperName && ih.Args[3] == hookArg {
					ih.Wrapped, ih.Script, ih.Args = true, ih.Args[1], ih.Args[3:]
				}
				if t := h.val.get("timeout"); t != nil && t.kind == kindNumber {
					ih.Timeout, _ = strconv.Atoi(string(text[t.start:t.end]))
				}
				if f := h.val.get("onFailure"); f != nil && f.kind == kindString {
					ih.OnFailure = f.str
				}
				in.Hooks = append(in.Hooks, ih)
			}
		}
	}
	if v.status != nil {
		in.StatusLineOurs = v.isOurStatusValue(v.status.val)
	}
	return in, nil
}

// Hook returns hookctl's entry for an event (the main one: arguments exactly "hook"), if any.
func (in *Inspection) Hook(event string) (InspectedHook, bool) {
	for _, h := range in.Hooks {
		if h.Event == event && len(h.Args) == 1 {
			return h, true
		}
	}
	return InspectedHook{}, false
}

// RetrievalHook returns hookctl's retrieval hook entry (hook --retrieve), if any.
func (in *Inspection) RetrievalHook() (InspectedHook, bool) {
	for _, h := range in.Hooks {
		if h.Event == "PreToolUse" && len(h.Args) == 2 && h.Args[1] == "--retrieve" {
			return h, true
		}
	}
	return InspectedHook{}, false
}
