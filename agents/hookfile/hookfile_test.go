package hookfile

import (
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

var path = []string{"hooks", "PreToolUse"}

const group = `{"hooks":[{"type":"command","command":"/h/bin/hookctl hook --agent codex","timeout":30}]}`

func ours(g gjson.Result) bool {
	return strings.Contains(g.Get("hooks.0.command").Str, "hookctl hook --agent")
}

// TestAddKeepsEveryOtherByte: hookctl's group goes at the end of the array (made where it is
// missing), every other byte stays, a second add changes nothing, and removing it gives the
// original text back where the array was there before.
func TestAddKeepsEveryOtherByte(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{``, "{\n  \"hooks\": {\n    \"PreToolUse\": [\n      {\n        \"hooks\": [\n          {\n            \"type\": \"command\",\n            \"command\": \"/h/bin/hookctl hook --agent codex\",\n            \"timeout\": 30\n          }\n        ]\n      }\n    ]\n  }\n}\n"},
		{`{"model": "x"}`, `{"model": "x", "hooks": {"PreToolUse":[` + group + `]}}`},
		{`{"hooks": {"Stop": []}}`, `{"hooks": {"Stop": [], "PreToolUse": [` + group + `]}}`},
		{"{\n  \"hooks\": {\"PreToolUse\": [ {\"matcher\":\"Bash\",\"hooks\":[]} ]},\n  \"x\": 1\n}\n", "{\n  \"hooks\": {\"PreToolUse\": [ {\"matcher\":\"Bash\",\"hooks\":[]}, " + group + " ]},\n  \"x\": 1\n}\n"},
		{`{"hooks":{"PreToolUse":[]}}`, `{"hooks":{"PreToolUse":[` + group + `]}}`},
	} {
		out, changed, err := Add([]byte(tc.in), path, group, ours, "")
		if err != nil || !changed || string(out) != tc.want {
			t.Errorf("Add(%q) = %q, %v, %v\nwant %q", tc.in, out, changed, err, tc.want)
			continue
		}
		again, changed, err := Add(out, path, group, ours, "")
		if err != nil || changed || string(again) != string(out) {
			t.Errorf("second Add(%q) changed it: %q %v", tc.in, again, err)
		}
		back, _, err := Remove(out, path, ours)
		if err != nil || gjson.GetBytes(back, "hooks.PreToolUse.#(hooks.0.command%\"*hookctl*\")").Exists() {
			t.Errorf("Remove(%q) = %q, %v", out, back, err)
		}
		if strings.Contains(tc.in, "PreToolUse") && string(back) != tc.in {
			t.Errorf("Remove did not restore %q: %q", tc.in, back)
		}
	}
}

// TestAddReplacesAnOlderGroup: a group of hookctl's that differs (another path) is replaced.
func TestAddReplacesAnOlderGroup(t *testing.T) {
	old := strings.Replace(group, "/h/bin", "/old", 1)
	in := `{"hooks":{"PreToolUse":[{"hooks":[]},` + old + `,{"matcher":"x","hooks":[]}]}}`
	out, changed, err := Add([]byte(in), path, group, ours, "")
	if err != nil || !changed {
		t.Fatal(err)
	}
	if want := `{"hooks":{"PreToolUse":[{"hooks":[]},{"matcher":"x","hooks":[]}, ` + group + `]}}`; string(out) != want {
		t.Errorf("got  %s\nwant %s", out, want)
	}
}

// TestRefusesWhatItCannotReadSafely: comments, a key twice, a path through a non-object, a
// non-object file are refused, never rewritten.
func TestRefusesWhatItCannotReadSafely(t *testing.T) {
	for _, in := range []string{`{"hooks": {} // c` + "\n}", `{"hooks":{},"hooks":{}}`, `{"hooks":[]}`, `{"hooks":{"PreToolUse":{}}}`, `[]`, `{"a":1,}`} {
		if _, _, err := Add([]byte(in), path, group, ours, ""); err == nil {
			t.Errorf("Add(%q): no error", in)
		}
	}
}

// FuzzAdd: on any text, Add either refuses or returns valid JSON holding hookctl's group once
// and the same values as before apart from it (Add checks that itself; this holds it to it), and
// a second Add changes nothing.
func FuzzAdd(f *testing.F) {
	for _, s := range []string{``, `{}`, `{"hooks":{}}`, `{"hooks":{"PreToolUse":[]}}`, `{"hooks":{"PreToolUse":[{"hooks":[]},` + group + `]}}`,
		`{"a":[1,2,{"b":"c"}],"hooks":{"Stop":[{}],"PreToolUse":[ {} , {"x":1} ]}}`, "{\n\t\"hooks\" : { \"PreToolUse\" : [\n\t] }\n}\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		out, _, err := Add([]byte(in), path, group, ours, "")
		if err != nil {
			return
		}
		if !gjson.ValidBytes(out) {
			t.Fatalf("Add(%q) = invalid JSON %q", in, out)
		}
		n := 0
		gjson.GetBytes(out, "hooks.PreToolUse").ForEach(func(_, g gjson.Result) bool {
			if ours(g) {
				n++
			}
			return true
		})
		if n != 1 {
			t.Fatalf("Add(%q) = %q: %d groups of hookctl's", in, out, n)
		}
		if again, changed, err := Add(out, path, group, ours, ""); err != nil || changed || string(again) != string(out) {
			t.Fatalf("second Add(%q) changed it: %q %v", out, again, err)
		}
		back, _, err := Remove(out, path, ours)
		if err != nil || !gjson.ValidBytes(back) {
			t.Fatalf("Remove(%q) = %q, %v", out, back, err)
		}
	})
}

func TestPin(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{``, `{"hooksConfig": {"enabled":true}}`},
		{`{"a": 1}`, `{"a": 1, "hooksConfig": {"enabled":true}}`},
		{`{"hooksConfig": {"enabled": false, "x": [1]}}`, `{"hooksConfig": {"enabled": true, "x": [1]}}`},
		{`{"hooksConfig": {"x": 2}}`, `{"hooksConfig": {"x": 2, "enabled": true}}`},
	} {
		out, changed, err := Pin([]byte(c.in), []string{"hooksConfig", "enabled"}, "true")
		if err != nil || !changed || compact(string(out)) != compact(c.want) {
			t.Errorf("Pin(%s) = %s %v %v, want %s", c.in, out, changed, err, c.want)
		}
		if again, changed, _ := Pin(out, []string{"hooksConfig", "enabled"}, "true"); changed || string(again) != string(out) {
			t.Errorf("Pin twice changed %s", out)
		}
	}
	if _, _, err := Pin([]byte(`{"hooksConfig": 3}`), []string{"hooksConfig", "enabled"}, "true"); err == nil {
		t.Error("a path through a number was rewritten")
	}
}
