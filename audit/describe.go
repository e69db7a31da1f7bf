package audit

import "fmt"

// Describe says in a few words what an audit entry fetched, published or reached, and what a
// reader should notice about it (flags): the one description the CLI's listing and the
// dashboard share, so that neither can show a retrieval the other words differently.
func (e AuditEntry) Describe() (what string, flags []string) {
	what = e.URL
	switch {
	case e.Kind == KindPublish:
		// A review-mode publish decision: asked (the user confirmed or declined, which the
		// hook does not see) or refused.
		what = "publish: " + e.GitHub
		if e.GitHub == "" {
			what = "publish refused: " + e.Error
		}
	case e.Kind == KindEgress:
		// An edit-mode command's connections through the egress proxy, per host.
		what = fmt.Sprintf("egress %s: %s ×%d", e.Outcome, e.Host, e.Connections)
	case e.Query != "":
		what = "search: " + e.Query
	case e.GitHub != "":
		what = "github: " + e.GitHub
	}
	if e.Direct {
		flags = append(flags, "⚠ DIRECT (unmediated)")
	}
	if len(e.Injection) > 0 {
		flags = append(flags, fmt.Sprintf("⚠ injection ×%d", len(e.Injection)))
	}
	if e.Scrub != "clean" && e.Scrub != "" && e.Scrub != "unchecked" {
		flags = append(flags, "⚠ blocked: "+e.Scrub)
	}
	if e.Outcome != "answered" && e.Outcome != "direct" && e.Kind != KindEgress && e.Outcome != "" {
		flags = append(flags, e.Outcome)
	}
	return what, flags
}
