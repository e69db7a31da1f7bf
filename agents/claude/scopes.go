package claude

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"runtime"

	"github.com/hookctl/hookctl/internal/fsutil"
)

// Scopes are install's scopes, in the order Claude Code's settings files are listed.
var Scopes = []string{"user", "project", "local", "managed"}

// SettingsPath returns the settings file of one of Scopes.
func SettingsPath(scope, userHome, cwd string) (string, error) {
	switch scope {
	case "user":
		return filepath.Join(userHome, ".claude", "settings.json"), nil
	case "project":
		return filepath.Join(cwd, ".claude", "settings.json"), nil
	case "local":
		return filepath.Join(cwd, ".claude", "settings.local.json"), nil
	case "managed":
		if runtime.GOOS == "darwin" {
			return "/Library/Application Support/ClaudeCode/managed-settings.json", nil
		}
		return "/etc/claude-code/managed-settings.json", nil
	}
	return "", fmt.Errorf("unknown scope %q: use user, project, local or managed", scope)
}

// scopeForm is how a scope's file names hookctl: a project's committed file names no one's
// path; managed settings, the administrator's binary; a user's own files, the link in their
// hookctl home.
func scopeForm(scope string) Form {
	switch scope {
	case "project":
		return FormShared
	case "managed":
		return FormPinned
	}
	return FormPersonal
}

// ScopeRegistration is what install writes in a scope's file: binary, the installed
// executable, in managed settings; linked, the link to it in hookctl's home, in a user's own
// files; no one's path in a project's committed file.
func ScopeRegistration(scope, binary, linked string) Registration {
	r := Registration{Form: scopeForm(scope), StatusLine: true}
	switch r.Form {
	case FormShared:
		r.StatusLine = false // the status line stays each user's own
	case FormPinned:
		r.Binary = binary
	default:
		r.Binary = linked
	}
	return r
}

// RegisteredElsewhere names a settings file other than except, among those Claude Code reads
// for a session in cwd, that still registers hookctl (as binary), or "". A file it cannot read
// counts as registering: keeping the command is the safe side (only the toggle needs it).
func RegisteredElsewhere(userHome, cwd, except, binary string) string {
	for _, scope := range []string{"user", "project", "managed"} {
		p, err := SettingsPath(scope, userHome, cwd)
		if err != nil {
			continue
		}
		paths := []string{p}
		if scope == "project" {
			paths = append(paths, filepath.Join(cwd, ".claude", "settings.local.json"))
		}
		for _, p := range paths {
			if real, err := filepath.EvalSymlinks(p); err == nil {
				p = real
			}
			if p == except {
				continue
			}
			text, err := fsutil.ReadFile(p, 8<<20, false)
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err != nil {
				return p
			}
			if in, err := Inspect(text, binary); err != nil || len(in.Hooks) > 0 {
				return p
			}
		}
	}
	return ""
}

// ReadonlyCommandChange says what install or uninstall does to the command file: "write" (it
// is missing), "update" (an earlier release's is there), "replace" (someone else's file is
// there), "remove" (uninstall, and it is ours), or "" (nothing).
func ReadonlyCommandChange(path string, remove bool) string {
	b, err := fsutil.ReadFile(path, 1<<20, false)
	ours, current := ReadonlyCommandIs(b)
	ours, current = ours && err == nil, current && err == nil
	switch {
	case remove && ours:
		return "remove"
	case remove, current:
		return ""
	case ours:
		return "update"
	case errors.Is(err, fs.ErrNotExist):
		return "write"
	}
	return "replace"
}
