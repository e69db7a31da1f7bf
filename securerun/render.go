package securerun

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
)

// Render prints the preflight as the user reads it: the effective policy, what the repository
// holds, and whether the run starts (and if not, every reason).
func Render(w io.Writer, p *Preflight) {
	row := func(label string, lines ...string) {
		for i, l := range lines {
			if i > 0 {
				label = ""
			}
			fmt.Fprintf(w, "  %-12s %s\n", label, l)
		}
	}
	fmt.Fprintf(w, "hookctl run: profile %s\n", p.Profile)
	iso := p.Isolation
	abi := fmt.Sprintf("landlock ABI %d (%d needed)", iso.LandlockABI, iso.LandlockNeeded)
	if iso.LandlockABI == 0 {
		abi = fmt.Sprintf("no landlock (ABI %d needed)", iso.LandlockNeeded)
	}
	row("isolation", iso.Mechanism, abi+"; kernel "+orNone(iso.Kernel), "seccomp: "+iso.Seccomp)
	r := p.Repository
	if r.Root == "" {
		row("repository", "(none)")
	} else {
		kind := "not a git work tree"
		if r.Git {
			kind = "git"
		}
		row("repository", r.Root+" ("+kind+")")
	}
	if r.Git {
		state := "clean"
		if r.Dirty {
			state = fmt.Sprintf("dirty: %d changed %s", r.Changed, plural(r.Changed, "entry", "entries"))
		}
		row("checkout", "commit "+orNone(r.Commit), "tree   "+orNone(r.Tree), state)
	}
	row("command", quoteArgs(p.Command))
	row("readable", p.Readable...)
	row("hidden", "in /etc: "+strings.Join(p.Hidden, " "))
	writable := make([]string, len(p.Writable))
	for i, d := range p.Writable {
		writable[i] = d + "  (" + writableRole(filepath.Base(d)) + ")"
	}
	row("writable", append(writable, "/dev/null /dev/tty")...)
	row("network", p.Network.Policy+": "+orNone(p.Network.Enforced))
	for _, d := range p.Network.Destinations {
		row("  to", d)
	}
	if m := p.Model; m != nil {
		row("model", fmt.Sprintf("%s API at %s (%s; allowed by %s)", m.Backend, orNone(m.URL), m.Source, orNone(m.Allowed)),
			"paths: "+strings.Join(m.Paths, " "))
		if b := m.Broker; b != nil {
			row("  broker", fmt.Sprintf("%s from %s as the %s header, to %s only", b.Mode, b.Variable, b.Header, b.Destination),
				"the agent sees: "+strings.Join(m.AgentVariables, " "))
		}
	}
	if a := p.Agent; a != nil {
		row("agent", a.Client+": hookctl's hooks installed for the run, pinned read-only (every shell command sandboxed again)",
			"flags added: "+quoteArgs(a.Args))
		for _, i := range a.Ignored {
			row("  not loaded", i)
		}
	}
	e := p.Credentials.Environment
	row("credentials", p.Credentials.Mode+": the environment is rebuilt from an allowlist; no credential reaches the command")
	row("  passed", orNone(strings.Join(e.Passed, " ")))
	row("  forwarded", orNone(strings.Join(e.Forwarded, " ")))
	set := make([]string, len(e.Set))
	for i, kv := range e.Set {
		set[i], _, _ = strings.Cut(kv, "=")
	}
	row("  set", strings.Join(set, " "))
	row("  PATH", e.PATH)
	withheld := orNone(strings.Join(e.Withheld, " "))
	row("  withheld", withheld, fmt.Sprintf("(and %d other %s not on the allowlist)", e.Dropped, plural(e.Dropped, "variable", "variables")))
	s := p.Sensitive
	switch refused := s.Refused(); {
	case len(s.Found) == 0:
		row("sensitive", fmt.Sprintf("none found (%d entries scanned)", s.Entries))
	default:
		lines := []string{fmt.Sprintf("%d found, %d refused (%d entries scanned):", len(s.Found), len(refused), s.Entries)}
		for _, f := range s.Found {
			mark := "refused"
			if !containsFinding(refused, f) {
				mark = "allowed"
			}
			lines = append(lines, fmt.Sprintf("  %-8s %s  %s", mark, f.Path, f.What))
		}
		row("sensitive", lines...)
	}
	if len(s.Allowed) > 0 {
		row("  allowed by", "--allow-sensitive "+strings.Join(s.Allowed, " "))
	}
	if len(p.AgentConfig) == 0 {
		row("agent config", "none in the repository")
	} else {
		lines := []string{"in the repository, ignored: hookctl loads none of it; an agent that does runs it inside this sandbox"}
		for _, a := range p.AgentConfig {
			l := "  " + a.Path + "  " + a.What
			if len(a.Detail) > 0 {
				l += ": " + strings.Join(a.Detail, ", ")
			}
			lines = append(lines, l)
		}
		row("agent config", lines...)
	}
	row("output", p.Out+"  ("+MetaName+"; artifacts over "+fmt.Sprint(p.Artifacts.MaxBytes)+" bytes, links out and special files quarantined)")
	for _, w := range p.Warnings {
		row("warning", w)
	}
	for _, f := range p.Failures {
		row("REFUSED", f)
	}
	if p.OK() {
		fmt.Fprintln(w, "the run starts under this policy")
	} else {
		fmt.Fprintf(w, "the run does not start: %d %s above\n", len(p.Failures), plural(len(p.Failures), "reason", "reasons"))
	}
}

// writableRole says what a writable directory of the layout is for.
func writableRole(name string) string {
	switch name {
	case ArtifactsDir:
		return "$" + OutEnv + ": the artifacts"
	case HomeDir:
		return "HOME and XDG_*: the agent's own state"
	}
	return "TMPDIR, removed after the run"
}

func containsFinding(fs []Finding, f Finding) bool {
	for _, x := range fs {
		if x == f {
			return true
		}
	}
	return false
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// quoteArgs prints argv as a shell would read it back.
func quoteArgs(argv []string) string {
	out := make([]string, len(argv))
	for i, a := range argv {
		if a != "" && strings.IndexFunc(a, func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:,@%+", r))
		}) < 0 {
			out[i] = a
			continue
		}
		out[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(out, " ")
}
