//go:build linux && (amd64 || arm64)

package sandbox

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"unsafe"

	"github.com/hookctl/hookctl/internal/landlock"
	"github.com/hookctl/hookctl/internal/seccomp"
)

// Supported says whether this build has a sandbox for this platform; the probe says whether the
// machine lets it apply.
const Supported = true

func sortRules(rules []seccomp.Rule) {
	// By index: moving the rules themselves, a hundred structures of pointers, cost a launch
	// more than assembling them.
	order := make([]int, len(rules))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		return cmp.Or(cmp.Compare(rules[a].Nr, rules[b].Nr), cmp.Compare(rules[a].Name, rules[b].Name))
	})
	sorted := make([]seccomp.Rule, len(rules))
	for i, j := range order {
		sorted[i] = rules[j]
	}
	copy(rules, sorted)
}

// ready says whether the kernel has what Apply needs, before the probe tries it for real.
func ready() error {
	_, err := landlock.ABI()
	return err
}

// Mechanisms says what the Linux sandbox is built from on this machine: the kernel's release and
// its Landlock ABI, or why it has none.
func Mechanisms() (kernel string, landlockABI int, err error) {
	landlockABI, err = landlock.ABI()
	return kernelRelease(), landlockABI, err
}

// describe names the mechanisms, for the probe's report.
func describe() string {
	abi, err := landlock.ABI()
	if err != nil {
		return "read-only mounts and masks"
	}
	return fmt.Sprintf("landlock ABI %d", abi)
}

func execSandboxed(p *Profile, path string, argv, env []string) error {
	a, err := Apply(p)
	if err != nil {
		return errNotApplied(err)
	}
	if p.StatusFD > 0 {
		report(p.StatusFD, LaunchReport{Applied: &a})
	}
	err = syscall.Exec(path, argv, env)
	return fmt.Errorf("failed to run %s in the sandbox: %v", argv[0], err)
}

// Apply restricts the calling thread to p. The caller has locked the thread
// (runtime.LockOSThread) and execs from it next: every restriction is per thread and inherited
// across execve and by every child, and the other threads die with the exec. Any error means
// the sandbox is not in force, and the caller must not run the command.
func Apply(p *Profile) (Applied, error) {
	var a Applied
	if _, err := landlock.ABI(); err != nil {
		return a, err
	}
	var rules []landlock.Rule
	var err error
	filter, denyNet := readOnlyRules, uint64(landlock.NetBindTCP|landlock.NetConnectTCP)
	if p.Readable != nil {
		if abi, _ := landlock.ABI(); abi < SecureMinABI {
			return a, fmt.Errorf("the %s profile needs Landlock ABI %d or later (signals scoped to the sandbox); this kernel has ABI %d", SecureReadOnlyName, SecureMinABI, abi)
		}
		if rules, err = secureLandlockRules(p); err != nil {
			return a, err
		}
		if len(p.ConnectPorts) > 0 {
			if err := ownNetwork(); err != nil {
				return a, err
			}
			filter = modelOnlyRules
		}
	} else if p.landlockOnly {
		if rules, err = landlockOnlyRules(p); err != nil {
			return a, err
		}
		filter = func() []seccomp.Rule { return landlockOnlyFilter(p) }
		if p.Network {
			denyNet = 0 // the user gave edit mode the whole network
		}
	} else if p.Edit {
		return a, errors.New("the edit profile runs only under the sandbox's init (ServeInit)")
	} else if rules, err = landlockRules(p); err != nil {
		return a, err
	} else if p.Network {
		if p.Proxy == "" {
			return a, errors.New("the publish profile needs a network namespace of its own, bridged to the egress proxy")
		}
		filter, denyNet = publishRules, landlock.NetBindTCP
	}
	abi, _ := landlock.ABI()
	prog, err := seccomp.Assemble(filterArch, append(filter(), oldABIRules(abi)...))
	if err != nil {
		return a, err
	}
	if err := closeOnExec(); err != nil {
		return a, err
	}
	caps, err := dropCapabilities()
	if err != nil {
		return a, err
	}
	a.Caps, a.BoundingKept = caps.had, !caps.bounded
	a.LandlockABI, err = landlock.Restrict(landlock.Ruleset{
		Rules:      rules,
		DenyNet:    denyNet,
		ConnectTCP: p.ConnectPorts,
		Scope:      landlock.ScopeAbstractUnixSocket | landlock.ScopeSignal,
	})
	if err != nil {
		return a, err
	}
	if err := seccomp.Install(prog); err != nil {
		return a, err
	}
	a.Seccomp = true
	return a, nil
}

// landlockRules grants read and execute on the whole tree but Hidden, write on Scratch and
// WriteFiles.
//
// Landlock grants hierarchies and cannot carve a hidden directory out of a granted one, so the
// tree is granted piece by piece: every entry of / is granted whole, except one that holds a
// hidden directory, whose entries are granted the same way, down to the hidden directory,
// which is skipped. Those ancestors themselves get ReadDir, so ls / and ls ~ work (and list
// the hidden directory's names, not its contents). An entry that is a symbolic link is granted
// as what it resolves to, and not at all if that is a hidden directory or holds one.
func landlockRules(p *Profile) ([]landlock.Rule, error) {
	if p.masked {
		// The mounts hide them (maskOps): one rule reads the whole tree.
		rules := []landlock.Rule{{Path: "/", Access: readExec}}
		rules = append(rules, p.scratchRules()...)
		return append(rules, writeFileRules(p.WriteFiles)...), nil
	}
	rules, _, err := grantAllBut(p)
	if err != nil {
		return nil, err
	}
	rules = append(rules, p.scratchRules()...)
	return append(rules, writeFileRules(p.WriteFiles)...), nil
}

// grantAllBut grants reading and executing the whole tree but p's hidden directories, which
// it returns resolved; it fails where hiding them would hide what runs.
func grantAllBut(p *Profile) (rules []landlock.Rule, hidden []string, err error) {
	hidden = resolvedHidden(p.Hidden)
	if err := hidesWhatRuns(p.Hidden, hidden); err != nil {
		return nil, nil, err
	}
	rules, err = grantTree(nil, "/", hidden)
	return rules, hidden, err
}

// scratchRules grants the scratch directory: by its descriptor when it was opened once, which
// no change to its path since can redirect.
func (p *Profile) scratchRules() []landlock.Rule {
	switch {
	case p.ScratchDir != nil:
		return []landlock.Rule{{Path: p.Scratch, FD: int(p.ScratchDir.Fd()), Access: readExec | landlock.Write}}
	case p.Scratch != "":
		return []landlock.Rule{{Path: p.Scratch, Access: readExec | landlock.Write}}
	}
	return nil
}

const readExec = landlock.Read | landlock.Execute

// resolvedHidden are the hidden paths that exist, as their real paths and, for a link, the link
// itself.
func resolvedHidden(paths []string) []string {
	hidden := make([]string, 0, len(paths))
	for _, h := range paths {
		// A hidden directory that does not exist is left out: nothing inside the sandbox can
		// create it, and walking its ancestors costs a rule per entry (docs/decisions/0005).
		// Most do not: one lstat says so, where resolving walks every component.
		var st syscall.Stat_t
		if err := syscall.Lstat(h, &st); err == syscall.ENOENT || err == syscall.ENOTDIR {
			continue
		}
		if r, err := filepath.EvalSymlinks(h); err == nil {
			hidden = append(hidden, r)
			if r != h {
				hidden = append(hidden, h) // the link itself
			}
		}
	}
	return hidden
}

// hidesWhatRuns refuses a hidden path that resolves to / or to a directory holding the working
// directory: a link planted at a credential path (`ln -s / ~/.cargo/credentials.toml`, from
// edit mode) would otherwise hide everything, and the command fail for no reason it could
// tell. The command does not run, and the user is told which link. (The scratch directory is
// beneath hookctl's hidden home by design: its rule grants it by descriptor.)
func hidesWhatRuns(paths, hidden []string) error {
	cwd, _ := os.Getwd()
	for _, h := range hidden {
		if h == "/" || cwd != "" && within(cwd, h) {
			link := h
			for _, p := range paths {
				if r, err := filepath.EvalSymlinks(p); err == nil && r == h && r != p {
					link = p
				}
			}
			return fmt.Errorf("%s, which the sandbox hides (it is a credential store or hookctl's own), resolves to %s, "+
				"which holds what the command needs; remove that link", link, h)
		}
	}
	return nil
}

// grantTree appends rules granting read and execute on root but hidden (see landlockRules).
func grantTree(rules []landlock.Rule, root string, hidden []string) ([]landlock.Rule, error) {
	var walk func(dir string) error
	walk = func(dir string) error {
		rules = append(rules, landlock.Rule{Path: dir, Access: landlock.ReadDir})
		entries, err := os.ReadDir(dir)
		if err != nil {
			return fmt.Errorf("failed to list %s for the sandbox: %v", dir, err)
		}
		for _, e := range entries {
			path := filepath.Join(dir, e.Name())
			real := path
			if e.Type()&os.ModeSymlink != 0 {
				if real, err = filepath.EvalSymlinks(path); err != nil {
					continue // dangling: nothing to read
				}
			}
			switch {
			case slices.ContainsFunc(hidden, func(h string) bool { return within(real, h) }):
				// hidden, or inside a hidden directory (a link into one)
			case slices.ContainsFunc(hidden, func(h string) bool { return within(h, real) }):
				if real == path {
					if err := walk(path); err != nil {
						return err
					}
				} // a link to an ancestor: its real path is walked on its own
			default:
				rules = append(rules, landlock.Rule{Path: real, Access: readExec})
			}
		}
		return nil
	}
	if !slices.ContainsFunc(hidden, func(h string) bool { return within(h, root) }) {
		return append(rules, landlock.Rule{Path: root, Access: readExec}), nil
	}
	if slices.ContainsFunc(hidden, func(h string) bool { return within(root, h) }) {
		return rules, nil // the root itself is hidden
	}
	return rules, walk(root)
}

func writeFileRules(files []string) []landlock.Rule {
	var rules []landlock.Rule
	for _, f := range files {
		rules = append(rules, landlock.Rule{Path: f, Access: landlock.Read | landlock.WriteFile | landlock.Truncate | landlock.IoctlDev})
	}
	return rules
}

// secureLandlockRules grants read and execute beneath Readable but Hidden, and read, execute and
// write beneath Writable and on WriteFiles; nothing else. A readable root that resolves beneath
// a hidden path grants nothing; one that does not exist is skipped (the system's layouts differ;
// the caller checks its own roots exist).
func secureLandlockRules(p *Profile) ([]landlock.Rule, error) {
	hidden := resolvedHidden(p.Hidden)
	var rules []landlock.Rule
	for _, root := range p.Readable {
		real, err := filepath.EvalSymlinks(root)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("failed to resolve %s for the sandbox: %v", root, err)
		}
		if fi, err := os.Stat(real); err != nil || !fi.IsDir() {
			if !slices.ContainsFunc(hidden, func(h string) bool { return within(real, h) }) {
				rules = append(rules, landlock.Rule{Path: real, Access: readExec})
			}
			continue
		}
		if rules, err = grantTree(rules, real, hidden); err != nil {
			return nil, err
		}
	}
	for _, w := range p.Writable {
		rules = append(rules, landlock.Rule{Path: w, Access: readExec | landlock.Write})
	}
	return append(rules, writeFileRules(p.WriteFiles)...), nil
}

// editLandlockRules grants read and execute everywhere (Hidden is masked by privateMounts),
// and write on Writable, the scratch directory and WriteFiles.
func editLandlockRules(p *Profile) []landlock.Rule {
	rules := []landlock.Rule{{Path: "/", Access: readExec}}
	for _, w := range p.Writable {
		rules = append(rules, landlock.Rule{Path: w, Access: readExec | landlock.Write})
	}
	rules = append(rules, p.scratchRules()...)
	return append(rules, writeFileRules(p.WriteFiles)...)
}

// privateMounts sets up the sandbox init's mount namespace (ServeInit has checked that it is
// its own: ownInit), in this order: mounts private (nothing mounted here reaches the user's);
// Create's directories (the project's .claude) made where missing, empty, so that they cannot
// be made inside with settings in them; Anchors bound onto themselves (a mount point cannot be
// renamed or removed, so nothing frozen inside the project or its git directory can be moved
// away and replaced by a copy); Frozen paths read-only bind mounts of themselves; Hidden
// directories an empty, unreadable tmpfs; a procfs of the sandbox's own pid namespace on /proc
// (the command sees its own processes only, and the supervisor's /proc/PID is the caller's);
// a devpts of its own on /dev/pts (other terminals cannot be opened, read or written; where
// one cannot be mounted /dev/pts is hidden instead). Then the working directory is entered
// again by its path, through the new mounts: the one inherited holds the tree beneath the
// anchors as it was.
//
// It returns the frozen paths as directory entries (a missing one included) that no
// supervised call may make (supervisor.forbid), and the frozen directories, by file, for the
// supervisor to say why a write beneath one was refused (supervisor.frozen).
func privateMounts(p *Profile) (map[entryKey]string, map[fileKey]string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return nil, nil, fmt.Errorf("failed to read the working directory: %v", err)
	}
	if err := syscall.Mount("", "/", "", syscall.MS_REC|syscall.MS_PRIVATE, ""); err != nil {
		return nil, nil, fmt.Errorf("failed to make the mounts private: %v", err)
	}
	for _, a := range p.Anchors {
		real, err := filepath.EvalSymlinks(a)
		if err != nil {
			continue
		}
		if err := syscall.Mount(real, real, "", syscall.MS_BIND|syscall.MS_REC, ""); err != nil {
			return nil, nil, fmt.Errorf("failed to anchor %s: %v", real, err)
		}
	}
	if err := layer(p); err != nil {
		return nil, nil, err
	}
	forbid, frozen := map[entryKey]string{}, map[fileKey]string{}
	for _, f := range p.Frozen {
		var st syscall.Stat_t
		if syscall.Stat(filepath.Dir(f), &st) == nil {
			forbid[entryKey{uint64(st.Dev), st.Ino, filepath.Base(f)}] = p.frozenWhy(f)
		}
		real, err := filepath.EvalSymlinks(f)
		if errors.Is(err, os.ErrNotExist) && slices.Contains(p.Create, f) {
			if err = os.Mkdir(f, 0o755); err == nil {
				real = f
			}
		}
		if err != nil {
			continue // missing: nothing to mount, and the supervisor refuses making it
		}
		if real != f && syscall.Stat(filepath.Dir(real), &st) == nil {
			forbid[entryKey{uint64(st.Dev), st.Ino, filepath.Base(real)}] = p.frozenWhy(f)
		}
		if err := syscall.Mount(real, real, "", syscall.MS_BIND|syscall.MS_REC, ""); err != nil {
			return nil, nil, fmt.Errorf("failed to freeze %s: %v", real, err)
		}
		if err := syscall.Mount("", real, "", syscall.MS_BIND|syscall.MS_REMOUNT|syscall.MS_RDONLY|syscall.MS_NOSUID|syscall.MS_NODEV, ""); err != nil {
			return nil, nil, fmt.Errorf("failed to make %s read-only: %v", real, err)
		}
		if syscall.Stat(real, &st) == nil && st.Mode&syscall.S_IFMT == syscall.S_IFDIR {
			frozen[fileKey{uint64(st.Dev), st.Ino}] = p.frozenWhy(f)
		}
	}
	for _, h := range p.Hidden {
		real, err := filepath.EvalSymlinks(h)
		if err != nil {
			continue
		}
		if err := hide(real); err != nil {
			return nil, nil, fmt.Errorf("failed to hide %s: %v", real, err)
		}
	}
	if err := syscall.Mount("proc", "/proc", "proc", syscall.MS_NOSUID|syscall.MS_NODEV|syscall.MS_NOEXEC, ""); err != nil {
		return nil, nil, fmt.Errorf("failed to mount the sandbox's own /proc: %v", err)
	}
	if err := syscall.Mount("devpts", "/dev/pts", "devpts", syscall.MS_NOSUID|syscall.MS_NOEXEC, "newinstance,ptmxmode=0666,mode=0620"); err == nil {
		syscall.Mount("/dev/pts/ptmx", "/dev/ptmx", "", syscall.MS_BIND, "")
	} else {
		if err := hide("/dev/pts"); err != nil {
			return nil, nil, fmt.Errorf("failed to hide the other terminals: %v", err)
		}
	}
	if err := os.Chdir(wd); err != nil {
		return nil, nil, fmt.Errorf("failed to enter %s again: %v", wd, err)
	}
	return forbid, frozen, nil
}

// layer mounts an overlay on each of p.Layered (SetLayers chose them): the directory itself
// beneath, and an upper directory of the session's own, beneath p.Layers, that takes every
// change; or, while another command of the session holds them (claimLayers), one that ends
// with this command.
func layer(p *Profile) error {
	if len(p.Layered) == 0 {
		return nil
	}
	userxattr := os.Geteuid() != 0 || ownNamespaces()
	held, err := claimLayers(p.Layers)
	if err != nil {
		return err
	}
	for _, real := range p.Layered {
		upper, work := layerDirs(p.Layers, real)
		for _, dir := range []string{upper, work} {
			if err := os.MkdirAll(dir, 0o700); err != nil {
				return fmt.Errorf("failed to make edit mode's layer for %s: %v", real, err)
			}
		}
		opts := "lowerdir=" + real + ",upperdir=" + upper + ",workdir=" + work
		if userxattr {
			opts += ",userxattr"
		}
		if err := syscall.Mount("overlay", real, "overlay", syscall.MS_NOSUID|syscall.MS_NODEV, opts); err != nil {
			if held {
				return fmt.Errorf("failed to layer %s on a layer of this command's own (the session's is not this command's): %v", real, err)
			}
			return fmt.Errorf("failed to layer %s: %v", real, err)
		}
	}
	return nil
}

// layersSource names the tmpfs that stands in for a session's layers its other command holds.
const layersSource = "hookctl-layers"

// claimLayers takes the session's layers, beneath layers, for this command, and says whether
// another command of the session held them. Two overlays on one upper or work directory are
// undefined behaviour (the kernel warns, and where overlay's index is on refuses the second:
// EBUSY), and a session runs commands at once (a subagent's beside the main agent's). So the
// init holds a lock on the directory for its life, which is its namespace's (the commands it
// runs have ended when it exits); a command that finds it held mounts an empty tmpfs on the
// directory, in its own mount namespace, and writes the caches through layers there, which
// end with it: it sees the user's directories as they are, without what the session's other
// commands put in their layer, and what it writes there is gone after it.
func claimLayers(layers string) (held bool, err error) {
	if err := os.MkdirAll(layers, 0o700); err != nil {
		return false, fmt.Errorf("failed to make edit mode's layers: %v", err)
	}
	fd, err := syscall.Open(layers, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return false, fmt.Errorf("failed to open edit mode's layers: %v", err)
	}
	lockErr := syscall.Flock(fd, syscall.LOCK_EX|syscall.LOCK_NB)
	if lockErr == nil {
		return false, nil // the descriptor stays open, and the lock held, until the init exits
	}
	syscall.Close(fd)
	// Held (EWOULDBLOCK), or a filesystem that cannot say (ENOLCK on NFS without its lock
	// service): layers of this command's own either way.
	why := "another command of this session holds its layers"
	if lockErr != syscall.EWOULDBLOCK {
		why = "the session's layers could not be locked (" + lockErr.Error() + ")"
	}
	if err := syscall.Mount(layersSource, layers, "tmpfs", syscall.MS_NOSUID|syscall.MS_NODEV, "mode=0700"); err != nil {
		return true, fmt.Errorf("%s, and failed to make this command's own: %v", why, err)
	}
	return true, nil
}

// hide mounts an empty, unreadable, read-only tmpfs on dir.
func hide(dir string) error {
	return syscall.Mount(hiddenSource, dir, "tmpfs", syscall.MS_RDONLY|syscall.MS_NOSUID|syscall.MS_NODEV|syscall.MS_NOEXEC, "mode=000,size=4k")
}

// closeOnExec marks every descriptor above stderr close-on-exec, so that nothing the caller
// had open (a socket, a lock, a directory) reaches the sandboxed command.
func closeOnExec() error {
	const sysCloseRange, closeRangeCloexec = 436, 4
	if _, _, e := syscall.RawSyscall(sysCloseRange, 3, ^uintptr(0)>>32, closeRangeCloexec); e == 0 {
		return nil
	}
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return fmt.Errorf("failed to list open descriptors: %v", err)
	}
	for _, e := range entries {
		var fd int
		if _, err := fmt.Sscan(e.Name(), &fd); err == nil && fd > 2 {
			syscall.CloseOnExec(fd)
		}
	}
	return nil
}

// Capabilities, for a process that has some (root): the bounding set is emptied, so that no
// exec can grant any back (not even root's file-capability emulation), then the ambient,
// effective, permitted and inheritable sets. Emptying the bounding set takes CAP_SETPCAP; root
// without it (a container that dropped every capability: docker run --cap-drop ALL, a pod
// that drops ALL, bubblewrap) keeps its bounding set, and no_new_privs, which Landlock and
// seccomp set before the exec, keeps the exec from gaining any of it (execve intersects a
// no_new_privs process's new permitted set with its old one, emptied here).
const (
	prCapbsetRead      = 23
	prCapbsetDrop      = 24
	prCapAmbient       = 47
	prCapAmbientClrAll = 4
	linuxCapVersion3   = 0x20080522
	capLastCapAssumed  = 63
	capSetpcap         = 8
	capSysAdmin        = 21
)

type capHeader struct {
	version uint32
	pid     int32
}

type capData struct{ effective, permitted, inheritable uint32 }

// capsDropped is what dropCapabilities did: whether there were capabilities to drop, and
// whether the bounding set is empty now (false where it could not be emptied).
type capsDropped struct{ had, bounded bool }

func dropCapabilities() (capsDropped, error) {
	var d capsDropped
	hdr := capHeader{version: linuxCapVersion3}
	var data [2]capData
	if _, _, e := syscall.RawSyscall(syscall.SYS_CAPGET, uintptr(unsafe.Pointer(&hdr)), uintptr(unsafe.Pointer(&data[0])), 0); e != 0 {
		return d, fmt.Errorf("failed to read capabilities: %v", e)
	}
	d.had = data[0] != (capData{}) || data[1] != (capData{})
	if !d.had && os.Geteuid() != 0 {
		// Nothing to drop, and no exec can grant any under no_new_privs.
		return d, nil
	}
	canDrop := data[capSetpcap/32].effective&(1<<(capSetpcap%32)) != 0
	d.bounded = true
	for c := 0; c <= capLastCapAssumed; c++ {
		in, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, prCapbsetRead, uintptr(c), 0)
		if e == syscall.EINVAL {
			break // past the kernel's last capability
		}
		if e == 0 && in == 0 {
			continue // gone already (a launcher nested in a sandbox that dropped it)
		}
		if !canDrop {
			d.bounded = false
			break
		}
		if _, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, prCapbsetDrop, uintptr(c), 0); e != 0 {
			return d, fmt.Errorf("failed to drop capability %d from the bounding set: %v", c, e)
		}
	}
	if _, _, e := syscall.RawSyscall6(syscall.SYS_PRCTL, prCapAmbient, prCapAmbientClrAll, 0, 0, 0, 0); e != 0 && e != syscall.EINVAL {
		return d, fmt.Errorf("failed to clear ambient capabilities: %v", e)
	}
	data = [2]capData{}
	hdr = capHeader{version: linuxCapVersion3}
	if _, _, e := syscall.RawSyscall(syscall.SYS_CAPSET, uintptr(unsafe.Pointer(&hdr)), uintptr(unsafe.Pointer(&data[0])), 0); e != 0 {
		return d, fmt.Errorf("failed to drop capabilities: %v", e)
	}
	return d, nil
}

// ownNamespaces says whether this process is in a user namespace other than the initial one
// (whose uid_map maps all 2^32 ids): only there can the flag that says so be true, and only a
// mount namespace that such a user namespace owns accepts its mounts (the user's own refuses
// them), so the mounts cannot reach the user's.
func ownNamespaces() bool {
	b, err := os.ReadFile("/proc/self/uid_map")
	f := strings.Fields(string(b))
	return err == nil && !(len(f) == 3 && f[0] == "0" && f[1] == "0" && f[2] == "4294967295")
}
