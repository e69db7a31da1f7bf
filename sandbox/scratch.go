package sandbox

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// StaleAfter is how long a session's scratch directory outlives its last sandboxed command.
const StaleAfter = 24 * time.Hour

// ScratchBase is the directory that holds the sessions' scratch directories: one per user, in
// the system's temporary directory.
func ScratchBase() string {
	return filepath.Join(os.TempDir(), fmt.Sprintf("hookctl-sandbox-%d", os.Getuid()))
}

// Scratch returns session's private scratch directory beneath base, creating it (and base) if
// needed, and marks it used. base must be a directory of this user's, a real one (not a link)
// that no one else can enter: in a shared /tmp anyone could have made it first.
func Scratch(base, session string) (string, error) {
	if err := os.Mkdir(base, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
		return "", fmt.Errorf("failed to create the sandbox's scratch directory: %v", err)
	}
	if err := ownedPrivateDir(base); err != nil {
		return "", err
	}
	dir := filepath.Join(base, scratchName(session))
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
		return "", fmt.Errorf("failed to create the session's scratch directory: %v", err)
	}
	if err := ownedPrivateDir(dir); err != nil {
		return "", err
	}
	now := time.Now()
	os.Chtimes(dir, now, now) // its age says when the session last ran a command
	return dir, nil
}

// ownedPrivateDir checks that dir is a directory, not a link, owned by this user and closed to
// everyone else.
func ownedPrivateDir(dir string) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("failed to check the scratch directory: %v", err)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	switch {
	case !fi.IsDir():
		return fmt.Errorf("%s is not a directory (it must be hookctl's own); remove it", dir)
	case !ok || int(st.Uid) != os.Getuid():
		return fmt.Errorf("%s belongs to another user; remove it", dir)
	case fi.Mode().Perm()&0o077 != 0:
		return fmt.Errorf("%s is open to other users (mode %v); remove it", dir, fi.Mode().Perm())
	}
	return nil
}

// scratchName is a file name for session: the id itself when it is plain (Claude Code's are
// UUIDs), otherwise a digest of it.
func scratchName(session string) string {
	plain := session != "" && len(session) <= 64 && session[0] != '.'
	for i := 0; i < len(session) && plain; i++ {
		c := session[i]
		plain = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.'
	}
	if plain {
		return session
	}
	sum := sha256.Sum256([]byte(session))
	return "session-" + hex.EncodeToString(sum[:12])
}

// RemoveScratch removes session's scratch directory, if it is a directory of this user's
// beneath base (not a link to one elsewhere).
func RemoveScratch(base, session string) {
	if ownedPrivateDir(base) != nil {
		return
	}
	dir := filepath.Join(base, scratchName(session))
	if ownedPrivateDir(dir) == nil {
		os.RemoveAll(dir)
	}
}

// Sweep removes the scratch directories beneath base that no command has used for StaleAfter;
// keep is spared whatever its age. Errors are ignored: a directory left behind is tried again
// next time.
func Sweep(base, keep string) {
	entries, err := os.ReadDir(base)
	if err != nil {
		return
	}
	cutoff := time.Now().Add(-StaleAfter)
	for _, e := range entries {
		path := filepath.Join(base, e.Name())
		if path == keep || !e.IsDir() {
			continue
		}
		if fi, err := e.Info(); err == nil && fi.ModTime().Before(cutoff) {
			os.RemoveAll(path)
		}
	}
}
