package claude

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hookctl/hookctl/internal/testrows"
)

var update = flag.Bool("update", false, "rewrite the .after.json and .uninstalled.json files of testdata/install")

const testBinary = "/usr/local/bin/hookctl"

// installCase is one golden case: testdata/install/NAME.before.json is installed into
// (NAME.after.json), and that is uninstalled (NAME.uninstalled.json).
type installCase struct {
	name       string
	statusLine bool
	jsonc      bool   // the file holds comments or trailing commas (Registration.AllowJSONC)
	binary     string // "" means testBinary
	form       Form
	prev       string // the prevStatusLine install must return
	restores   bool   // uninstall gives the before file back byte for byte
}

var installCases = []installCase{
	{name: "empty-object", statusLine: true, restores: true},
	// A missing or empty file becomes {} after uninstall: Claude Code reads both the same.
	{name: "empty-file", statusLine: true},
	{name: "typical", restores: true},
	{name: "statusline-new", statusLine: true, restores: true},
	{name: "comments", statusLine: true, jsonc: true, restores: true},
	{name: "crlf-bom", statusLine: true, restores: true},
	{name: "compact", statusLine: true, restores: true},
	{name: "tabs", statusLine: true, restores: true},
	{name: "four-spaces", restores: true},
	{name: "other-pretooluse", restores: true},
	{name: "prompt-matcher-group", restores: true},
	{name: "statusline-existing", statusLine: true, restores: true,
		prev: "{\n    \"type\": \"command\",\n    \"command\": \"~/.claude/statusline.sh\",\n    \"padding\": 0\n  }"},
	// hookctl at another path, with other settings and in an event no longer registered: all
	// replaced. Its old status line is hookctl's, so there is nothing to restore.
	{name: "old-hookctl", statusLine: true},
	{name: "old-hookctl-shared-group"},
	{name: "trailing-commas", statusLine: true, jsonc: true, restores: true},
	{name: "deep-unknown", restores: true},
	{name: "unicode", statusLine: true, restores: true},
	// Install cannot tell an empty "hooks" or event array it filled from one it made, so
	// uninstall removes them.
	{name: "empty-hooks"},
	{name: "empty-event-array"},
	{name: "path-with-space", statusLine: true, binary: "/home/me/My Tools/it's/hookctl", restores: true},
	// A project's committed file: every hook through Wrapper, no path, no status line.
	{name: "shared-typical", form: FormShared, restores: true},
	{name: "shared-other-pretooluse", form: FormShared, restores: true},
	// Managed settings: every hook runs the administrator's binary.
	{name: "pinned-typical", form: FormPinned, statusLine: true, restores: true},
}

func init() {
	testrows.Unique("install case", installCases, func(r installCase) string { return r.name })
}

func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -run Install -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs:\n got %q\nwant %q", path, got, want)
	}
}

func TestInstallGolden(t *testing.T) {
	for _, c := range installCases {
		t.Run(c.name, func(t *testing.T) {
			bin := cmp.Or(c.binary, testBinary)
			r := Registration{Binary: bin, Form: c.form, StatusLine: c.statusLine, AllowJSONC: c.jsonc}
			if c.form == FormShared {
				r.Binary = ""
			}
			base := filepath.Join("testdata", "install", c.name)
			before, err := os.ReadFile(base + ".before.json")
			if err != nil {
				t.Fatal(err)
			}

			after, changed, prev, err := Install(before, r)
			if err != nil {
				t.Fatalf("Install: %v", err)
			}
			golden(t, base+".after.json", after)
			if !changed || prev != c.prev {
				t.Errorf("Install: changed %v, prev %q; want true, %q", changed, prev, c.prev)
			}
			mustBeJSON(t, "after", after)
			checkRegistered(t, after, r)

			// Installing again changes nothing.
			again, changed, prev2, err := Install(after, r)
			if err != nil || changed || prev2 != "" || !bytes.Equal(again, after) {
				t.Errorf("second Install: changed %v, prev %q, err %v, same bytes %v", changed, prev2, err, bytes.Equal(again, after))
			}

			un, changed, err := Uninstall(after, bin, prev)
			if err != nil || !changed {
				t.Fatalf("Uninstall: changed %v, err %v", changed, err)
			}
			golden(t, base+".uninstalled.json", un)
			mustBeJSON(t, "uninstalled", un)
			if c.restores && !bytes.Equal(un, before) {
				t.Errorf("uninstall did not give the file back:\n got %q\nwant %q", un, before)
			}
			if strings.Contains(string(un), "hookctl") {
				t.Errorf("uninstalled file still mentions hookctl:\n%s", un)
			}

			// Uninstalling again changes nothing.
			un2, changed, err := Uninstall(un, bin, prev)
			if err != nil || changed || !bytes.Equal(un2, un) {
				t.Errorf("second Uninstall: changed %v, err %v", changed, err)
			}

			// install, uninstall, install gives the first install back, and from there on the
			// cycle is stable.
			after2, _, _, err := Install(un, r)
			if err != nil {
				t.Fatalf("Install after Uninstall: %v", err)
			}
			if c.restores && !bytes.Equal(after2, after) {
				t.Errorf("install after uninstall differs from the first install:\n got %q\nwant %q", after2, after)
			}
			un3, _, err := Uninstall(after2, bin, prev)
			if err != nil || !bytes.Equal(un3, un) {
				t.Errorf("uninstall after reinstall differs: %v\n got %q\nwant %q", err, un3, un)
			}
		})
	}
}

// TestInstallGoldenFilesAreListed keeps testdata/install and installCases in step.
func TestInstallGoldenFilesAreListed(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "install", "*"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{}
	for _, c := range installCases {
		for _, suffix := range []string{".before.json", ".after.json", ".uninstalled.json"} {
			want[filepath.Join("testdata", "install", c.name+suffix)] = true
		}
	}
	for _, f := range files {
		if !want[f] {
			t.Errorf("%s belongs to no install case", f)
		}
		delete(want, f)
	}
	if !*update {
		for f := range want {
			t.Errorf("%s is missing", f)
		}
	}
}

// checkRegistered reads an installed file with encoding/json, apart from the code under test,
// and checks that every event of Entries holds exactly its hookctl groups, last, in order, as given.
func checkRegistered(t *testing.T, text []byte, r Registration) {
	t.Helper()
	var doc struct {
		Hooks      map[string][]map[string]any `json:"hooks"`
		StatusLine map[string]any              `json:"statusLine"`
	}
	if err := json.Unmarshal(stripJSONC(text), &doc); err != nil {
		t.Fatalf("installed file does not decode: %v", err)
	}
	byEvent := map[string][]Entry{}
	for _, e := range Entries {
		byEvent[e.Event] = append(byEvent[e.Event], e)
	}
	for event, entries := range byEvent {
		groups := doc.Hooks[event]
		if len(groups) < len(entries) {
			t.Errorf("%s: %d groups, want at least %d", event, len(groups), len(entries))
			continue
		}
		for i, e := range entries {
			cmd, args := r.Binary, []any{}
			if r.Form == FormShared || r.Form == FormPersonal && e.Wrapped {
				cmd, args = "/bin/sh", []any{"-c", Wrapper, "hookctl"}
			}
			for _, a := range e.args() {
				args = append(args, a)
			}
			want := map[string]any{"hooks": []any{map[string]any{
				"type": "command", "command": cmd, "args": args, "timeout": float64(e.Timeout),
			}}}
			if e.Matcher != "" {
				want["matcher"] = e.Matcher
			}
			if e.OnFailure != "" {
				want["hooks"].([]any)[0].(map[string]any)["onFailure"] = e.OnFailure
			}
			if got := groups[len(groups)-len(entries)+i]; !reflect.DeepEqual(got, want) {
				t.Errorf("%s: group %d from the end\n got %v\nwant %v", event, len(entries)-i, got, want)
			}
		}
		n := 0
		for _, g := range groups {
			for _, h := range g["hooks"].([]any) {
				h := h.(map[string]any)
				args, _ := h["args"].([]any)
				switch {
				case h["command"] == r.Binary && len(args) > 0 && args[0] == "hook":
					n++
				case h["command"] == "/bin/sh" && len(args) > 3 && args[2] == "hookctl" && args[3] == "hook":
					n++
				}
			}
		}
		if n != len(entries) {
			t.Errorf("%s: %d hookctl entries, want %d", event, n, len(entries))
		}
	}
	if r.Form == FormShared && strings.Contains(string(text), testBinary) {
		t.Errorf("a shared registration names a path:\n%s", text)
	}
	if r.StatusLine {
		want := map[string]any{"type": "command", "command": shellQuote(r.Binary) + " statusline", "refreshInterval": float64(statusRefresh)}
		if !reflect.DeepEqual(doc.StatusLine, want) {
			t.Errorf("statusLine %v, want %v", doc.StatusLine, want)
		}
	}
}

func TestInstallEntriesTable(t *testing.T) {
	seen := map[string]bool{}
	for _, e := range Entries {
		key := e.Event + "\x00" + e.Matcher
		if e.Event == "" || seen[key] || e.Timeout <= 0 || len(e.args()) == 0 || e.args()[0] != hookArg {
			t.Errorf("bad entry %+v", e)
		}
		seen[key], seen[e.Event] = true, true
	}
	if !seen["PreToolUse"] {
		t.Error("PreToolUse is not registered")
	}
}

// installRefusal is a file Install and Uninstall must refuse, and the line they must name.
type installRefusal struct {
	name, in, want string
}

var installRefusals = []installRefusal{
	{"top-level array", `[{"hooks": {}}]`, "line 1 column 1: the settings are not a JSON object"},
	{"top-level string", `"hooks"`, "not a JSON object"},
	{"top-level null", `null`, "not a JSON object"},
	{"hooks as array", "{\n  \"hooks\": []\n}", `line 2 column 12: "hooks" is not an object`},
	{"hooks as null", `{"hooks": null}`, `"hooks" is not an object`},
	{"hooks as string", `{"hooks": "hookctl"}`, `"hooks" is not an object`},
	{"PreToolUse as object", "{\"hooks\": {\n\"PreToolUse\": {\"matcher\": \"*\"}}}", `line 2 column 15: hooks event "PreToolUse" is not an array`},
	{"unknown event as string", `{"hooks": {"Stop": "x"}}`, `hooks event "Stop" is not an array`},
	{"group as array", `{"hooks": {"Stop": [[]]}}`, `a hook group of "Stop" is not an object`},
	{"group without hooks", `{"hooks": {"Stop": [{"matcher": "*"}]}}`, `a hook group of "Stop" has no "hooks" array`},
	{"group hooks as object", `{"hooks": {"Stop": [{"hooks": {}}]}}`, `has no "hooks" array`},
	{"hook as string", `{"hooks": {"Stop": [{"hooks": ["/usr/bin/hookctl hook"]}]}}`, `a hook of "Stop" is not an object`},
	{"duplicate hooks keys", "{\n\"hooks\": {},\n\"hooks\": {\"PreToolUse\": []}}", `line 3 column 1: duplicate key "hooks"`},
	{"duplicate event keys", `{"hooks": {"PreToolUse": [], "PreToolUse": []}}`, `duplicate key "PreToolUse"`},
	{"duplicate command keys", `{"hooks": {"Stop": [{"hooks": [{"command": "/usr/bin/hookctl", "command": "/bin/evil", "args": ["hook"]}]}]}}`, `duplicate key "command"`},
	{"duplicate statusLine keys", `{"statusLine": {}, "statusLine": {}}`, `duplicate key "statusLine"`},
	{"truncated", `{"hooks": {"PreToolUse": [`, "unexpected end of file"},
	{"unterminated comment", "{\n/* hooks", "line 2 column 1: unterminated comment"},
	{"NUL", "{\"model\": \"a\x00\"}", "NUL byte"},
	{"invalid UTF-8", "{\"model\": \"\xfe\"}", "invalid UTF-8"},
	{"bare words", `{model: opus}`, "unexpected 'm'"},
	{"depth bomb", strings.Repeat(`{"a":`, 200), "nested deeper than 64 levels"},
	{"over the size cap", `{"a": "` + strings.Repeat("x", maxSettingsSize) + `"}`, "larger than"},
}

func TestInstallRefusesMalformed(t *testing.T) {
	for _, r := range installRefusals {
		reg := Registration{Binary: testBinary, StatusLine: true, AllowJSONC: true}
		out, _, _, err := Install([]byte(r.in), reg)
		if err == nil || !strings.Contains(err.Error(), r.want) || out != nil {
			t.Errorf("Install %s: got %v, want an error containing %q", r.name, err, r.want)
		}
		out, _, err = Uninstall([]byte(r.in), testBinary, "")
		if err == nil || !strings.Contains(err.Error(), r.want) || out != nil {
			t.Errorf("Uninstall %s: got %v, want an error containing %q", r.name, err, r.want)
		}
	}
}

// TestInstallRefusesJSONCByDefault: Claude Code 2.1.328 silently ignores a settings file with a
// comment or a trailing comma (seen live in -p mode), so a registration there would never run.
func TestInstallRefusesJSONCByDefault(t *testing.T) {
	for _, in := range []string{
		"{\n  // a comment\n  \"model\": \"opus\"\n}",
		"{\n  \"model\": \"opus\" /* block */\n}",
		"{\n  \"model\": \"opus\",\n}",
		"{\"a\": [1,]}",
	} {
		_, _, _, err := Install([]byte(in), Registration{Binary: testBinary})
		var se *SettingsError
		if !errors.Is(err, ErrIgnoredByClient) || !errors.As(err, &se) {
			t.Errorf("Install(%q): %v, want ErrIgnoredByClient with a line", in, err)
		}
		if _, _, err := Uninstall([]byte(in), testBinary, ""); err != nil {
			t.Errorf("Uninstall(%q): %v", in, err)
		}
	}
	_, _, _, err := Install([]byte("{\n  \"a\": 1,\n  // here\n}"), Registration{Binary: testBinary})
	if err == nil || !strings.Contains(err.Error(), "line 2 column 9") {
		t.Errorf("got %v, want the trailing comma's line", err)
	}
}

func TestInstallRefusesBadBinary(t *testing.T) {
	for _, bin := range []string{"", "hookctl", "./bin/hookctl", "/usr/bin/hook\nctl", "/usr/bin/\x7fhookctl", "/usr/bin/\xffhookctl"} {
		if _, _, _, err := Install([]byte("{}"), Registration{Binary: bin}); err == nil {
			t.Errorf("Install with binary %q: no error", bin)
		}
	}
}

func TestInstallBlankIsEmpty(t *testing.T) {
	// Only JSON whitespace makes a file blank; other blank characters are refused, not replaced.
	for _, in := range []string{"\u0085", "\u00a0", "\u2028", "\f", "\v", "\ufeff\ufeff"} {
		if _, _, _, err := Install([]byte(in), Registration{Binary: testBinary}); err == nil {
			t.Errorf("Install(%q): no error", in)
		}
	}
	r := Registration{Binary: testBinary}
	want, _, _, err := Install([]byte("{}"), r)
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range []string{"", " ", "\n\n", "\ufeff", "\t\r\n", "\ufeff \n"} {
		out, changed, _, err := Install([]byte(in), r)
		if err != nil || !changed || string(out) != string(want)+"\n" {
			t.Errorf("Install(%q) = %q, %v, %v", in, out, changed, err)
		}
		un, changed, err := Uninstall([]byte(in), testBinary, "")
		if err != nil || changed || string(un) != in {
			t.Errorf("Uninstall(%q) = %q, %v, %v", in, un, changed, err)
		}
	}
}

// TestInstallStatusLineReplacedAndRestored checks the status line a user had, in each form it
// may take, comes back byte for byte.
func TestInstallStatusLineReplacedAndRestored(t *testing.T) {
	r := Registration{Binary: testBinary, StatusLine: true}
	for _, val := range []string{
		`{"type": "command", "command": "~/bin/sl"}`,
		"{\n    \"type\": \"command\",\n    \"command\": \"printf '%s' \\\"$(pwd)\\\"\"\n  }",
		`"not even an object"`,
		`null`,
		`{}`,
	} {
		in := "{\n  \"statusLine\": " + val + ",\n  \"model\": \"opus\"\n}\n"
		out, _, prev, err := Install([]byte(in), r)
		if err != nil || prev != val {
			t.Errorf("Install(%q): prev %q, %v; want %q", in, prev, err, val)
			continue
		}
		un, _, err := Uninstall(out, testBinary, prev)
		if err != nil || string(un) != in {
			t.Errorf("Uninstall(%q, %q) = %q, %v; want %q", out, prev, un, err, in)
		}
	}
}

func TestUninstallStatusLine(t *testing.T) {
	ours := "{\n  \"statusLine\": {\"type\": \"command\", \"command\": \"/x/hookctl statusline\"}\n}"
	for _, tc := range []struct {
		name, in, prev, want string
		err                  bool
	}{
		{"removed without prev", ours, "", "{}", false},
		{"restored", ours, `{"type":"command","command":"sl"}`, "{\n  \"statusLine\": {\"type\":\"command\",\"command\":\"sl\"}\n}", false},
		{"prev that is hookctl's is dropped", ours, `{"command": "'/y/hookctl' statusline"}`, "{}", false},
		{"prev that does not parse", ours, `{"command": `, "", true},
		{"prev with a comment after it", ours, `{} // x`, "", true},
		{"prev with space before it", ours, ` {}`, "", true},
		{"not ours: left alone", "{\"statusLine\": {\"command\": \"hookctl-wrapper statusline\"}}", `"x"`,
			"{\"statusLine\": {\"command\": \"hookctl-wrapper statusline\"}}", false},
		{"not ours: another argument", "{\"statusLine\": {\"command\": \"/x/hookctl statusline --x\"}}", "",
			"{\"statusLine\": {\"command\": \"/x/hookctl statusline --x\"}}", false},
		{"quoted path is ours", "{\"statusLine\": {\"command\": \"'/a b/it'\\\\''s/hookctl' statusline\"}}", "", "{}", false},
		// Spellings install does not write but the shell reads as the same program.
		{"backslash-escaped path is ours", `{"statusLine": {"command": "/a\\ b/hook\\ctl statusline"}}`, "", "{}", false},
		{"ANSI-C quoted path is ours", `{"statusLine": {"command": "$'/x/hook\\x63tl' statusline"}}`, "", "{}", false},
		{"not ours: a path the text does not fix", `{"statusLine": {"command": "$HOME/hookctl statusline"}}`, "",
			`{"statusLine": {"command": "$HOME/hookctl statusline"}}`, false},
	} {
		out, _, err := Uninstall([]byte(tc.in), "/x/hookctl", tc.prev)
		if (err != nil) != tc.err || string(out) != tc.want {
			t.Errorf("%s: got %q, %v; want %q (error %v)", tc.name, out, err, tc.want, tc.err)
		}
	}
}

// TestUninstallRecognisesHookctl lists hook entries and whether uninstall takes them out.
func TestUninstallRecognisesHookctl(t *testing.T) {
	for _, tc := range []struct {
		entry string
		ours  bool
	}{
		{`{"type": "command", "command": "/usr/local/bin/hookctl", "args": ["hook"]}`, true},
		{`{"command": "/somewhere/else/hookctl", "args": ["hook", "--x"]}`, true},
		{`{"command": "hookctl", "args": ["hook"]}`, true},
		{`{"command": "/opt/renamed-gate", "args": ["hook"]}`, true}, // the binary given
		{`{"command": "/opt/renamed-gate", "args": ["check"]}`, false},
		{`{"command": "/usr/local/bin/hookctl", "args": ["statusline"]}`, false},
		{`{"command": "/usr/local/bin/hookctl", "args": []}`, false},
		{`{"command": "/usr/local/bin/hookctl"}`, false},
		{`{"command": "/usr/local/bin/hookctl hook"}`, false}, // shell form: not written by install
		{`{"command": "/usr/local/bin/hookctl-dev", "args": ["hook"]}`, false},
		{`{"command": "/usr/local/bin/nothookctl", "args": ["hook"]}`, false},
		{`{"command": ["hookctl"], "args": ["hook"]}`, false},
		{`{"command": "/usr/local/bin/hookctl", "args": "hook"}`, false},
		{`{"command": "/usr/local/bin/hookctl", "args": [1, "hook"]}`, false},
		{`{"type": "prompt", "prompt": "hookctl hook"}`, false},
	} {
		in := `{"hooks": {"Stop": [{"hooks": [` + tc.entry + `]}]}}`
		out, _, err := Uninstall([]byte(in), "/opt/renamed-gate", "")
		if err != nil {
			t.Errorf("%s: %v", tc.entry, err)
			continue
		}
		if removed := string(out) == "{}"; removed != tc.ours {
			t.Errorf("%s: removed %v, want %v (%q)", tc.entry, removed, tc.ours, out)
		}
	}
}

// TestUninstallKeepsWhatItDidNotEmpty: groups, events and "hooks" that were empty to begin with
// stay; only those left empty by taking hookctl out go.
func TestUninstallKeepsWhatItDidNotEmpty(t *testing.T) {
	ours := `{"command": "/usr/local/bin/hookctl", "args": ["hook"]}`
	for _, tc := range []struct{ in, want string }{
		{`{"hooks": {}}`, `{"hooks": {}}`},
		{`{"hooks": {"Stop": []}}`, `{"hooks": {"Stop": []}}`},
		{`{"hooks": {"Stop": [{"hooks": []}]}}`, `{"hooks": {"Stop": [{"hooks": []}]}}`},
		{`{"hooks": {"Stop": [{"hooks": []}, {"hooks": [` + ours + `]}]}}`, `{"hooks": {"Stop": [{"hooks": []}]}}`},
		{`{"hooks": {"Stop": [], "X": [{"hooks": [` + ours + `]}]}}`, `{"hooks": {"Stop": []}}`},
		{`{"hooks": {"X": [{"hooks": [` + ours + `, ` + ours + `]}, {"hooks": [` + ours + `]}]}, "a": 1}`, `{"a": 1}`},
		{"{\n  \"hooks\": {\"X\": [{\"hooks\": [" + ours + "]}]},\n  \"a\": 1\n}", "{\n  \"a\": 1\n}"},
		{`{"a": 1, "hooks": {"X": [{"hooks": [` + ours + `]}]}}`, `{"a": 1}`},
		{`{"hooks": {"X": [{"hooks": [{"command": "a"}, ` + ours + `, {"command": "b"}, ` + ours + `]}]}}`,
			`{"hooks": {"X": [{"hooks": [{"command": "a"}, {"command": "b"}]}]}}`},
	} {
		out, _, err := Uninstall([]byte(tc.in), testBinary, "")
		if err != nil || string(out) != tc.want {
			t.Errorf("Uninstall(%s) = %s, %v; want %s", tc.in, out, err, tc.want)
		}
	}
}

func TestInstallStatusLineQuoting(t *testing.T) {
	for _, tc := range [][2]string{
		{"/usr/local/bin/hookctl", "/usr/local/bin/hookctl statusline"},
		{"/opt/hook-ctl_1.2/hookctl", "/opt/hook-ctl_1.2/hookctl statusline"},
		{"/home/me/My Tools/hookctl", "'/home/me/My Tools/hookctl' statusline"},
		{"/home/me/it's/hookctl", `'/home/me/it'\''s/hookctl' statusline`},
		{"/tmp/$(rm -rf ~)/hookctl", "'/tmp/$(rm -rf ~)/hookctl' statusline"},
		{"/tmp/a`b`/hookctl", "'/tmp/a`b`/hookctl' statusline"},
		{"/tmp/é/hookctl", "'/tmp/é/hookctl' statusline"},
	} {
		got := statusCommand(tc[0])
		if got != tc[1] {
			t.Errorf("statusCommand(%q) = %q, want %q", tc[0], got, tc[1])
		}
		word, rest, ok := firstShellWord(got)
		if !ok || word != tc[0] || rest != " statusline" {
			t.Errorf("firstShellWord(%q) = %q, %q, %v", got, word, rest, ok)
		}
	}
}

// firstShellWordRow is a status line command and the first word firstShellWord must read from
// it; ok false means it must read none.
type firstShellWordRow struct {
	cmd, word, rest string
	ok              bool
}

func shellWord(cmd, word, rest string) firstShellWordRow {
	return firstShellWordRow{cmd, word, rest, true}
}
func noShellWord(cmd string) firstShellWordRow { return firstShellWordRow{cmd: cmd} }

var firstShellWordRows = []firstShellWordRow{
	shellWord("/x/hookctl statusline", "/x/hookctl", " statusline"),
	shellWord("/x/hookctl", "/x/hookctl", ""),
	shellWord(`'/a b/it'\''s/hookctl' statusline`, "/a b/it's/hookctl", " statusline"),
	shellWord(`/a\ b/hook\ctl statusline`, "/a b/hookctl", " statusline"),
	shellWord(`$'/x/hook\x63tl' statusline`, "/x/hookctl", " statusline"),
	shellWord(`$'/it\'s/hookctl' statusline`, "/it's/hookctl", " statusline"),
	shellWord(`"/x/hookctl" statusline`, "/x/hookctl", " statusline"),
	shellWord(`/x/"hook"'ctl' statusline`, "/x/hookctl", " statusline"),
	shellWord("/x/hookctl statusline; rm -rf ~", "/x/hookctl", " statusline; rm -rf ~"), // rest is compared whole by the caller
	noShellWord(""),
	noShellWord(" /x/hookctl statusline"),      // not at the first byte, as install never writes it
	noShellWord("~/bin/hookctl statusline"),    // tilde expansion: the text does not fix the path
	noShellWord("$HOME/hookctl statusline"),    // parameter expansion
	noShellWord("/x/*/hookctl statusline"),     // pathname expansion
	noShellWord("/x/{a,b}/hookctl statusline"), // brace expansion
	noShellWord("$(which hookctl) statusline"),
	noShellWord("`which hookctl` statusline"),
	noShellWord(`$"/x/hookctl" statusline`),     // bash: translated; zsh: a literal $
	noShellWord(`$'/x/hook\x00ctl' statusline`), // bash cuts at the NUL, zsh keeps it
	noShellWord("A=1 /x/hookctl statusline"),
	noShellWord(">/tmp/out /x/hookctl statusline"),
	noShellWord("! /x/hookctl statusline"),
	noShellWord("(/x/hookctl statusline)"),
	noShellWord("'/x/hookctl statusline"), // does not parse
}

func init() {
	testrows.Unique("firstShellWord", firstShellWordRows, func(r firstShellWordRow) string { return r.cmd })
}

func TestFirstShellWord(t *testing.T) {
	for _, r := range firstShellWordRows {
		word, rest, ok := firstShellWord(r.cmd)
		if ok != r.ok || word != r.word || rest != r.rest {
			t.Errorf("firstShellWord(%q) = %q, %q, %v; want %q, %q, %v", r.cmd, word, rest, ok, r.word, r.rest, r.ok)
		}
	}
}

// TestInstallReplacesOnlyWhatDiffers: an exact registration in one event stays put while another
// event's stale entry is replaced.
func TestInstallReplacesOnlyWhatDiffers(t *testing.T) {
	r := Registration{Binary: testBinary}
	first, _, _, err := Install([]byte("{\n  \"model\": \"opus\"\n}\n"), r)
	if err != nil {
		t.Fatal(err)
	}
	stale := bytes.Replace(first, []byte(`"timeout": 120,
            "onFailure": "block"
          }
        ]
      }
    ],
    "UserPromptSubmit"`), []byte(`"timeout": 99,
            "onFailure": "block"
          }
        ]
      }
    ],
    "UserPromptSubmit"`), 1)
	if bytes.Equal(stale, first) {
		t.Fatal("test input unchanged")
	}
	out, changed, _, err := Install(stale, r)
	if err != nil || !changed {
		t.Fatalf("Install: %v %v", changed, err)
	}
	d, err := parseSettings(out)
	if err != nil {
		t.Fatal(err)
	}
	var events []string
	for _, m := range d.root.get("hooks").kids {
		events = append(events, m.key)
	}
	// PreToolUse's array stays where it was and is filled again.
	if want := []string{"PreToolUse", "UserPromptSubmit", "UserPromptExpansion", "SessionStart", "SessionEnd"}; !slices.Equal(events, want) {
		t.Errorf("events %v, want %v", events, want)
	}
	if !bytes.Equal(out, first) {
		t.Errorf("got\n%s\nwant\n%s", out, first)
	}
}

// TestInstallLinearTime installs into and uninstalls from large files laid out to be slow for
// careless code: many members on one line (finding a line's start from each member), many
// events, many groups.
func TestInstallLinearTime(t *testing.T) {
	many := func(n int, item func(i int) string) string {
		parts := make([]string, n)
		for i := range parts {
			parts[i] = item(i)
		}
		return strings.Join(parts, ",")
	}
	ours := `{"type":"command","command":"/usr/local/bin/hookctl","args":["hook"]}`
	for name, in := range map[string]string{
		"many members on one line": "{" + many(100000, func(i int) string { return `"k` + strconv.Itoa(i) + `":1` }) + "}",
		"many members on lines":    "{\n" + many(100000, func(i int) string { return `  "k` + strconv.Itoa(i) + `": 1` + "\n" }) + "}",
		"many events":              `{"hooks":{` + many(20000, func(i int) string { return `"E` + strconv.Itoa(i) + `":[{"hooks":[` + ours + `]}]` }) + "}}",
		"many groups":              `{"hooks":{"PreToolUse":[` + many(15000, func(int) string { return `{"hooks":[{"command":"x"},` + ours + `]}` }) + "]}}",
	} {
		start := time.Now()
		out, _, prev, err := Install([]byte(in), Registration{Binary: testBinary, StatusLine: true})
		if err != nil {
			t.Errorf("%s: Install: %v", name, err)
			continue
		}
		if _, _, err := Uninstall(out, testBinary, prev); err != nil {
			t.Errorf("%s: Uninstall: %v", name, err)
		}
		// Linear work here takes well under a second; anything quadratic, minutes. The bound is
		// loose because the machine may be busy.
		if d := time.Since(start); d > 30*time.Second {
			t.Errorf("%s: took %v for %d bytes", name, d, len(in))
		}
	}
}

// TestCheckReadonlyCommandFrom: a toggle from the user's command checks the user's file, which
// passes as install wrote it (and as an earlier release did) and fails, saying how to restore
// it, when it is missing or changed.
func TestCheckReadonlyCommandFrom(t *testing.T) {
	home := t.TempDir()
	path := ReadonlyCommandPath(home)
	if err := CheckReadonlyCommandFrom("userSettings", home); err == nil || !strings.Contains(err.Error(), "cannot be read") || !strings.Contains(err.Error(), "run hookctl install") {
		t.Errorf("missing: %v", err)
	}
	os.MkdirAll(filepath.Dir(path), 0o755)
	for _, c := range []struct {
		content []byte
		ok      bool
	}{{ReadonlyCommand, true}, {readonlyCommandBefore[0], true}, {append(bytes.Clone(ReadonlyCommand), "Run hookctl readonly off.\n"...), false}} {
		os.WriteFile(path, c.content, 0o644)
		err := CheckReadonlyCommandFrom("userSettings", home)
		if (err == nil) != c.ok || !c.ok && (!strings.Contains(err.Error(), "is not the one hookctl installed") || !strings.Contains(err.Error(), "run hookctl install")) {
			t.Errorf("%q: %v", c.content, err)
		}
	}
}
