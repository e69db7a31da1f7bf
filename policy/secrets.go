package policy

import (
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hookctl/hookctl/config"
	"github.com/hookctl/hookctl/hook"
	"github.com/hookctl/hookctl/internal/clip"
	"github.com/hookctl/hookctl/internal/secrets"
	"github.com/hookctl/hookctl/lexer"
	"github.com/hookctl/hookctl/programs"
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
	walk            bool   // a walk reaches it
	content         bool   // its content, not its name, holds the credential
}

// readContext is how a command's reads will run: where, and what holds around them.
type readContext struct {
	dir        string // the working directory, after the command's own cd
	projectToo bool   // project secrets too (where read-only rules bind)
	// sandboxed: the read-only sandbox runs it, which hides the credential stores.
	sandboxed bool
	// rewritten: the hook's rewrite runs (its walks' exclusions, git's pins); launched: under
	// bash, by hookctl's launcher, so that a glob is bash's, not the client's zsh's.
	rewritten, launched bool
}

// sensitiveAccess returns the first of a command's reads that would read a credential store or,
// with projectToo, a project secret; nil if none. Each word it opens is judged as written, made
// absolute, and as the kernel reaches it (sensitiveRead); each file of names by the names in it
// (sort --files0-from, file -f); each walk by where it can go (Walk), when it follows links, when
// no rewrite keeps secret names out of it, or when a credential file has another hard link.
// Test: TestSecretsCorpus; TestSensitiveFiles (secrets_test.go).
func (p *Policy) sensitiveAccess(acc programs.Access, rc readContext) *secretHit {
	if h := p.sensitiveRead(acc.Files, rc.dir, rc.projectToo, !rc.launched); h != nil {
		return h
	}
	var listed []string
	for _, l := range acc.Lists {
		switch {
		case l.Path == "-":
			return &secretHit{path: "-", err: "the command reads the names of its files from standard input, which hookctl cannot see; name the files"}
		case p.ReadList == nil:
			return &secretHit{path: l.Path, err: "hookctl cannot read the list of files here; name the files"}
		}
		names, err := p.ReadList(absIn(rc.dir, l.Path), l.Sep)
		if err != nil {
			return &secretHit{path: l.Path, err: "hookctl could not read the list of files (" + err.Error() + "); name the files"}
		}
		listed = append(listed, names...)
	}
	if h := p.sensitiveRead(listed, rc.dir, rc.projectToo, false); h != nil {
		return h
	}
	if p.Walk == nil || len(acc.Walks) == 0 {
		return nil
	}
	var reqs []WalkRequest
	for _, w := range acc.Walks {
		req := WalkRequest{Walk: w, Home: p.home(), Excluded: rc.rewritten && w.Excluded, Sandboxed: rc.sandboxed}
		for _, r := range w.Roots {
			req.Roots = append(req.Roots, absIn(rc.dir, r))
		}
		reqs = append(reqs, req)
	}
	h := p.Walk(reqs)
	switch {
	case h == nil:
		return nil
	case h.Err != "":
		return &secretHit{path: h.Path, err: h.Err}
	case h.Class == secrets.Project && !rc.projectToo:
		return nil
	case readAllowed(p.Config, p.world().Home(), h.Path, h.Class) || h.Via != "" && readAllowed(p.Config, p.world().Home(), h.Via, h.Class):
		return nil
	}
	return &secretHit{path: h.Path, what: h.What, via: h.Via, class: h.Class, walk: true}
}

// home is the user's home directory, which the stores marked home are under: the config's,
// or $HOME where the config was not loaded from the environment.
func (p *Policy) home() string {
	if p.Config != nil && p.Config.UserHome != "" {
		return p.Config.UserHome
	}
	return p.world().Home()
}

// absIn is path made absolute in dir, without cleaning (`..` is taken after the links before it).
func absIn(dir, path string) string {
	if filepath.IsAbs(path) || !filepath.IsAbs(dir) {
		return path
	}
	return dir + "/" + path
}

// sensitiveRead returns the first of paths that names a credential store, or with projectToo a
// project secret, as written, as made absolute from dir, or as resolved; nil if none. A glob is
// expanded first, as bash would expand it, or zsh (**/ and ***/ recursive) where the client's
// shell may run it.
func (p *Policy) sensitiveRead(paths []string, dir string, projectToo, zsh bool) *secretHit {
	if len(paths) == 0 {
		return nil
	}
	home := p.home()
	blocks := func(c secrets.Class) bool { return c == secrets.Credential || projectToo && c == secrets.Project }
	var abs []string
	var expanded []string
	var glob Globber
	for _, w := range paths {
		if strings.ContainsAny(w, "*?[") {
			// A glob the shell will expand (the rewrite leaves it unquoted): every file it
			// matches now is read.
			if glob == nil {
				glob = p.world().Globs()
			}
			matches, err := glob(absIn(dir, w), zsh)
			if err != nil {
				return &secretHit{path: w, err: err.Error()}
			}
			expanded = append(expanded, matches...)
			continue
		}
		expanded = append(expanded, w)
	}
	for _, w := range expanded {
		if w == "" || w == "-" {
			continue
		}
		if c, what := secrets.ClassifyUnder(w, home); blocks(c) && !readAllowed(p.Config, p.world().Home(), w, c) {
			return &secretHit{path: w, what: what, class: c}
		}
		a := w
		if !filepath.IsAbs(w) && filepath.IsAbs(dir) {
			a = dir + "/" + w // not Join, which would take `..` before the links
			if c, what := secrets.ClassifyUnder(a, home); blocks(c) && !readAllowed(p.Config, p.world().Home(), a, c) {
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
			if !readAllowed(p.Config, p.world().Home(), t.LinkOf, secrets.Credential) {
				return &secretHit{path: t.Path, what: "a hard link to a credential store", via: t.LinkOf, class: secrets.Credential}
			}
		case t.Raw:
			return &secretHit{path: t.Path, what: "a raw disk, which holds every file", class: secrets.Credential}
		case t.Holds != "" && projectToo && !readAllowed(p.Config, p.world().Home(), t.Path, secrets.Project):
			return &secretHit{path: t.Path, what: t.Holds, class: secrets.Project, content: true}
		case t.Resolved != "" && t.Resolved != t.Path:
			if c, what := secrets.ClassifyUnder(t.Resolved, home); blocks(c) && !readAllowed(p.Config, p.world().Home(), t.Resolved, c) {
				return &secretHit{path: t.Path, what: what, via: t.Resolved, class: c}
			}
		}
	}
	return nil
}

// reason says why the read was refused and what the agent can do instead; allowRead is how the
// user could let it through (Policy.allowReadHint). It names the path (the agent wrote it) but
// never anything read from it.
func (h *secretHit) reason(allowRead string) *Refusal {
	if h.err != "" {
		return &Refusal{What: "hookctl could not check " + clip.Short(h.path) + " for secrets (" + h.err + "), so it may hold one",
			Hint: "name the files it reads, or ask the user"}
	}
	via := ""
	if h.via != "" {
		via = " (through a link, it is " + clip.Short(h.via) + ")"
	}
	if h.walk {
		where := clip.Short(h.path) + via + " is " + h.what
		if h.class == secrets.Credential {
			where += ", a credential store"
		}
		return &Refusal{What: "the command walks into " + where + ", which read-only mode does not read into the model's context",
			Hint: "keep the walk off it: start it lower, drop the option that follows links (-L, -R), or name the files; or ask the user"}
	}
	if h.content {
		return &Refusal{What: clip.Short(h.path) + " holds " + h.what + ", which read-only mode does not read into the model's context",
			Hint: "ask the user for what you need from it (a registry's address, a remote's name)" + allowRead}
	}
	if h.class == secrets.Credential {
		return &Refusal{What: clip.Short(h.path) + via + " is " + h.what + ", a credential store, which hookctl does not let an agent read in any mode: what it reads enters its context",
			Hint: "if the task really needs it, ask the user to read it" + allowRead}
	}
	return &Refusal{What: clip.Short(h.path) + via + " looks like " + h.what + " (.env, .env.*, .envrc, *.pem, *.key, *.p12, id_*), which read-only mode does not read into the model's context",
		Hint: "for the names it sets, read a template (.env.example) or the code that loads it; or ask the user to read it" + allowRead}
}

// allowReadHint is how a user could let a refused read through: their own allow_read, unless
// the organisation's policy sets it, which their file cannot widen (config/managed.go).
func (p *Policy) allowReadHint() string {
	if p.Config != nil && slices.Contains(p.Config.ManagedKeys, "allow_read") {
		return " (allow_read is set by the organisation's policy, " + p.Config.Managed + ", which a user's config cannot widen)"
	}
	return ", or to add it to allow_read in their own hookctl config"
}

// fileToolReads refuses a file tool's read of a credential store in every mode, and of a project
// secret where read-only rules bind.
func (p *Policy) fileToolReads(c *hook.ToolCall, projectToo bool, sc scope) (hook.Decision, bool) {
	h := p.sensitiveRead(c.ReadPaths, c.Cwd, projectToo, false)
	if h == nil {
		return hook.Decision{}, false
	}
	r := h.reason(p.allowReadHint())
	if projectToo {
		return hook.Decision{Verdict: hook.Deny, Reason: p.render(r, sc)}, true
	}
	return hook.Decision{Verdict: hook.Deny, Reason: "hookctl: `" + c.Tool + "`: " + r.What + "; " + r.Hint + "."}, true
}

// editCredentialRead refuses, in edit mode, a shell command that is a plain read (one the
// read-only judge admits) of a credential store. It is the guard's friendly answer to `cat
// ~/.aws/credentials`, not a boundary: in edit mode the agent runs programs of its choosing, and
// any of them can open the file. Only a command whose text names a store's distinctive part is
// judged at all (secrets.Mentions), so edit mode does not pay for the shape parse on every
// command.
func (p *Policy) editCredentialRead(c *hook.ToolCall, cl *lexer.CommandLine) (hook.Decision, bool) {
	if c.Kind != hook.KindShell || !secrets.Mentions(c.Command) {
		return hook.Decision{}, false
	}
	_, j, r := judgeScript(cl, p.Config)
	if r != nil {
		return hook.Decision{}, false
	}
	dir := c.Cwd
	if j.cd != "" {
		dir = j.cd
		if !filepath.IsAbs(dir) && filepath.IsAbs(c.Cwd) {
			dir = c.Cwd + "/" + j.cd
		}
	}
	h := p.sensitiveRead(j.access.Files, dir, false, true)
	if h == nil {
		return hook.Decision{}, false
	}
	r = h.reason(p.allowReadHint())
	return hook.Decision{Verdict: hook.Deny, Reason: "hookctl edit-mode guard: " + r.What + "; " + r.Hint + "."}, true
}

// readAllowed reports whether the user's config allows reading path despite its class: an
// allow_read entry naming it or a directory above it (absolute, or under ~/, home), or for a project
// secret, an entry without a `/` that matches its base name (".env.test").
func readAllowed(c *config.Config, home, p string, class secrets.Class) bool {
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
			if home == "" {
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
