package policy

import (
	"github.com/hookctl/hookctl/internal/secrets"
	"github.com/hookctl/hookctl/programs"
)

// Target is a file tool's target path as the kernel will reach it.
type Target struct {
	Path string // as written, cleaned lexically
	// Resolved is where a write lands: `..` taken after the link before it, symbolic links
	// followed in every component that exists (the last one too, dangling or not, since
	// open(O_CREAT) follows it), and the rest lexically.
	Resolved string
	// LinkOf is the protected file this target is another hard link to (same device and inode).
	LinkOf string
	// FoldsCase says the target's directory looks names up without regard to case.
	FoldsCase bool
	// Holds says what credential a read target holds by its content (a token line in an
	// .npmrc, a password or an extraheader in a git configuration: secrets.ContentCredential),
	// and Raw that it is a block device (a disk, which holds every file); reads only.
	Holds string
	Raw   bool
	// Err says why the target could not be resolved; the policy refuses such a write.
	Err string
}

// Resolution is a file tool's targets and the protected set as the kernel reaches them.
type Resolution struct {
	Targets []Target
	// Protected are the protected paths with their links resolved, where that differs from
	// how they are listed (~/.claude → dotfiles/claude makes dotfiles/claude/settings.json
	// the settings).
	Protected []string
}

// WalkRequest is one walk to judge.
type WalkRequest struct {
	programs.Walk
	// Roots are the starting points made absolute.
	Roots []string
	Home  string
	// Excluded: the rewrite runs, so the secret names (secrets.ExcludeGlobs, ExcludeDirs) are
	// skipped by the program.
	Excluded bool
	// Sandboxed: the read-only sandbox hides the credential stores (secrets.HomePaths), so a walk
	// that reaches one by its path reads nothing there; a link or a hard link still can.
	Sandboxed bool
}

// WalkHit is what a walk would read that it must not, or why it could not be judged.
type WalkHit struct {
	Path, What, Via string
	Class           secrets.Class
	Err             string
}

// AutoRunPath is a file or directory that runs code later, outside any sandbox, when the user
// next runs a tool in the project or opens it: git's hooks and config, direnv's .envrc, an
// editor's tasks. Edit mode keeps each read-only (the sandbox freezes it, and refuses making
// it where it does not exist yet; the guard refuses a file tool's write to it), unless the
// user's edit_auto_run_writable lets edit mode write it.
type AutoRunPath struct {
	Path string // absolute
	What string // what runs it, for the refusal
	Key  string // the edit_auto_run_writable entry that would let edit mode write it
}

// AutoRunKey is the config key that lets edit mode write an auto-run path.
const AutoRunKey = "edit_auto_run_writable"

// Refusal says why edit mode may not write a, and how the user widens it.
func (a AutoRunPath) Refusal() string {
	return a.Path + " runs code outside the sandbox later (" + a.What + "), so edit mode keeps it read-only; " +
		"the user can let edit mode write it with " + AutoRunKey + ` = ["` + a.Key + `"] in hookctl's config`
}
