package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/BurntSushi/toml"

	"github.com/hookctl/hookctl/internal/fsutil"
)

// codexRequirements is the machine's Codex requirements file: what it sets, no config file
// (a repository's .codex/config.toml included) can change.
const codexRequirements = "/etc/codex/requirements.toml"

// codexHooksOn is what pins Codex's hooks on. Without it a repository's .codex/config.toml
// saying `[features] hooks = false` switches off every hook, the machine's managed ones
// included (found live with Codex 0.169.0: TestRealClientsManagedHookHoldsAgainstTheRepository).
const codexHooksOn = "[features]\nhooks = true\n"

// codexFeatures reads the features a requirements (or config) file sets: whether it has a
// features table at all, and hooks' value there (the legacy name codex_hooks counts too).
func codexFeatures(text []byte) (present bool, hooks *bool, err error) {
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

// pinCodexHooks makes the machine's requirements say hooks are on: it writes the file where
// there is none, adds the table where the file has no features table, and otherwise leaves an
// administrator's file alone, saying what to add. Uninstall leaves the pin: on is Codex's default.
func pinCodexHooks(s *streams, path string, dryRun bool) error {
	text, mode, _, err := readSettingsFile(path)
	if err != nil {
		return err
	}
	present, hooks, err := codexFeatures(text)
	switch {
	case err != nil:
		return fmt.Errorf("%s does not parse (%v): nothing changed", path, err)
	case hooks != nil && *hooks:
		return nil
	case present:
		return fmt.Errorf("%s has a [features] table without hooks = true, so a repository's .codex/config.toml can switch off every Codex hook, hookctl's managed one included: add hooks = true to that table and run this again", path)
	}
	out := append([]byte(nil), text...)
	if len(out) > 0 && out[len(out)-1] != '\n' {
		out = append(out, '\n')
	}
	if len(out) > 0 {
		out = append(out, '\n')
	}
	out = append(out, codexHooksOn...)
	if _, on, err := codexFeatures(out); err != nil || on == nil || !*on {
		return fmt.Errorf("%s: adding %q would not parse as hooks on; nothing changed", path, codexHooksOn)
	}
	if dryRun {
		fmt.Fprintf(s.out, "would pin Codex's hooks on in %s:\n%s", path, lineDiff(string(text), string(out)))
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	if err := fsutil.WriteAtomic(path, out, mode); err != nil {
		return fmt.Errorf("failed to write %s: %w", path, err)
	}
	fmt.Fprintf(s.out, "pinned Codex's hooks on in %s (a repository's .codex/config.toml could otherwise switch them off)\n", path)
	return nil
}

// codexHooksOffIn says whether the Codex config file at path switches hooks off.
func codexHooksOffIn(path string) bool {
	b, err := fsutil.ReadFile(path, 1<<20, false)
	if err != nil {
		return false
	}
	_, hooks, err := codexFeatures(b)
	return err == nil && hooks != nil && !*hooks
}

// doctorCodexPin says whether the machine's requirements keep Codex's hooks on.
func doctorCodexPin(d *doctor) {
	text, _, existed, err := readSettingsFile(codexRequirements)
	if err != nil {
		d.problem("fix or remove the file", "%v", err)
		return
	}
	if _, on, err := codexFeatures(text); existed && err == nil && on != nil && *on {
		d.ok("%s keeps Codex's hooks on: no repository can switch them off", codexRequirements)
		return
	}
	d.problem("sudo hookctl install --agent codex --scope managed", "%s does not say [features] hooks = true: a repository's .codex/config.toml can switch off every Codex hook, hookctl's managed one included", codexRequirements)
}
