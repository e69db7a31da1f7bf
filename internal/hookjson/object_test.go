package hookjson

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestAppendStringMatchesEncodingJSON holds the hand-written string encoder to encoding/json
// (HTML escaping off) on hostile text: quotes, controls, U+2028, invalid UTF-8, random bytes.
func TestAppendStringMatchesEncodingJSON(t *testing.T) {
	cases := []string{"", "plain", `q"uote`, `back\slash`, "nl\ncr\rtab\t", "\x00\x01\x1f\x7f", "line\u2028sep\u2029",
		"bad\xffutf8\xc3", "é日本🙂", "</script>&<>", strings.Repeat("x", 1000)}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 2000; i++ {
		b := make([]byte, rng.IntN(40))
		for j := range b {
			b[j] = byte(rng.IntN(256))
		}
		cases = append(cases, string(b))
	}
	for _, s := range cases {
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		enc.Encode(s)
		got := AppendString(nil, s)
		if string(got) != strings.TrimSuffix(want.String(), "\n") {
			t.Fatalf("%q: got %s, want %s", s, got, want.String())
		}
		if !utf8.Valid(got) {
			t.Fatalf("%q: invalid UTF-8 out", s)
		}
	}
}

// TestReplaceStringKeepsTheRest: the rewrite changes the command and nothing else the client
// sent, byte for byte, and refuses an input whose command it cannot find.
func TestReplaceStringKeepsTheRest(t *testing.T) {
	in := `{"description":"list \"it\"","command":"ls -la","timeout":120000,"run_in_background":false}`
	out, err := ReplaceString(json.RawMessage(in), "command", "ls '-la'\n\u2028")
	if err != nil {
		t.Fatal(err)
	}
	want := `{"description":"list \"it\"","command":"ls '-la'\n\u2028","timeout":120000,"run_in_background":false}`
	if string(out) != want {
		t.Errorf("got  %s\nwant %s", out, want)
	}
	var m map[string]any
	if err := json.Unmarshal(out, &m); err != nil || m["command"] != "ls '-la'\n\u2028" {
		t.Errorf("not valid JSON: %v %v", m, err)
	}
	for _, bad := range []string{`{"cmd":"ls"}`, `{"command":1}`, `{}`} {
		if _, err := ReplaceString(json.RawMessage(bad), "command", "x"); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}
