package gate

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hookctl/hookctl/config"
	"github.com/hookctl/hookctl/hook"
	"github.com/hookctl/hookctl/internal/shellglob"
	"github.com/hookctl/hookctl/policy"
)

// world is a home and a project in a temp dir, with hookctl's and Claude Code's files in place.
type world struct{ root, home, proj, hookctl, bin string }

func newWorld(t testing.TB) *world {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	w := &world{root: root, home: filepath.Join(root, "home"), proj: filepath.Join(root, "home", "proj")}
	w.hookctl = filepath.Join(w.home, ".config", "hookctl")
	w.bin = filepath.Join(w.home, ".local", "bin", "hookctl")
	for _, f := range []string{".bashrc", ".claude/settings.json", ".claude.json", ".config/hookctl/config.toml",
		".config/hookctl/state/s1.json", ".local/bin/hookctl", ".claude/plugins/p/hooks/hooks.json",
		"proj/.claude/settings.json", "proj/main.go", "proj/sub/.claude/settings.local.json"} {
		w.file(t, f, "x")
	}
	return w
}

func (w *world) file(t testing.TB, rel, body string) string {
	t.Helper()
	p := filepath.Join(w.home, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func (w *world) symlink(t testing.TB, target, rel string) string {
	t.Helper()
	p := filepath.Join(w.home, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, p); err != nil {
		t.Fatal(err)
	}
	return p
}

func (w *world) hardlink(t testing.TB, target, rel string) string {
	t.Helper()
	p := filepath.Join(w.home, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(target, p); err != nil {
		t.Skipf("no hard links here: %v", err)
	}
	return p
}

func (w *world) protection() policy.Protection {
	return ProtectionFor(testClient, w.hookctl, w.home, w.bin, w.proj)
}

// policy is an edit-mode policy for the world, resolving as the hook does.
func (w *world) policy() *policy.Policy {
	return &policy.Policy{World: shellglob.World{}, Client: testClient, Config: &config.Config{}, Binary: w.bin, Protection: w.protection(), Resolve: ResolveTargets}
}

func (w *world) write(p *policy.Policy, tool, path string) hook.Decision {
	return p.Decide(&hook.ToolCall{Tool: tool, Kind: hook.KindFileWrite, Cwd: w.proj, Session: "s1", Paths: []string{path}},
		policy.SessionState{Mode: hook.ModeEdit})
}

// TestResolveTargets: where a write lands, with real links in a temp dir.
func TestResolveTargets(t *testing.T) {
	w := newWorld(t)
	h := w.home
	w.symlink(t, filepath.Join(h, ".bashrc"), "proj/rc")                   // absolute link to a file
	w.symlink(t, "../.claude", "proj/cl")                                  // relative link to a directory
	w.symlink(t, filepath.Join(h, "nowhere", "new.json"), "proj/dangling") // open(O_CREAT) creates its target
	w.symlink(t, filepath.Join(h, ".claude", "plugins", "p"), "proj/deep") // .. after it is taken from its target
	w.symlink(t, "loop2", "proj/loop1")                                    // ELOOP
	w.symlink(t, "loop1", "proj/loop2")                                    //
	w.symlink(t, "cl", "proj/chain")                                       // a link to a link
	for _, c := range []struct{ in, want, err string }{
		{"proj/main.go", "proj/main.go", ""},
		{"proj/new/dir/x.go", "proj/new/dir/x.go", ""}, // missing components joined lexically
		{"proj/rc", ".bashrc", ""},
		{"proj/cl/settings.json", ".claude/settings.json", ""},
		{"proj/cl/new.json", ".claude/new.json", ""},
		{"proj/chain/settings.json", ".claude/settings.json", ""},
		{"proj/dangling", "nowhere/new.json", ""},
		{"proj/deep/../../settings.json", ".claude/settings.json", ""}, // lexically proj/settings.json
		{"proj/./sub/../main.go", "proj/main.go", ""},
		{"proj/main.go/x", "proj/main.go/x", ""}, // ENOTDIR: the write fails; the rest is lexical
		{"proj/loop1", "", "too many levels"},
	} {
		res := ResolveTargets([]string{h + "/" + c.in}, policy.Protection{}) // not Join, which cleans .. away
		got := res.Targets[0]
		switch {
		case c.err != "" && !strings.Contains(got.Err, c.err):
			t.Errorf("%s: err %q, want %q", c.in, got.Err, c.err)
		case c.err == "" && got.Err != "":
			t.Errorf("%s: err %q", c.in, got.Err)
		case c.err == "" && got.Resolved != filepath.Join(h, c.want):
			t.Errorf("%s: resolved to %s, want %s", c.in, got.Resolved, filepath.Join(h, c.want))
		}
	}
	if res := ResolveTargets([]string{"proj/main.go"}, policy.Protection{}); res.Targets[0].Err == "" {
		t.Errorf("a relative target resolved: %+v", res.Targets[0])
	}
}

// TestResolveProtectedThroughLink: a protected path reached through a link (~/.claude →
// dotfiles/claude) protects where the link leads.
func TestResolveProtectedThroughLink(t *testing.T) {
	w := newWorld(t)
	if err := os.Rename(filepath.Join(w.home, ".claude"), filepath.Join(w.home, "dotfiles-claude")); err != nil {
		t.Fatal(err)
	}
	w.symlink(t, "dotfiles-claude", ".claude")
	res := ResolveTargets(nil, w.protection())
	want := filepath.Join(w.home, "dotfiles-claude", "settings.json")
	found := false
	for _, q := range res.Protected {
		found = found || q == want
	}
	if !found {
		t.Errorf("resolved protected set lacks %s: %q", want, res.Protected)
	}
	p := w.policy()
	for _, path := range []string{want, filepath.Join(w.home, "dotfiles-claude", "plugins", "p", "hooks", "hooks.json")} {
		if d := w.write(p, "Write", path); d.Verdict != hook.Deny {
			t.Errorf("Write %s: %s, want deny (the settings through ~/.claude's link)", path, d.Verdict)
		}
	}
	if d := w.write(p, "Write", filepath.Join(w.home, "dotfiles-claude", "agents", "a.md")); d.Verdict == hook.Deny {
		t.Errorf("Write to an unprotected file beside the settings: %s", d.Reason)
	}
}

// TestResolveHardLink: another hard link to a protected file is that file; an unrelated
// hard-linked file (a pnpm store's, say) is not.
func TestResolveHardLink(t *testing.T) {
	w := newWorld(t)
	rc := w.hardlink(t, filepath.Join(w.home, ".bashrc"), "proj/rc")
	st := w.hardlink(t, filepath.Join(w.hookctl, "state", "s1.json"), "proj/state.json") // a file in a protected directory
	pl := w.hardlink(t, filepath.Join(w.home, ".claude", "plugins", "p", "hooks", "hooks.json"), "proj/hooks.json")
	store := w.file(t, "store/lodash.js", "x")
	mod := w.hardlink(t, store, "proj/node_modules/lodash.js")
	res := ResolveTargets([]string{rc, st, pl, mod}, w.protection())
	for i, want := range []string{filepath.Join(w.home, ".bashrc"), filepath.Join(w.hookctl, "state", "s1.json"),
		filepath.Join(w.home, ".claude", "plugins", "p", "hooks", "hooks.json"), ""} {
		if got := res.Targets[i]; got.LinkOf != want || got.Err != "" {
			t.Errorf("%s: LinkOf %q (err %q), want %q", got.Path, got.LinkOf, got.Err, want)
		}
	}
	p := w.policy()
	for _, path := range []string{rc, st, pl} {
		for _, tool := range []string{"Write", "Edit", "NotebookEdit"} {
			if d := w.write(p, tool, path); d.Verdict != hook.Deny || !strings.Contains(d.Reason, "hard link") {
				t.Errorf("%s %s: %s %q, want deny as a hard link", tool, path, d.Verdict, d.Reason)
			}
		}
	}
	if d := w.write(p, "Edit", mod); d.Verdict == hook.Deny {
		t.Errorf("Edit of an unrelated hard-linked file: %s", d.Reason)
	}
}

// TestResolveHardLinkBudget: a hard-linked target compared with more protected files than the
// budget allows is refused, not allowed on a partial comparison.
func TestResolveHardLinkBudget(t *testing.T) {
	w := newWorld(t)
	for i := 0; i <= maxLinkedCompare; i++ {
		w.file(t, filepath.Join(".config", "hookctl", "many", strings.Repeat("f", 1+i/200)+string(rune('a'+i%26))+string(rune('a'+i/26%26))), "x")
	}
	store := w.file(t, "store/x.js", "x")
	mod := w.hardlink(t, store, "proj/x.js")
	res := ResolveTargets([]string{mod}, w.protection())
	if res.Targets[0].Err == "" {
		t.Errorf("over the budget: %+v, want an error", res.Targets[0])
	}
	if d := w.write(w.policy(), "Write", mod); d.Verdict != hook.Deny {
		t.Errorf("over the budget: %s, want deny", d.Verdict)
	}
}

// TestResolveCaseFold: the detection looks a name up with its case swapped. The temp dir's
// file system is case-sensitive; a folding one is simulated by seeding the lookup memo with
// what a folding directory would answer.
func TestResolveCaseFold(t *testing.T) {
	w := newWorld(t)
	if FoldsCase(w.home, w.proj) {
		t.Skip("the temp dir's file system folds case; the simulated half below is what matters")
	}
	r := &resolver{seen: map[string]lookup{}}
	target := filepath.Join(w.home, ".claude", "settings.json")
	if r.foldsCase(target) {
		t.Errorf("a case-sensitive directory reported as folding")
	}
	r = &resolver{seen: map[string]lookup{}}
	l := r.lstat(target)
	r.seen[filepath.Join(w.home, ".claude", "SETTINGS.JSON")] = l
	if !r.foldsCase(target) {
		t.Errorf("a folding directory (simulated) not detected")
	}
	// A missing target is judged by its nearest existing ancestor with a cased letter.
	r = &resolver{seen: map[string]lookup{}}
	dir := filepath.Join(w.home, ".claude")
	r.seen[filepath.Join(w.home, ".CLAUDE")] = r.lstat(dir)
	if !r.foldsCase(filepath.Join(dir, "New.json")) {
		t.Errorf("a folding parent (simulated) not detected for a missing target")
	}
	// The policy folds when the resolver says the target's directory folds.
	p := w.policy()
	p.Resolve = func(paths []string, prot policy.Protection) policy.Resolution {
		res := ResolveTargets(paths, prot)
		for i := range res.Targets {
			res.Targets[i].FoldsCase = true
		}
		return res
	}
	for _, path := range []string{filepath.Join(w.home, ".Claude", "Settings.json"), filepath.Join(w.home, ".BASHRC"),
		filepath.Join(w.proj, ".claude", "SETTINGS.json"), filepath.Join(w.home, ".claude", "settings.json")} {
		if d := w.write(p, "Write", path); d.Verdict != hook.Deny {
			t.Errorf("folding: Write %s: %s, want deny", path, d.Verdict)
		}
	}
	if d := w.write(w.policy(), "Write", filepath.Join(w.home, ".Claude", "Settings.json")); d.Verdict == hook.Deny {
		t.Errorf("case-sensitive: Write ~/.Claude/Settings.json refused (%s); it is another file there", d.Reason)
	}
}

// TestFileToolsThroughLinks (issue 9): every way the 21 attempts reached a protected
// file through a link from the project, written with each file tool.
func TestFileToolsThroughLinks(t *testing.T) {
	w := newWorld(t)
	h := w.home
	var denied []string
	denied = append(denied,
		w.symlink(t, filepath.Join(h, ".claude", "settings.json"), "proj/s.json"),
		w.symlink(t, filepath.Join(h, ".bashrc"), "proj/rc"),
		w.symlink(t, "../.claude.json", "proj/cj"),
		w.symlink(t, filepath.Join(h, ".config", "hookctl"), "proj/hk")+"/config.toml",
		w.symlink(t, filepath.Join(h, ".config"), "proj/cfg")+"/hookctl/new.toml",
		w.symlink(t, filepath.Join(h, ".local", "bin", "hookctl"), "proj/bin"),
		w.symlink(t, filepath.Join(h, ".claude"), "proj/dot")+"/settings.local.json", // does not exist yet
		w.symlink(t, filepath.Join(h, ".claude", "plugins"), "proj/plugins")+"/p/hooks/hooks.json",
		w.symlink(t, filepath.Join(h, "proj", ".claude"), "proj/pc")+"/settings.json",
		w.symlink(t, filepath.Join(h, ".claude", "commands"), "proj/cmds")+"/readonly.md",
		w.symlink(t, "s.json", "proj/again"), // a link to a link
		w.symlink(t, filepath.Join(h, "proj", "sub"), "proj/up")+"/.claude/settings.local.json",
		w.proj+"/cfg/../.config/hookctl/config.toml", // the kernel: ~/.config/hookctl; lexically: proj/.config
		w.proj+"/dot/../.bashrc", // .. after the link: ~/.bashrc, not proj/.bashrc
		w.hardlink(t, filepath.Join(h, ".claude", "settings.json"), "proj/hl.json"),
		w.hardlink(t, filepath.Join(h, ".bashrc"), "proj/hl-rc"),
		w.hardlink(t, filepath.Join(h, ".config", "hookctl", "config.toml"), "proj/hl.toml"),
		w.hardlink(t, filepath.Join(h, ".local", "bin", "hookctl"), "proj/hl-bin"),
		w.hardlink(t, filepath.Join(h, ".claude.json"), "proj/hl-cj"),
		w.hardlink(t, filepath.Join(h, "proj", ".claude", "settings.json"), "proj/hl-ps.json"),
		w.symlink(t, filepath.Join(h, "proj", "hl.json"), "proj/sym-to-hard"),
		filepath.Join(w.proj, "deeper", "sub", ".claude", "settings.json"), // a subdirectory's settings, by name
	)
	p := w.policy()
	for _, path := range denied {
		for _, tool := range []string{"Write", "Edit", "NotebookEdit"} {
			if d := w.write(p, tool, path); d.Verdict != hook.Deny {
				t.Errorf("%s %s: %s, want deny", tool, strings.TrimPrefix(path, h+"/"), d.Verdict)
			}
		}
	}
	// A relative target is read from the session's directory, links included.
	if d := w.write(p, "Write", "dot/settings.json"); d.Verdict != hook.Deny {
		t.Errorf("Write dot/settings.json (relative, through a link): %s, want deny", d.Verdict)
	}
	if d := w.write(p, "Write", "dot/../.bashrc"); d.Verdict != hook.Deny {
		t.Errorf("Write dot/../.bashrc (relative, .. after a link): %s, want deny", d.Verdict)
	}
	if d := w.write(p, "Write", "src/new.go"); d.Verdict == hook.Deny {
		t.Errorf("Write src/new.go (relative): refused (%s)", d.Reason)
	}
	w.symlink(t, filepath.Join(w.proj, "main.go"), "proj/alias.go")
	w.symlink(t, filepath.Join(h, "notes"), "proj/notes")
	w.file(t, "notes/todo.md", "x")
	for _, path := range []string{
		filepath.Join(w.proj, "main.go"), filepath.Join(w.proj, "alias.go"), filepath.Join(w.proj, "new", "x.go"),
		filepath.Join(w.proj, "notes", "todo.md"), filepath.Join(w.proj, "dot", "agents", "reviewer.md"),
		filepath.Join(w.proj, ".claude", "agents", "a.md"), filepath.Join(w.proj, "settings.json"),
	} {
		if d := w.write(p, "Write", path); d.Verdict == hook.Deny {
			t.Errorf("Write %s: refused (%s)", strings.TrimPrefix(path, h+"/"), d.Reason)
		}
	}
}

// TestResolveCost: one write's resolution stays a handful of lookups, so the hook's budget of a
// few milliseconds holds; the protected set is resolved once per call.
func TestResolveCost(t *testing.T) {
	w := newWorld(t)
	r := &resolver{seen: map[string]lookup{}}
	prot := w.protection()
	for _, q := range prot.Paths {
		if _, err := r.resolve(q); err != nil && err != errTooMuch {
			t.Fatal(err)
		}
	}
	before := r.lookups
	if _, err := r.resolve(filepath.Join(w.proj, "src", "main.go")); err != nil {
		t.Fatal(err)
	}
	if n := r.lookups - before; n > 3 {
		t.Errorf("one write in the project took %d lookups after the protected set, want ≤3", n)
	}
	if r.lookups > 200 {
		t.Errorf("the protected set took %d lookups", r.lookups)
	}
	_ = fs.ErrNotExist
}

// BenchmarkResolveTargets: one Write's resolution, the protected set included, as the hook does
// it once per file-tool call (a cold memo each time).
func BenchmarkResolveTargets(b *testing.B) {
	w := newWorld(b)
	prot := w.protection()
	target := filepath.Join(w.proj, "src", "main.go")
	for b.Loop() {
		ResolveTargets([]string{target}, prot)
	}
}
