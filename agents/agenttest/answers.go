package agenttest

import (
	"strings"
	"testing"

	"github.com/hookctl/hookctl/hook"
)

// Answer is one decision and the exact line an adapter must print for it.
type Answer struct {
	D    hook.Decision
	Want string
}

// CheckAnswers is a client's table of answers: a's Encode of each decision on the tool call in
// payload is exactly its Want, and a's Refuse of a payload it cannot read (empty, broken, not
// JSON) is deny("broken").
func CheckAnswers(t *testing.T, a hook.Adapter, payload string, answers []Answer, deny func(reason string) string) {
	t.Helper()
	ev, err := a.Decode([]byte(payload))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range answers {
		out, err := a.Encode(ev, tc.D)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.TrimSpace(string(out)); got != tc.Want {
			t.Errorf("%+v:\n got %s\nwant %s", tc.D, got, tc.Want)
		}
	}
	for _, p := range []string{"", "{", strings.Repeat("x", 64)} {
		if got, want := strings.TrimSpace(string(a.Refuse([]byte(p), "broken"))), deny("broken"); got != want {
			t.Errorf("Refuse(%q) = %s, want %s", p, got, want)
		}
	}
}
