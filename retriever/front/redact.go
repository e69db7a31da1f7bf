package front

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/hookctl/hookctl/audit"
	"github.com/hookctl/hookctl/retriever"
	"github.com/hookctl/hookctl/scrub"
)

// The audit never records a secret. A request the scrubber refused is recorded without the
// parts that held one; and every entry, whatever its outcome, is checked again before it is
// written, since some fields are not the agent's request: the URL a server redirected to, an
// error quoting it, a URL direct_fetch let through unchecked.

// withheldMark stands for a value that held a secret.
const withheldMark = "[withheld: it held a secret]"

// redactEntry replaces, in each field of e that can carry outbound or server-chosen text, what
// the scrubber finds a secret in.
func redactEntry(e *audit.AuditEntry, sc *scrub.Scrubber) {
	e.URL = auditURL(sc, e.URL, false)
	e.FinalURL = auditURL(sc, e.FinalURL, false)
	for _, field := range []*string{&e.Query, &e.GitHub, &e.Error} {
		if *field != "" && sc.Check("audit", *field) != nil {
			*field = withheldMark
		}
	}
	for i := range e.Steps {
		redactStep(&e.Steps[i], sc)
	}
	for i, c := range e.Citations {
		e.Citations[i] = auditURL(sc, c, false)
	}
}

// redactStep withholds what a research step's target or reason holds of a secret: the model
// chose the target, and a step the worker refused for a secret still names it.
func redactStep(st *retriever.Step, sc *scrub.Scrubber) {
	if strings.HasPrefix(st.Target, "http://") || strings.HasPrefix(st.Target, "https://") {
		st.Target = auditURL(sc, st.Target, strings.Contains(st.Why, "would send"))
	} else if st.Target != "" && (sc.Check("audit", st.Target) != nil || strings.Contains(st.Why, "would send")) {
		st.Target = withheldMark
	}
	if st.Why != "" && sc.Check("audit", st.Why) != nil {
		st.Why = withheldMark
	}
}

// auditURL is what the audit keeps of a URL: all of it, when the scrubber finds nothing in it
// and withhold is false; otherwise its scheme, host and path, or its scheme and host, whichever
// is the longer that the scrubber passes, marked as cut; and nothing of it when even the host
// holds a secret. User information, query and fragment go whenever anything goes: they are
// where a secret travels, and the scrubber's finding does not say which.
func auditURL(sc *scrub.Scrubber, raw string, withhold bool) string {
	if raw == "" || !withhold && sc.Check("url", raw) == nil {
		return raw
	}
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return withheldMark
	}
	host := u.Scheme + "://" + u.Host
	if sc.Check("url", host) != nil {
		return withheldMark
	}
	if path := host + u.EscapedPath(); sc.Check("url", path) == nil {
		if path == raw {
			return raw // withheld for another part of the request: nothing here to cut
		}
		return path + " [the rest is withheld: it held a secret]"
	}
	return host + " [the path and the rest are withheld: they held a secret]"
}

// withheldText is what the audit keeps of a refused request's query: that there was one.
func withheldText(s string) string {
	if s == "" {
		return ""
	}
	return withheldMark
}

// describeGitHubOp names op for the audit, e.g. "pr-diff cli/cli 123", with each part the
// scrubber finds a secret in (or that the refusing finding names) withheld.
func describeGitHubOp(op *retriever.GitHubOp, sc *scrub.Scrubber, refused *scrub.Finding) string {
	if op == nil {
		return ""
	}
	part := func(field, text string) string {
		if refused != nil && refused.Field == field || sc.Check(field, text) != nil {
			return "[withheld]"
		}
		return text
	}
	parts := []string{part("github op", op.Op)}
	if op.Host != "" {
		parts = append(parts, part("github host", op.Host))
	}
	if op.Owner != "" || op.Repo != "" {
		parts = append(parts, part("github owner", op.Owner)+"/"+part("github repo", op.Repo))
	}
	if op.Number > 0 {
		parts = append(parts, fmt.Sprint(op.Number))
	}
	if op.Path != "" {
		parts = append(parts, part("github path", op.Path))
	}
	if op.Ref != "" {
		parts = append(parts, "@"+part("github ref", op.Ref))
	}
	if op.Search != "" {
		parts = append(parts, "search "+strconv.Quote(part("github search", op.Search)))
	}
	return strings.Join(parts, " ")
}
