package claude

// PermissionSettings is what one settings file says about Claude Code's permissions, as the
// client reads it: the rule lists, the extra working directories, and the managed-only switch.
// agents/claude/permissions gives the rules their meaning; this reads them with the same strict
// parser as everything else hookctl reads of a settings file.
type PermissionSettings struct {
	Allow, Ask, Deny      []string
	AdditionalDirectories []string
	DefaultMode           string
	// ManagedOnly is allowManagedPermissionRulesOnly: true, which only managed settings may set:
	// the client then takes permission rules from managed settings alone.
	ManagedOnly bool
	// Skipped counts list entries that are not strings, which the client skips.
	Skipped int
}

// ReadPermissions reads the permissions of a settings file's text. A file the client ignores
// whole (a comment or a trailing comma) is an error wrapping ErrIgnoredByClient; blank text has
// no rules.
func ReadPermissions(text []byte) (*PermissionSettings, error) {
	ps := &PermissionSettings{}
	if isBlank(text) {
		return ps, nil
	}
	d, err := parseSettings(text)
	if err != nil {
		return nil, err
	}
	if err := d.ignored(); err != nil {
		return nil, err
	}
	if d.root.kind != kindObject {
		return nil, errorAt(text, d.root.start, "the settings are not a JSON object")
	}
	ps.ManagedOnly = d.isTrue("allowManagedPermissionRulesOnly")
	p := d.root.get("permissions")
	if p == nil || p.kind != kindObject {
		return ps, nil
	}
	list := func(key string) []string {
		n := p.get(key)
		if n == nil || n.kind != kindArray {
			return nil
		}
		var out []string
		for _, k := range n.kids {
			if k.val.kind != kindString {
				ps.Skipped++
				continue
			}
			out = append(out, k.val.str)
		}
		return out
	}
	ps.Allow, ps.Ask, ps.Deny = list("allow"), list("ask"), list("deny")
	ps.AdditionalDirectories = list("additionalDirectories")
	if m := p.get("defaultMode"); m != nil && m.kind == kindString {
		ps.DefaultMode = m.str
	}
	return ps, nil
}
