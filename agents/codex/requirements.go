package codex

import (
	"github.com/BurntSushi/toml"

	"github.com/hookctl/hookctl/internal/fsutil"
)

// Requirements is the machine's Codex requirements file: what it sets, no config file (a
// repository's .codex/config.toml included) can change.
const Requirements = "/etc/codex/requirements.toml"

// HooksOn is what pins Codex's hooks on. Without it a repository's .codex/config.toml
// saying `[features] hooks = false` switches off every hook, the machine's managed ones
// included (found live with Codex 0.169.0: TestRealClientsManagedHookHoldsAgainstTheRepository).
const HooksOn = "[features]\nhooks = true\n"

// Features reads the features a requirements (or config) file sets: whether it has a
// features table at all, and hooks' value there (the legacy name codex_hooks counts too).
func Features(text []byte) (present bool, hooks *bool, err error) {
	var doc struct {
		Features map[string]any `toml:"features"`
	}
	md, err := toml.Decode(string(text), &doc)
	if err != nil {
		return false, nil, err
	}
	for _, k := range []string{"hooks", "codex_hooks"} {
		if b, ok := doc.Features[k].(bool); ok {
			hooks = &b
			if !b {
				break
			}
		}
	}
	return md.IsDefined("features"), hooks, nil
}

// HooksOffIn says whether the Codex config file at path switches hooks off.
func HooksOffIn(path string) bool {
	b, err := fsutil.ReadFile(path, 1<<20, false)
	if err != nil {
		return false
	}
	_, hooks, err := Features(b)
	return err == nil && hooks != nil && !*hooks
}
