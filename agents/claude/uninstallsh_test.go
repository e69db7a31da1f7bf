package claude

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// shellAwk is one POSIX shell and awk to run uninstall.sh with.
type shellAwk struct {
	name  string
	shell []string // the shell's argv before the script
	awk   []string // a program run as "awk": argv
}

// shellAwks lists the shells and awks here to run the script with: the script promises POSIX sh
// and awk, and users have dash, bash, busybox, mawk, gawk and the one true awk (macOS's).
// CI sets HOOKCTL_REQUIRE_E2E, and then the first of each must be there.
func shellAwks(t *testing.T) []shellAwk {
	t.Helper()
	var out []shellAwk
	shells := [][]string{{"dash"}, {"bash", "--posix"}, {"busybox", "sh"}}
	awks := [][]string{{"mawk"}, {"gawk"}, {"original-awk"}, {"busybox", "awk"}}
	var haveShells, haveAwks [][]string
	for _, s := range shells {
		if _, err := exec.LookPath(s[0]); err == nil {
			haveShells = append(haveShells, s)
		}
	}
	for _, a := range awks {
		if _, err := exec.LookPath(a[0]); err == nil {
			haveAwks = append(haveAwks, a)
		}
	}
	if len(haveShells) == 0 || len(haveAwks) == 0 {
		if os.Getenv("HOOKCTL_REQUIRE_E2E") == "1" {
			t.Fatalf("no shell (%v) or no awk (%v) to run uninstall.sh with", shells, awks)
		}
		t.Skip("no POSIX shell or awk here")
	}
	// Every awk under the first shell, every shell with the first awk.
	for _, a := range haveAwks {
		out = append(out, shellAwk{haveShells[0][0] + "+" + strings.Join(a, "-"), haveShells[0], a})
	}
	for _, s := range haveShells[1:] {
		out = append(out, shellAwk{strings.Join(s, "-") + "+" + haveAwks[0][0], s, haveAwks[0]})
	}
	return out
}

// scriptWorld is a hookctl home holding uninstall.sh, with the given awk first on PATH.
type scriptWorld struct {
	t    *testing.T
	sa   shellAwk
	home string
	path string // PATH for the script
}

func newScriptWorld(t *testing.T, sa shellAwk) *scriptWorld {
	t.Helper()
	w := &scriptWorld{t: t, sa: sa, home: t.TempDir()}
	if err := os.WriteFile(filepath.Join(w.home, UninstallScriptName), UninstallScript, 0o700); err != nil {
		t.Fatal(err)
	}
	shim := t.TempDir()
	prog, _ := exec.LookPath(sa.awk[0])
	wrapper := "#!/bin/sh\nexec " + prog + " " + strings.Join(sa.awk[1:], " ") + ` "$@"` + "\n"
	if err := os.WriteFile(filepath.Join(shim, "awk"), []byte(wrapper), 0o755); err != nil {
		t.Fatal(err)
	}
	w.path = shim + ":" + os.Getenv("PATH")
	return w
}

// saveStatusLine records, as hookctl install does, the status line it replaced in file.
func (w *scriptWorld) saveStatusLine(file, prev string) {
	real, err := filepath.EvalSymlinks(file)
	if err != nil {
		w.t.Fatal(err)
	}
	b, _ := json.MarshalIndent(map[string]any{"previous": prev, "files": map[string]string{real: prev}}, "", "  ")
	if err := os.WriteFile(filepath.Join(w.home, "statusline.json"), append(b, '\n'), 0o600); err != nil {
		w.t.Fatal(err)
	}
}

// run runs the script with args in dir and returns its exit code and output.
func (w *scriptWorld) run(dir string, args ...string) (int, string) {
	w.t.Helper()
	cmd := exec.Command(w.sa.shell[0], append(append(w.sa.shell[1:], filepath.Join(w.home, UninstallScriptName)), args...)...)
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + w.path, "HOME=" + filepath.Join(dir, "home")}
	out, err := cmd.CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		w.t.Fatalf("%s: %v", w.sa.name, err)
	}
	return code, string(out)
}

// TestUninstallScriptMatchesUninstall: on every golden case Claude Code reads (no comments),
// the script, with no hookctl binary, leaves the file exactly as Uninstall does, in every shell
// and awk here; and a second run changes nothing.
func TestUninstallScriptMatchesUninstall(t *testing.T) {
	for _, sa := range shellAwks(t) {
		t.Run(sa.name, func(t *testing.T) {
			w := newScriptWorld(t, sa)
			for _, c := range installCases {
				if c.jsonc {
					continue
				}
				after, err := os.ReadFile(filepath.Join("testdata", "install", c.name+".after.json"))
				if err != nil {
					t.Fatal(err)
				}
				want, _, err := Uninstall(after, cmp.Or(c.binary, testBinary), c.prev)
				if err != nil {
					t.Fatal(err)
				}
				dir := t.TempDir()
				file := filepath.Join(dir, "settings.json")
				os.WriteFile(file, after, 0o640)
				w.saveStatusLine(file, c.prev)
				code, out := w.run(dir, file)
				got, _ := os.ReadFile(file)
				if code != 0 || !bytes.Equal(got, want) {
					t.Errorf("%s: exit %d %s\n got %q\nwant %q", c.name, code, out, got, want)
					continue
				}
				if fi, _ := os.Stat(file); fi.Mode().Perm() != 0o640 {
					t.Errorf("%s: mode %v", c.name, fi.Mode().Perm())
				}
				backups, _ := filepath.Glob(filepath.Join(w.home, "backups", "*"))
				if len(backups) == 0 || !strings.Contains(out, "(backup: "+backups[len(backups)-1]+")") {
					t.Errorf("%s: backups %v, output %s", c.name, backups, out)
				} else if b, _ := os.ReadFile(backups[len(backups)-1]); !bytes.Equal(b, after) {
					t.Errorf("%s: the backup is not the file as it was", c.name)
				}
				if code, out := w.run(dir, file); code != 0 || !strings.Contains(out, "hookctl is not registered there") {
					t.Errorf("%s: second run: exit %d %s", c.name, code, out)
				}
			}
		})
	}
}

// TestUninstallScriptMatchesUninstallOnRandomFiles: settings files made at random — values of
// every kind, hookctl's entries of every form alone and among others' in a group, layouts from
// one line to CRLF with a byte order mark — come out of the script exactly as out of Uninstall,
// or are refused by both.
func TestUninstallScriptMatchesUninstallOnRandomFiles(t *testing.T) {
	sas := shellAwks(t)
	rounds := 150
	if testing.Short() {
		rounds = 30
	}
	for i, sa := range sas {
		t.Run(sa.name, func(t *testing.T) {
			w := newScriptWorld(t, sa)
			r := rand.New(rand.NewPCG(uint64(i), 7))
			n := rounds
			if i > 0 {
				n = rounds / 5 // the first runs them all; the others, a sample
			}
			for k := 0; k < n; k++ {
				text := randomSettings(r)
				want, _, werr := Uninstall(text, "/opt/x/hookctl", "")
				dir := t.TempDir()
				file := filepath.Join(dir, "settings.json")
				os.WriteFile(file, text, 0o644)
				code, out := w.run(dir, file)
				got, _ := os.ReadFile(file)
				switch {
				case werr != nil && code != 1:
					t.Errorf("Uninstall refuses (%v), the script exits %d %s:\n%s", werr, code, out, text)
				case werr != nil:
					if !bytes.Equal(got, text) {
						t.Errorf("the script changed a file it refused:\n%s", text)
					}
				case bytes.Equal(want, text) && (code != 0 || !strings.Contains(out, "hookctl is not registered there")):
					t.Errorf("nothing to remove, the script exits %d %s:\n%s", code, out, text)
				case !bytes.Equal(got, want):
					t.Errorf("exit %d %s\ninput %q\n got %q\nwant %q", code, out, text, got, want)
				}
			}
		})
	}
}

// TestUninstallScriptLeavesAlone: a file it cannot read or Claude Code ignores is not touched.
func TestUninstallScriptLeavesAlone(t *testing.T) {
	sa := shellAwks(t)[0]
	w := newScriptWorld(t, sa)
	ours := `{"command": "/x/hookctl", "args": ["hook"]}`
	for _, tc := range []struct {
		name, in string
		code     int
		want     string
	}{
		{"comment", "{\n  // mine\n  \"hooks\": {\"Stop\": [{\"hooks\": [" + ours + "]}]}\n}", 0, "Claude Code ignores this file"},
		{"trailing comma", `{"hooks": {"Stop": [{"hooks": [` + ours + `]}]},}`, 0, "Claude Code ignores this file"},
		{"truncated", `{"hooks": {"Stop": [{"hooks": [` + ours, 1, "unexpected end of file"},
		{"duplicate key", `{"hooks": {}, "hooks": {"Stop": [{"hooks": [` + ours + `]}]}}`, 1, "duplicate key"},
		{"hooks an array", `{"hooks": [` + ours + `]}`, 1, `"hooks" is not an object`},
		{"group without hooks", `{"hooks": {"Stop": [{"matcher": "*"}, {"hooks": [` + ours + `]}]}}`, 1, `has no "hooks" array`},
		{"depth bomb", strings.Repeat(`[`, 70) + strings.Repeat(`]`, 70), 1, "nested too deep"},
		{"not an object", `[` + ours + `]`, 1, "not a JSON object"},
	} {
		dir := t.TempDir()
		file := filepath.Join(dir, "settings.json")
		os.WriteFile(file, []byte(tc.in), 0o644)
		code, out := w.run(dir, file)
		got, _ := os.ReadFile(file)
		if code != tc.code || !strings.Contains(out, tc.want) || string(got) != tc.in {
			t.Errorf("%s: exit %d %q, want %d and %q; file changed: %v", tc.name, code, out, tc.code, tc.want, string(got) != tc.in)
		}
		if left, _ := filepath.Glob(filepath.Join(dir, "*hookctl-uninstall*")); len(left) != 0 {
			t.Errorf("%s: left %v", tc.name, left)
		}
	}
}

// TestUninstallScriptDefaults: with no argument the script does the user's settings and the
// current directory's project and local settings, edits a settings file that is a symbolic link
// at its target, restores the status line install replaced, and removes hookctl's /readonly
// command once nothing registers hookctl.
func TestUninstallScriptDefaults(t *testing.T) {
	sa := shellAwks(t)[0]
	w := newScriptWorld(t, sa)
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	os.MkdirAll(filepath.Join(home, ".claude", "commands"), 0o755)
	os.MkdirAll(filepath.Join(dir, ".claude"), 0o755)
	os.MkdirAll(filepath.Join(dir, "dotfiles"), 0o755)

	mine := "{\n  \"model\": \"opus\",\n  \"statusLine\": {\"type\": \"command\", \"command\": \"~/sl.sh\"}\n}\n"
	user, _, prev, err := Install([]byte(mine), Registration{Binary: filepath.Join(w.home, LinkedBinary), StatusLine: true})
	if err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(dir, "dotfiles", "claude-settings.json")
	os.WriteFile(target, user, 0o600)
	os.Symlink(target, filepath.Join(home, ".claude", "settings.json"))
	w.saveStatusLine(target, prev)
	project, _, _, _ := Install([]byte("{}\n"), Registration{Form: FormShared})
	os.WriteFile(filepath.Join(dir, ".claude", "settings.json"), project, 0o644)
	local, _, _, _ := Install(nil, Registration{Binary: "/elsewhere/hookctl"})
	os.WriteFile(filepath.Join(dir, ".claude", "settings.local.json"), local, 0o644)
	os.WriteFile(filepath.Join(home, ".claude", "commands", "readonly.md"), ReadonlyCommand, 0o644)

	code, out := w.run(dir, "--dry-run")
	if b, _ := os.ReadFile(target); code != 0 || strings.Count(out, "would remove hookctl from") != 3 || !bytes.Equal(b, user) {
		t.Fatalf("--dry-run: exit %d %s", code, out)
	}
	code, out = w.run(dir)
	if code != 0 || strings.Count(out, "removed hookctl from") != 3 || !strings.Contains(out, "removed the /readonly command") {
		t.Fatalf("exit %d %s", code, out)
	}
	if fi, err := os.Lstat(filepath.Join(home, ".claude", "settings.json")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v", err)
	}
	for file, want := range map[string]string{target: mine, filepath.Join(dir, ".claude", "settings.json"): "{}\n",
		filepath.Join(dir, ".claude", "settings.local.json"): "{}\n"} {
		if b, _ := os.ReadFile(file); string(b) != want {
			t.Errorf("%s: %q, want %q", file, b, want)
		}
	}
	if _, err := os.Stat(filepath.Join(home, ".claude", "commands", "readonly.md")); err == nil {
		t.Error("the /readonly command is still there")
	}
	// An earlier release's command goes too.
	os.WriteFile(filepath.Join(home, ".claude", "commands", "readonly.md"), readonlyCommandBefore[0], 0o644)
	w.run(dir)
	if _, err := os.Stat(filepath.Join(home, ".claude", "commands", "readonly.md")); err == nil {
		t.Error("the earlier /readonly command is still there")
	}
	code, out = w.run(dir)
	if code != 0 || !strings.Contains(out, "hookctl is not registered in") {
		t.Errorf("again: exit %d %s", code, out)
	}
}

// TestUninstallScriptKnowsTheReadonlyCommand: the script removes the command file only when it
// is exactly hookctl's, so its copies must be ReadonlyCommand and each earlier release's.
func TestUninstallScriptKnowsTheReadonlyCommand(t *testing.T) {
	s := string(UninstallScript)
	heredoc := func(tag string) string {
		start, end := "<<'"+tag+"'\n", "\n"+tag+"\n"
		i := strings.Index(s, start)
		j := strings.Index(s[i+len(start):], end)
		if i < 0 || j < 0 {
			t.Fatalf("uninstall.sh has no %s", tag)
		}
		return s[i+len(start) : i+len(start)+j+1]
	}
	if heredoc("END_OF_READONLY_COMMAND") != string(ReadonlyCommand) {
		t.Errorf("uninstall.sh's copy of the /readonly command differs from ReadonlyCommand")
	}
	if len(readonlyCommandBefore) != 1 || heredoc("END_OF_EARLIER_READONLY_COMMAND") != string(readonlyCommandBefore[0]) {
		t.Errorf("uninstall.sh's copy of the earlier /readonly command differs from readonlyCommandBefore")
	}
}

// randomSettings makes a settings file for the differential test.
func randomSettings(r *rand.Rand) []byte {
	g := &settingsGen{r: r}
	g.pick()
	var members []string
	for range r.IntN(4) {
		members = append(members, g.member("k"+strconv.Itoa(r.IntN(1000)), g.value(2)))
	}
	if r.IntN(8) > 0 {
		var events []string
		for e := range r.IntN(4) + 1 {
			var groups []string
			for range r.IntN(3) + 1 {
				groups = append(groups, g.group())
			}
			events = append(events, g.member([]string{"PreToolUse", "Stop", "SessionStart", "UserPromptSubmit"}[e], g.array(groups)))
		}
		if r.IntN(10) == 0 {
			events = append(events, g.member("Empty", g.array(nil)))
		}
		members = append(members, g.member("hooks", g.object(events)))
	}
	if r.IntN(3) == 0 {
		sl := `{"type": "command", "command": "` + []string{"/opt/x/hookctl statusline", "'/a b/hookctl' statusline", "echo mine", "/x/hookctl statusline --x"}[r.IntN(4)] + `"}`
		members = append(members, g.member("statusLine", sl))
	}
	r.Shuffle(len(members), func(i, j int) { members[i], members[j] = members[j], members[i] })
	out := g.object(members)
	if g.bom {
		out = "\ufeff" + out
	}
	if r.IntN(2) == 0 {
		out += g.nl
	}
	return []byte(out)
}

type settingsGen struct {
	r      *rand.Rand
	nl     string // line break
	ind    string // one level, "" for one line
	colon  string
	bom    bool
	depth  int
	spaces bool // random blanks between tokens
}

func (g *settingsGen) pick() {
	g.nl = []string{"\n", "\r\n"}[g.r.IntN(2)]
	g.ind = []string{"", "  ", "    ", "\t"}[g.r.IntN(4)]
	g.colon = []string{": ", ":"}[g.r.IntN(2)]
	g.bom = g.r.IntN(8) == 0
	g.spaces = g.r.IntN(5) == 0
}

func (g *settingsGen) blank() string {
	if !g.spaces {
		return ""
	}
	return []string{"", " ", "\t", "  ", g.nl}[g.r.IntN(5)]
}

func (g *settingsGen) list(open, close string, items []string) string {
	if len(items) == 0 {
		return open + g.blank() + close
	}
	if g.ind == "" {
		return open + g.blank() + strings.Join(items, ","+[]string{"", " "}[g.r.IntN(2)]+g.blank()) + g.blank() + close
	}
	pad := strings.Repeat(g.ind, g.depth)
	var b strings.Builder
	b.WriteString(open)
	for i, it := range items {
		if i > 0 {
			b.WriteString("," + g.blank())
		}
		b.WriteString(g.nl + pad + g.ind + it)
	}
	b.WriteString(g.blank() + g.nl + pad + close)
	return b.String()
}

// nested renders children one level deeper.
func (g *settingsGen) nested(f func() string) string {
	g.depth++
	defer func() { g.depth-- }()
	return f()
}

func (g *settingsGen) object(members []string) string { return g.list("{", "}", members) }
func (g *settingsGen) array(items []string) string    { return g.list("[", "]", items) }

func (g *settingsGen) member(k, v string) string {
	b, _ := json.Marshal(k)
	return string(b) + g.blank() + g.colon + g.blank() + v
}

func (g *settingsGen) value(depth int) string {
	switch n := g.r.IntN(8); {
	case depth > 0 && n == 0:
		var items []string
		for range g.r.IntN(3) {
			items = append(items, g.nested(func() string { return g.value(depth - 1) }))
		}
		return g.array(items)
	case depth > 0 && n == 1:
		var ms []string
		for k := range g.r.IntN(3) {
			ms = append(ms, g.member(fmt.Sprint("m", k), g.nested(func() string { return g.value(depth - 1) })))
		}
		return g.object(ms)
	case n == 2:
		return []string{"true", "false", "null", "0", "-1.5e3", "12"}[g.r.IntN(6)]
	}
	return []string{`"opus"`, `"a \"quoted\" \\ word"`, `"\u00e9t\u00e9 \ud83d\ude00"`, `"tab\there"`, `"é"`, `"/x/hookctl"`, `""`}[g.r.IntN(7)]
}

// group is a hook group: others' hooks, hookctl's in either form, or both.
func (g *settingsGen) group() string {
	var entries []string
	for range g.r.IntN(3) + 1 {
		var fields []string
		switch g.r.IntN(6) {
		case 0, 1:
			fields = []string{g.member("type", `"command"`), g.member("command", `"/opt/x/hookctl"`), g.member("args", `["hook"]`)}
		case 2:
			fields = []string{g.member("type", `"command"`), g.member("command", `"/bin/sh"`), g.member("args", `["-c", "exec x", "hookctl", "hook", "--retrieve"]`), g.member("timeout", "10")}
		case 3:
			fields = []string{g.member("command", `"/usr/bin/hookctl"`), g.member("args", `["check"]`)}
		default:
			fields = []string{g.member("type", `"command"`), g.member("command", `"/usr/bin/other"`)}
		}
		g.r.Shuffle(len(fields), func(i, j int) { fields[i], fields[j] = fields[j], fields[i] })
		entries = append(entries, g.nested(func() string { return g.nested(func() string { return g.object(fields) }) }))
	}
	ms := []string{g.member("hooks", g.nested(func() string { return g.array(entries) }))}
	if g.r.IntN(2) == 0 {
		ms = append([]string{g.member("matcher", `"*"`)}, ms...)
	}
	return g.nested(func() string { return g.object(ms) })
}
