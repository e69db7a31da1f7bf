package hook

import (
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/hookctl/hookctl/internal/clip"
	"github.com/hookctl/hookctl/internal/secrets"
	"github.com/hookctl/hookctl/lexer"
)

// The sensitive-file rule (issue 10).
//
// Why: read-only means nothing changes, not that nothing is read, and what an agent reads enters
// its context, where a prompt injection can ask for it to be repeated, summarised or sent on.
// A credential store (~/.ssh keys, ~/.aws/credentials, ~/.config/gh/hosts.yml, /etc/shadow, …)
// is never what a coding task needs to read, and a project's secret files (.env, *.pem, id_*)
// rarely are.
//
// What: a credential store (secrets.Credential) is refused in every mode to the file tools
// (Read, and Grep where it names a path) and, in read-only mode, to shell readers; a
// project secret file (secrets.Project) is refused where read-only rules bind. Listing names is
// not reading (ls, find, stat, the Glob tool). A shell command
// is judged on every word its program may open (programs.JudgeReads: operands and option
// values, not patterns; the path in git's REV:PATH), each as written, as made absolute from the
// working directory (and its `cd DIR &&`), and as the kernel will reach it through symbolic
// links and hard links (ResolveReads). The user's own config may allow paths (allow_read);
// a project's may not.
//
// Test: TestSensitiveFiles, TestSensitiveFilesThroughLinks, TestSensitiveFilesAllowRead
// (secrets_test.go); deny/secrets.txt.

// secretHit is a read the rule refuses: the path as the agent named it, what it is, and how it
// was reached when that differs (a link).
type secretHit struct {
	path, what, via string
	class           secrets.Class
	err             string // the path could not be resolved
}

// sensitiveRead returns the first of paths that names a credential store, or with projectToo a
// project secret, as written, as made absolute from dir, or as resolved; nil if none.
func (p *Policy) sensitiveRead(paths []string, dir string, projectToo bool) *secretHit {
	if len(paths) == 0 {
		return nil
	}
	blocks := func(c secrets.Class) bool { return c == secrets.Credential || projectToo && c == secrets.Project }
	var abs []string
	for _, w := range paths {
		if w == "" || w == "-" {
			continue
		}
		if c, what := secrets.Classify(w); blocks(c) && !p.Config.readAllowed(w, c) {
			return &secretHit{path: w, what: what, class: c}
		}
		a := w
		if !filepath.IsAbs(w) && filepath.IsAbs(dir) {
			a = dir + "/" + w // not Join, which would take `..` before the links
			if c, what := secrets.Classify(a); blocks(c) && !p.Config.readAllowed(a, c) {
				return &secretHit{path: w, what: what, class: c}
			}
		}
		if p.ResolveReads != nil && filepath.IsAbs(a) {
			abs = append(abs, a)
		}
	}
	if p.ResolveReads == nil || len(abs) == 0 {
		return nil
	}
	for _, t := range p.ResolveReads(abs) {
		switch {
		case t.Err != "":
			return &secretHit{path: t.Path, err: t.Err}
		case t.LinkOf != "":
			if !p.Config.readAllowed(t.LinkOf, secrets.Credential) {
				return &secretHit{path: t.Path, what: "a hard link to a credential store", via: t.LinkOf, class: secrets.Credential}
			}
		case t.Resolved != "" && t.Resolved != t.Path:
			if c, what := secrets.Classify(t.Resolved); blocks(c) && !p.Config.readAllowed(t.Resolved, c) {
				return &secretHit{path: t.Path, what: what, via: t.Resolved, class: c}
			}
		}
	}
	return nil
}

// reason says why the read was refused and what the agent can do instead. It names the path
// (the agent wrote it) but never anything read from it.
func (h *secretHit) reason() *Refusal {
	if h.err != "" {
		return &Refusal{What: "hookctl could not resolve " + clip.Short(h.path) + " (" + h.err + "), so it may be a credential store",
			Hint: "read it by another path, or ask the user"}
	}
	via := ""
	if h.via != "" {
		via = " (through a link, it is " + clip.Short(h.via) + ")"
	}
	if h.class == secrets.Credential {
		return &Refusal{What: clip.Short(h.path) + via + " is " + h.what + ", a credential store, which hookctl does not let an agent read in any mode: what it reads enters its context",
			Hint: "if the task really needs it, ask the user to read it, or to add the path to allow_read in their own hookctl config"}
	}
	return &Refusal{What: clip.Short(h.path) + via + " looks like " + h.what + " (.env, .env.*, .envrc, *.pem, *.key, *.p12, id_*), which read-only mode does not read into the model's context",
		Hint: "for the names it sets, read a template (.env.example) or the code that loads it; or ask the user to read it, or to add it to allow_read in their own hookctl config"}
}

// fileToolReads refuses a file tool's read of a credential store in every mode, and of a project
// secret where read-only rules bind.
func (p *Policy) fileToolReads(c *ToolCall, projectToo bool, sc scope) (Decision, bool) {
	h := p.sensitiveRead(c.ReadPaths, c.Cwd, projectToo)
	if h == nil {
		return Decision{}, false
	}
	r := h.reason()
	if projectToo {
		return Decision{Verdict: Deny, Reason: p.render(r, sc)}, true
	}
	return Decision{Verdict: Deny, Reason: "hookctl: `" + c.Tool + "`: " + r.What + "; " + r.Hint + "."}, true
}

// editCredentialRead refuses, in edit mode, a shell command that is a plain read (one the
// read-only judge admits) of a credential store. It is the guard's friendly answer to `cat
// ~/.aws/credentials`, not a boundary: in edit mode the agent runs programs of its choosing, and
// any of them can open the file. Only a command whose text names a store's distinctive part is
// judged at all (secrets.Mentions), so edit mode does not pay for the shape parse on every
// command.
func (p *Policy) editCredentialRead(c *ToolCall, cl *lexer.CommandLine) (Decision, bool) {
	if c.Kind != KindShell || !secrets.Mentions(c.Command) {
		return Decision{}, false
	}
	_, j, r := judgeScript(cl, p.Config)
	if r != nil {
		return Decision{}, false
	}
	dir := c.Cwd
	if j.cd != "" {
		dir = j.cd
		if !filepath.IsAbs(dir) && filepath.IsAbs(c.Cwd) {
			dir = c.Cwd + "/" + j.cd
		}
	}
	h := p.sensitiveRead(j.reads, dir, false)
	if h == nil {
		return Decision{}, false
	}
	r = h.reason()
	return Decision{Verdict: Deny, Reason: "hookctl edit-mode guard: " + r.What + "; " + r.Hint + "."}, true
}

// readAllowed reports whether the user's config allows reading path despite its class: an
// allow_read entry naming it or a directory above it (absolute, or under ~/), or for a project
// secret, an entry without a `/` that matches its base name (".env.test").
func (c *Config) readAllowed(p string, class secrets.Class) bool {
	if c == nil || len(c.AllowRead) == 0 {
		return false
	}
	clean := filepath.Clean(p)
	for _, e := range c.AllowRead {
		if !strings.Contains(e, "/") {
			if ok, _ := path.Match(e, filepath.Base(clean)); ok && class == secrets.Project {
				return true
			}
			continue
		}
		if rest, ok := strings.CutPrefix(e, "~/"); ok {
			home, err := os.UserHomeDir()
			if err != nil || home == "" {
				continue
			}
			e = filepath.Join(home, rest)
		}
		e = filepath.Clean(e)
		if filepath.IsAbs(clean) && (clean == e || strings.HasPrefix(clean, e+"/")) {
			return true
		}
	}
	return false
}
