package claude

import _ "embed"

// UninstallScript is uninstall.sh, which install writes into hookctl's home: the way out when
// the hookctl binary is gone and its hooks, failing closed, refuse every prompt and tool call
// (the refusal, Wrapper's, names it). It needs only POSIX sh and awk, and makes the edit
// Uninstall makes, byte for byte (uninstallsh_test.go holds it to that).
//
//go:embed uninstall.sh
var UninstallScript []byte

// UninstallScriptName is the script's name in hookctl's home, where Wrapper looks for it.
const UninstallScriptName = "uninstall.sh"

// LinkedBinary is where, under hookctl's home, install links the hookctl binary it installed:
// what Wrapper runs, and what a personal registration's direct hooks name.
const LinkedBinary = "bin/hookctl"
