package main

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hookctl/hookctl/agents/claude"
)

// scopeFiles are the settings files of the scopes the matrix writes, each holding something of
// the user's before any install: what every install and uninstall must keep byte for byte.
var scopeFiles = map[string]string{
	"user": "{\n  \"model\": \"opus\",\n  \"statusLine\": {\"type\": \"command\", \"command\": \"~/bin/mine\"},\n" +
		"  \"hooks\": {\"PreToolUse\": [{\"matcher\": \"Bash\", \"hooks\": [{\"type\": \"command\", \"command\": \"/usr/bin/other-guard\"}]}]}\n}\n",
	"project": "{\n    \"permissions\": {\"allow\": [\"Bash(make test)\"]},\n    \"hooks\": {\n        \"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"say done\"}]}]\n    }\n}\n",
	"local":   "{\"env\": {\"FOO\": \"1\"}}",
}

// scopeWorld is a user with settings in every scope and a project directory that is a
// repository's working tree.
type scopeWorld struct {
	t        *testing.T
	home, hh string
	project  string
	path     map[string]string
}

func newScopeWorld(t *testing.T) *scopeWorld {
	home, hh := userEnv(t)
	w := &scopeWorld{t: t, home: home, hh: hh, path: map[string]string{}}
	w.project, _ = os.Getwd()
	os.MkdirAll(filepath.Join(w.project, ".claude"), 0o755)
	for scope, text := range scopeFiles {
		w.path[scope], _ = claude.SettingsPath(scope, home, w.project)
		if err := os.WriteFile(w.path[scope], []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return w
}

func (w *scopeWorld) run(args ...string) string {
	w.t.Helper()
	code, out, errOut := runCLI(w.t, w.hh, "", args...)
	if code != exitOK {
		w.t.Fatalf("hookctl %s: exit %d\n%s%s", strings.Join(args, " "), code, out, errOut)
	}
	return out
}

func (w *scopeWorld) read(scope string) string {
	b, err := os.ReadFile(w.path[scope])
	if err != nil {
		w.t.Fatal(err)
	}
	return string(b)
}

// projectFiles lists the files in the project directory: no backup may land there, where it
// would be an untracked file in the repository.
func (w *scopeWorld) projectFiles() []string {
	var out []string
	filepath.WalkDir(w.project, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(w.project, p)
			out = append(out, rel)
		}
		return nil
	})
	slices.Sort(out)
	return out
}

// TestInstallScopeMatrix (issue 11, item 6): for every pair of scopes A and B, install A,
// install B, uninstall A, uninstall B. Installing or uninstalling one scope never changes
// another scope's file by a byte; uninstall gives back the bytes from before the install; no
// backup lands in the project; the /readonly command stays while any scope registers hookctl.
func TestInstallScopeMatrix(t *testing.T) {
	scopes := []string{"user", "project", "local"}
	for _, a := range scopes {
		for _, b := range scopes {
			if a == b {
				continue
			}
			t.Run(a+"+"+b, func(t *testing.T) {
				w := newScopeWorld(t)
				before := map[string]string{}
				for _, s := range scopes {
					before[s] = w.read(s)
				}
				unchangedBut := func(step string, except string, want map[string]string) {
					t.Helper()
					for _, s := range scopes {
						if s != except && w.read(s) != want[s] {
							t.Errorf("%s changed %s settings:\n%s", step, s, w.read(s))
						}
					}
				}
				cmdPath := claude.ReadonlyCommandPath(w.home)

				w.run("install", "--scope", a)
				unchangedBut("install "+a, a, before)
				afterA := w.read(a)
				if afterA == before[a] {
					t.Fatalf("install %s changed nothing", a)
				}

				w.run("install", "--scope", b)
				now := map[string]string{a: afterA}
				for _, s := range scopes {
					if s != a {
						now[s] = before[s]
					}
				}
				unchangedBut("install "+b, b, now)
				afterB := w.read(b)

				out := w.run("uninstall", "--scope", a)
				if got := w.read(a); got != before[a] {
					t.Errorf("uninstall %s did not give back its file:\n got %q\nwant %q", a, got, before[a])
				}
				if got := w.read(b); got != afterB {
					t.Errorf("uninstall %s changed %s settings:\n got %q\nwant %q", a, b, got, afterB)
				}
				if err := claude.CheckReadonlyCommand(w.home); err != nil || !strings.Contains(out, "kept the /readonly command") {
					t.Errorf("uninstall %s while %s registers hookctl: /readonly %v\n%s", a, b, err, out)
				}

				w.run("uninstall", "--scope", b)
				for _, s := range scopes {
					if got := w.read(s); got != before[s] {
						t.Errorf("after both uninstalls, %s settings:\n got %q\nwant %q", s, got, before[s])
					}
				}
				if _, err := os.Stat(cmdPath); err == nil {
					t.Errorf("the last uninstall left the /readonly command")
				}
				if files := w.projectFiles(); !slices.Equal(files, []string{".claude/settings.json", ".claude/settings.local.json"}) {
					t.Errorf("files in the project: %v", files)
				}
				// Every change was backed up in hookctl's home: four of settings files.
				if backups, _ := filepath.Glob(filepath.Join(w.hh, "backups", "*")); len(backups) != 4 {
					t.Errorf("backups: %v", backups)
				}
			})
		}
	}
}

// TestInstallManagedDryRun: the managed scope (root's, in /etc) is only dry-run here; it shows
// the administrator's binary in every hook and writes nothing, anywhere.
func TestInstallManagedDryRun(t *testing.T) {
	w := newScopeWorld(t)
	managed, _ := claude.SettingsPath("managed", w.home, w.project)
	_, statErr := os.Stat(managed)
	before := map[string]string{}
	for s := range scopeFiles {
		before[s] = w.read(s)
	}
	for _, verb := range []string{"install", "uninstall"} {
		out := w.run(verb, "--scope", "managed", "--dry-run")
		if !strings.Contains(out, "(dry run: nothing written)") {
			t.Errorf("%s --dry-run: %s", verb, out)
		}
		if verb == "install" && (!strings.Contains(out, "would change "+managed) || strings.Contains(out, claude.Wrapper[:20]) ||
			strings.Count(out, `"command": "`+exePath(t)+`"`) != len(claude.Entries)) {
			t.Errorf("install --scope managed --dry-run does not pin every hook to this binary:\n%s", out)
		}
	}
	if _, err := os.Stat(managed); (err == nil) != (statErr == nil) {
		t.Errorf("the dry run created or removed %s", managed)
	}
	for s := range scopeFiles {
		if w.read(s) != before[s] {
			t.Errorf("%s settings changed", s)
		}
	}
	if entries, _ := os.ReadDir(w.hh); len(entries) != 0 {
		t.Errorf("the dry run wrote in hookctl's home: %v", entries)
	}
}

// TestInstallProjectIsCommittable (issue 11, item 6): the project registration names nothing of
// the user who made it — not their binary, home or hookctl home — so that a team can commit it,
// and it is byte for byte what another member's install makes.
func TestInstallProjectIsCommittable(t *testing.T) {
	w := newScopeWorld(t)
	out := w.run("install", "--scope", "project")
	text := w.read("project")
	for _, private := range []string{w.home, w.hh, exePath(t), filepath.Dir(exePath(t))} {
		if strings.Contains(text, private) {
			t.Errorf("the project's settings name %s:\n%s", private, text)
		}
	}
	if strings.Contains(text, "statusLine") {
		t.Errorf("the project's settings carry a status line")
	}
	if !strings.Contains(out, "names no path of yours: commit it") {
		t.Errorf("install does not say the file can be committed: %s", out)
	}
	// Another member, another home: the same bytes.
	other := newScopeWorld(t)
	other.run("install", "--scope", "project")
	if other.read("project") != text {
		t.Errorf("two members' project installs differ:\n%s\n%s", text, other.read("project"))
	}
	// An older install's project file, with this user's path and status line, is made
	// committable, and the user's own status line comes back where install had replaced it.
	old := newScopeWorld(t)
	old.run("install", "--scope", "local")
	os.Rename(old.path["local"], old.path["project"])
	saved, _ := loadSavedStatusLines(old.hh)
	if len(saved.Files) != 0 {
		t.Fatalf("saved status lines: %v", saved.Files)
	}
	old.run("install", "--scope", "project")
	got := old.read("project")
	if strings.Contains(got, old.hh) || strings.Contains(got, "statusLine") {
		t.Errorf("the old project registration was not made committable:\n%s", got)
	}
}

func exePath(t *testing.T) string {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	real, _ := filepath.EvalSymlinks(exe)
	return real
}

// TestInstallBackupsAreNamedAndKept: backups go to hookctl's home under names that say when
// and which file, and two in the same second do not overwrite each other.
func TestInstallBackupsAreNamedAndKept(t *testing.T) {
	home := t.TempDir()
	var paths []string
	for i := range 3 {
		p, err := backUp(home, "project", "/home/me/src/app/.claude/settings.json", []byte{byte('a' + i)})
		if err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	for i, p := range paths {
		if !strings.HasSuffix(strings.TrimSuffix(strings.TrimSuffix(p, "-2"), "-3"), "-project-home-me-src-app-.claude-settings.json") ||
			filepath.Dir(p) != filepath.Join(home, "backups") {
			t.Errorf("backup %s", p)
		}
		if b, _ := os.ReadFile(p); !bytes.Equal(b, []byte{byte('a' + i)}) {
			t.Errorf("%s holds %q", p, b)
		}
	}
}
