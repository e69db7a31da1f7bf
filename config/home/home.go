// Package home is where hookctl's directory for config and state is: the one rule every
// hookctl executable follows, apart from package config, whose TOML decoder the read-only
// launcher does not link (its initialisation alone was part of every admitted command's start).
package home

import (
	"fmt"
	"os"
	"path/filepath"
)

// Dir returns hookctl's directory for config and state: $HOOKCTL_HOME, else
// $XDG_CONFIG_HOME/hookctl, else ~/.config/hookctl.
func Dir() (string, error) {
	if h := os.Getenv("HOOKCTL_HOME"); h != "" {
		return h, nil
	}
	if x := os.Getenv("XDG_CONFIG_HOME"); x != "" && filepath.IsAbs(x) {
		return filepath.Join(x, "hookctl"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("failed to find the home directory: %w", err)
	}
	return filepath.Join(home, ".config", "hookctl"), nil
}
