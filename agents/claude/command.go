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

// Command sources (UserPromptExpansion's command_source) whose /readonly is a trusted toggle.
const (
	UserCommandSource    = "userSettings"   // the user's own command, hookctl install's
	ManagedCommandSource = "policySettings" // the organisation's, hookctl install --scope managed's
)

// readonlyCommandSources are the places a trusted /readonly comes from, each with where its
// file lies and who restores it when it was changed. A slice, not a map: the compiler lays it
// out, and every hook process starts without building it (internal/buildcheck).
var readonlyCommandSources = []struct {
	source  string
	path    func(home string) string
	restore string
}{
	{UserCommandSource, ReadonlyCommandPath, "run hookctl install to restore it"},
	{ManagedCommandSource, func(string) string { return ManagedReadonlyCommandPath() }, "your organisation's: its administrator restores it with sudo hookctl install --scope managed"},
}

// commandSource finds source among readonlyCommandSources.
func commandSource(source string) (path func(string) string, restore string, ok bool) {
	for _, s := range readonlyCommandSources {
		if s.source == source {
			return s.path, s.restore, true
		}
	}
	return nil, "", false
}

// TrustedCommandSource says whether a /readonly from source is a toggle that counts: the user's
// command directory or the organisation's managed one, which only root writes. Both files
// declare disable-model-invocation, so the model can neither run the command through the Skill
// tool nor have a /readonly it scheduled expanded, and no agent may write either place
// (SettingsPaths).
func TrustedCommandSource(source string) bool {
	_, _, ok := commandSource(source)
	return ok
}

// CheckReadonlyCommandFrom confirms the command file a toggle came from (its command_source) is
// hookctl's, unchanged; its error says who restores the file, and how.
func CheckReadonlyCommandFrom(source, home string) error {
	path, restore, ok := commandSource(source)
	if !ok {
		return fmt.Errorf("a /readonly from %q is not hookctl's", source)
	}
	if err := checkReadonlyCommandAt(path(home)); err != nil {
		return fmt.Errorf("%w (%s)", err, restore)
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
