package sandbox

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"

	"github.com/hookctl/hookctl/internal/secrets"
)

// Exec applies p to this process and replaces it with argv, run with env (see Environ). It
// returns only on failure, and then nothing has run: a sandbox that cannot be applied is never
// replaced by running the command without one.
func Exec(p *Profile, argv, env []string) error {
	path, err := lookCommand(argv)
	if err != nil {
		return err
	}
	// Every restriction binds the thread that applies it; the exec must come from that one,
	// and the thread must never go back to running other goroutines' work.
	runtime.LockOSThread()
	return execSandboxed(p, path, argv, p.Environ(env))
}

// lookCommand is the executable argv runs, as the shell would find it on PATH.
func lookCommand(argv []string) (string, error) {
	if len(argv) == 0 {
		return "", fmt.Errorf("no command to run")
	}
	path, err := exec.LookPath(argv[0])
	if err != nil {
		return "", fmt.Errorf("cannot run %s: %v", argv[0], err)
	}
	return path, nil
}

// Applied says what held once Apply returned.
type Applied struct {
	LandlockABI int  `json:"landlock_abi"`
	Seccomp     bool `json:"seccomp"`
	Caps        bool `json:"capabilities_dropped"` // false: there were none to drop
	// BoundingKept: the capability bounding set could not be emptied (root without
	// CAP_SETPCAP); no_new_privs keeps the exec from regaining any capability from it.
	BoundingKept bool `json:"bounding_set_kept,omitempty"`
}

// Isolation describes a for the audit: "landlock ABI 7, seccomp".
func (a Applied) Isolation() string {
	s := fmt.Sprintf("landlock ABI %d, seccomp", a.LandlockABI)
	if a.BoundingKept {
		s += "; capability bounding set kept (no CAP_SETPCAP; no_new_privs keeps any exec from regaining one)"
	}
	return s
}

// LaunchReport is what the launcher says on Profile.StatusFD: what it applied, just before the
// exec, or why nothing ran. A reader that sees the descriptor close after Applied knows the
// command started under it.
type LaunchReport struct {
	Applied *Applied `json:"applied,omitempty"`
	Error   string   `json:"error,omitempty"`
	// From a run's init (ServeRunInit): the command's status, the processes it left running
	// when it ended (killed then), and those still running when the grace after an interruption
	// was over (killed then).
	Status   *ExitStatus `json:"status,omitempty"`
	Leftover *int        `json:"leftover,omitempty"`
	Killed   *int        `json:"killed,omitempty"`
}

// ExitStatus is how a command ended: its exit code, or the signal that killed it.
type ExitStatus struct {
	Code   int `json:"code"`
	Signal int `json:"signal,omitempty"`
}

// ReportFailure tells the caller on fd that the command did not run, and why.
func ReportFailure(fd int, err error) { report(fd, LaunchReport{Error: err.Error()}) }

func report(fd int, r LaunchReport) {
	b, _ := json.Marshal(r)
	syscall.Write(fd, append(b, '\n'))
}

// errNotApplied wraps the reason a sandbox could not be applied.
func errNotApplied(err error) error {
	return fmt.Errorf("the sandbox could not be applied, so the command did not run: %w", err)
}

// HiddenDirs are the directories the read-only profile hides: hookctl's home as this process
// sees it, and the default one (a command's environment may name another).
func HiddenDirs(home string) []string {
	if abs, err := filepath.Abs(home); err == nil {
		home = abs // a relative HOOKCTL_HOME is hidden too
	}
	dirs := []string{home}
	if h, err := os.UserHomeDir(); err == nil {
		dirs = append(dirs, h+"/.config/hookctl")
	}
	return dirs
}

// Namespaces are what RunIsolated's child gets of its own.
type Namespaces struct {
	// User: a user namespace mapping this user to itself, in which an unprivileged launcher
	// has the capabilities to mount (and to bring loopback up).
	User bool
	// Net: a network namespace whose only interface is loopback; the child hands a listener on
	// it back to the parent (BridgeNetwork), through which the egress proxy serves it.
	Net bool
}

// InitLaunch is what RunInit starts.
type InitLaunch struct {
	// Argv is hookctl's launcher again, as the init (its --init flag); argv[0] is only a name.
	Argv []string
	NS   Namespaces
	// OnConnect serves the egress bridge (RunIsolated); nil without a network namespace.
	OnConnect func(listener *os.File) (stop func())
	// Started is told the init's pid before anything runs; an error ends it, and nothing runs.
	// Ended is told when the init has ended with the command, nothing left running.
	Started func(pid int) error
	Ended   func(pid int)
}

// InitConfig is the sandbox's init: the profile it applies (to itself, and so to everything
// it starts), the command it starts under the filter (startCommand), the command's
// environment, and the unix sockets outside the sandbox the command may connect to.
type InitConfig struct {
	Profile *Profile
	Argv    []string // the command
	Env     []string
	Sockets []string
	// Bridge: the init is in a network namespace of its own, and hands the egress proxy's
	// listener to the launcher on its descriptor 4.
	Bridge bool
}

// ReadOnlyHidden is what the read-only profile hides: HiddenDirs, and the user's credential
// stores and the system's password files (secrets.HomePaths: ~/.ssh's private files,
// ~/.aws/credentials, ~/.gnupg, …), as defence in depth behind the sensitive-file rule, for a
// read the rule cannot see (a name a program builds, a walk of the home). Read-only commands
// have no network, so nothing they may run needs a credential. The edit profile hides only
// HiddenDirs: git push, gh and cloud tools in edit mode use these files. A store absent now is
// left out, as resolvedHidden leaves out every absent path.
func ReadOnlyHidden(home string) []string {
	h, _ := os.UserHomeDir()
	return append(HiddenDirs(home), standing(h, secrets.HomePaths(h))...)
}

// maxListed bounds the names standing reads of a directory; past it, it looks at no fewer paths.
const maxListed = 512

// standing is paths without those beneath dir whose first name beneath it is not in dir now, as
// one listing of dir says: most of the seventy credential stores are absent from a given home,
// and an lstat of each was most of the launch's look at them. Paths elsewhere are kept, and all
// of them where dir cannot be listed or holds more than maxListed names.
func standing(dir string, paths []string) []string {
	if dir == "" {
		return paths
	}
	dir = filepath.Clean(dir)
	f, err := os.Open(dir)
	if err != nil {
		return paths
	}
	names, err := f.Readdirnames(maxListed + 1)
	f.Close()
	if err != nil && err != io.EOF || len(names) > maxListed {
		return paths
	}
	slices.Sort(names)
	kept := make([]string, 0, len(paths))
	for _, p := range paths {
		rel, beneath := strings.CutPrefix(p, dir+"/")
		first, _, _ := strings.Cut(rel, "/")
		if _, found := slices.BinarySearch(names, first); found || !beneath {
			kept = append(kept, p)
		}
	}
	return kept
}
