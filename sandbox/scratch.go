package sandbox

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// StaleAfter is how long a session's scratch directory outlives its last sandboxed command.
const StaleAfter = 24 * time.Hour

// scratchRootName is the directory in hookctl's home that holds the sessions' scratch
// directories. hookctl's home is hidden from every profile and writable by none, so nothing a
// sandboxed command can do reaches the directories that hold what it may write: a root in the
// temporary directory, which edit mode may write, let a process left behind swap a session's
// directory for a link to the home between two commands (issue 22), and failed for any user
// whose TMPDIR another user had made private (issue 30).
const scratchRootName = "scratch"

// layersSuffix names, beside a session's scratch directory, what edit mode keeps for the
// session (EditLayers).
const layersSuffix = ".edit"

// ScratchRoot is the directory that holds the sessions' scratch directories.
func ScratchRoot(home string) string { return filepath.Join(home, scratchRootName) }

// Scratch is a session's scratch directory, opened once: Dir is what the sandbox grants (a
// Landlock rule by descriptor), Path only what TMPDIR names inside the sandbox. The launcher
// never resolves Path again.
type Scratch struct {
	Path string
	Dir  *os.File
	// Idle: the directory was just made, or no command of the session had used it for a while
	// (sweepEvery): the time to Sweep the others, which a launch need not pay every time.
	Idle bool
}

// sweepEvery is how often, at most, a session's commands sweep the scratch root.
const sweepEvery = time.Hour

// Close closes the directory.
func (s *Scratch) Close() error { return s.Dir.Close() }

// OpenScratch makes (if needed) and opens session's private scratch directory beneath
// ScratchRoot(home), by descriptor: each directory is made and opened relative to the one
// above it, never following a link, and checked to be this user's and closed to everyone else.
// Its age says when the session last ran a command (Sweep).
func OpenScratch(home, session string) (*Scratch, error) {
	if err := os.MkdirAll(home, 0o700); err != nil {
		return nil, fmt.Errorf("failed to create hookctl's directory: %v", err)
	}
	name := scratchName(session)
	dir, made, err := openScratch(home, name)
	if err != nil {
		return nil, err
	}
	now := time.Now()
	idle := made
	if fi, err := dir.Stat(); err == nil && now.Sub(fi.ModTime()) > sweepEvery {
		idle = true
	}
	touch(dir, now)
	return &Scratch{Path: filepath.Join(ScratchRoot(home), name), Dir: dir, Idle: idle}, nil
}

// ownedPrivate checks that st, the file at what, is a directory owned by this user and closed
// to everyone else.
func ownedPrivate(what string, st *syscall.Stat_t) error {
	switch {
	case st.Mode&syscall.S_IFMT != syscall.S_IFDIR:
		return fmt.Errorf("%s is not a directory (it must be hookctl's own); remove it", what)
	case int(st.Uid) != os.Getuid():
		return fmt.Errorf("%s belongs to another user; remove it", what)
	case st.Mode&0o077 != 0:
		return fmt.Errorf("%s is open to other users (mode %o); remove it", what, st.Mode&0o777)
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

// RemoveScratch removes session's scratch directory and what edit mode kept for it (Layers).
// os.RemoveAll removes links, never what they point to.
func RemoveScratch(home, session string) {
	name := scratchName(session)
	os.RemoveAll(filepath.Join(ScratchRoot(home), name))
	os.RemoveAll(filepath.Join(ScratchRoot(home), name+layersSuffix))
}

// Sweep removes what beneath ScratchRoot(home) no command has used for StaleAfter; keep (a
// directory's path) is spared whatever its age. Errors are ignored: a directory left behind is
// tried again next time.
func Sweep(home, keep string) {
	root := ScratchRoot(home)
	entries, err := os.ReadDir(root)
	if err != nil {
		return
	}
	cutoff := time.Now().Add(-StaleAfter)
	for _, e := range entries {
		path := filepath.Join(root, e.Name())
		if path == keep || !e.IsDir() {
			continue
		}
		if fi, err := e.Info(); err == nil && fi.ModTime().Before(cutoff) {
			os.RemoveAll(path)
		}
	}
}

// OpenDir opens dir, a directory that is not a link, as a Scratch (the probe's own).
func OpenDir(dir string) (*Scratch, error) {
	f, err := os.OpenFile(dir, os.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return nil, fmt.Errorf("failed to open the scratch directory: %v", err)
	}
	return &Scratch{Path: filepath.Clean(dir), Dir: f}, nil
}
