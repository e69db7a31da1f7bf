package gemini

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/hookctl/hookctl/agents/agentkit"
)

// TestManagedAgentInstallIsIdempotent: the managed Gemini CLI hook keeps its random name when
// installed again, and the pinned switch is set once.
func TestManagedAgentInstallIsIdempotent(t *testing.T) {
	text := []byte(`{"hooksConfig":{"enabled":false,"disabled":["x"]}}`)
	r := register("managed", "/home/u", agentkit.HookCommand("/usr/local/bin/hookctl", "gemini"))
	name := HookName(text, r.Keys, agentkit.Ours("gemini"))
	if !strings.HasPrefix(name, "hookctl-") || len(name) != len("hookctl-")+16 || name == HookName(text, r.Keys, agentkit.Ours("gemini")) {
		t.Fatalf("a new name is random: %q", name)
	}
	r.Group = strings.Replace(r.Group, `"name":"hookctl"`, `"name":"`+name+`"`, 1)
	out, changed, err := r.AddAll(text, agentkit.Ours("gemini"))
	if err != nil || !changed {
		t.Fatal(err)
	}
	if got := HookName(out, r.Keys, agentkit.Ours("gemini")); got != name {
		t.Errorf("installed again, the name is %q, not %q", got, name)
	}
	if again, changed, _ := r.AddAll(out, agentkit.Ours("gemini")); changed || string(again) != string(out) {
		t.Errorf("a second install changed the file:\n%s", again)
	}
	var v struct{ HooksConfig struct{ Enabled bool } }
	if json.Unmarshal(out, &v); !v.HooksConfig.Enabled {
		t.Errorf("hooks are not switched on:\n%s", out)
	}
}
