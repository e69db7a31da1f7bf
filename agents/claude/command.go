package claude

import (
	"bytes"
	"fmt"
	"path/filepath"

	"github.com/hookctl/hookctl/internal/fsutil"
)

// ReadonlyCommandRel is where install puts the /readonly command, under the user's home. A
// user-level command is what the hook trusts (command_source "userSettings"); a project's
// command or skill of the same name is refused.
const ReadonlyCommandRel = ".claude/commands/readonly.md"

// ReadonlyCommand is the command file. disable-model-invocation keeps the model from running it
// through the Skill tool, and keeps a /readonly prompt the model scheduled from being expanded:
// only a /readonly the user types reaches the hook's UserPromptExpansion. The body is never
// seen by the model: the hook blocks the expanded prompt.
var ReadonlyCommand = []byte(`---
description: Switch this session between read-only, edit and review mode (hookctl)
argument-hint: "[on|off|review|status]"
disable-model-invocation: true
---
hookctl handles /readonly before the model sees it; if you are reading this, the hookctl hook is not running.
Arguments: $ARGUMENTS
`)

// readonlyCommandBefore are the command files earlier releases installed, which differ only in
// what the client shows: they still toggle (an upgrade must not lock the user in read-only mode
// until they reinstall), install updates them and uninstall removes them.
var readonlyCommandBefore = [][]byte{[]byte(`---
description: Switch this session between read-only and edit mode (hookctl)
argument-hint: "[on|off]"
disable-model-invocation: true
---
hookctl handles /readonly before the model sees it; if you are reading this, the hookctl hook is not running.
Arguments: $ARGUMENTS
`)}

// ReadonlyCommandIs says whether b is a /readonly command hookctl installed (ours) and whether it
// is this release's (current).
func ReadonlyCommandIs(b []byte) (ours, current bool) {
	if bytes.Equal(b, ReadonlyCommand) {
		return true, true
	}
	for _, old := range readonlyCommandBefore {
		if bytes.Equal(b, old) {
			return true, false
		}
	}
	return false, false
}

// ReadonlyCommandPath returns the command file's path for the user whose home is home.
func ReadonlyCommandPath(home string) string { return filepath.Join(home, ReadonlyCommandRel) }

// ManagedReadonlyCommandPath is where `hookctl install --scope managed` puts the command: the
// organisation's managed directory, beside managed-settings.json, whose commands Claude Code
// offers every user of the machine (command_source "policySettings"; 2.1.328, live). Root's own
// home, where a managed install used to put it, serves root alone.
func ManagedReadonlyCommandPath() string {
	settings, _ := SettingsPath("managed", "", "")
	return filepath.Join(filepath.Dir(settings), ReadonlyCommandRel)
}

// ReadonlyCommandPathFor is the command file install writes for scope: the managed one with the
// managed settings, the user's with every other scope's.
func ReadonlyCommandPathFor(scope, home string) string {
	if scope == "managed" {
		return ManagedReadonlyCommandPath()
	}
	return ReadonlyCommandPath(home)
}

// CheckReadonlyCommand confirms the user's command file is hookctl's, unchanged.
func CheckReadonlyCommand(home string) error {
	return checkReadonlyCommandAt(ReadonlyCommandPath(home))
}

// CheckReadonlyCommandFrom confirms the command file a toggle came from (its command_source, one
// of TrustedCommandSources) is hookctl's, unchanged: the organisation's for policySettings, the
// user's otherwise.
// Its error says who restores the file, and how.
func CheckReadonlyCommandFrom(source, home string) error {
	if source == "policySettings" {
		if err := checkReadonlyCommandAt(ManagedReadonlyCommandPath()); err != nil {
			return fmt.Errorf("%w (your organisation's: its administrator restores it with sudo hookctl install --scope managed)", err)
		}
		return nil
	}
	if err := CheckReadonlyCommand(home); err != nil {
		return fmt.Errorf("%w (run hookctl install to restore it)", err)
	}
	return nil
}

func checkReadonlyCommandAt(p string) error {
	b, err := fsutil.ReadFile(p, 64<<10, false)
	if err != nil {
		return fmt.Errorf("the /readonly command %s cannot be read: %v", p, err)
	}
	if ours, _ := ReadonlyCommandIs(b); !ours {
		return fmt.Errorf("the /readonly command %s is not the one hookctl installed", p)
	}
	return nil
}
