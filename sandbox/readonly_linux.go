//go:build linux && (amd64 || arm64)

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"unsafe"

	"github.com/hookctl/hookctl/internal/landlock"
	"github.com/hookctl/hookctl/internal/seccomp"
)

// RunReadOnly runs argv under p (the read-only profile) as a child bounded by b, and returns its
// exit status: in process and mount namespaces of its own (and a user namespace where the
// launcher is not root) with a /proc of its namespace and the hidden paths masked with mounts
// (maskOps), where the kernel allows; else with Landlock alone hiding the paths, in a process
// group of its own. The child is not Go started again: it makes the list of system calls
// worked out here and execs the command (forkChild), so a launch costs one Go start.
//
// Where the kernel has no Landlock, read-only mounts stand in for it (treeOps), which need the
// namespaces, the /proc and the masks: there is no lower level then.
//
// It fails, and nothing has run, when the sandbox cannot be applied.
func RunReadOnly(p *Profile, argv, env []string, b Bound) (int, error) {
	exe, err := readOnlyExec(p, argv, env)
	if err != nil {
		return 0, err
	}
	level := levelMasks
	if !b.Isolate {
		if exe.noLandlock != nil {
			return 0, exe.noTree(errNoNamespaces)
		}
		level = levelGroup
	}
	for {
		pid, at, failed, err := launchAt(p, exe, level)
		if err != nil {
			return 0, err
		}
		level = at
		if failed == nil {
			return waitLaunched(pid, level > levelGroup, b)
		}
		wait4(pid)
		switch {
		case exe.noLandlock != nil && failed.stage != stageApply:
			return 0, exe.noTree(failed.err)
		case failed.stage == stageMasks && level == levelMasks:
			level = levelProc // where the masks cannot be mounted, Landlock hides the paths
		case failed.stage == stageMounts && level > levelNoMounts:
			level = levelNoMounts // the machine's /proc, which Landlock keeps other processes' secrets in
		default:
			return 0, errNotApplied(failed.err)
		}
	}
}

// The launch's levels, tried from the first down as each fails: namespaces with the masks and a
// /proc of their own, with the /proc only, with no mounts, and none (a process group).
const (
	levelGroup = iota
	levelNoMounts
	levelProc
	levelMasks
)

type execArgs struct {
	path      string
	argv, env []string
	filter    []seccomp.Instruction
	// noLandlock, where the kernel has none, says why: the read-only mounts hold the writes
	// (treeOps), or with policyOnly nothing does.
	noLandlock error
	// policyOnly: the policy-only launch (RunPolicyOnly), in a process namespace only.
	policyOnly bool
}

// noTree is the error of a launch without Landlock whose read-only mounts could not apply.
func (e *execArgs) noTree(why error) error {
	if errors.Is(why, errNoNamespaces) {
		return errNotApplied(fmt.Errorf("%v, and no mount namespace of its own here for the read-only mounts that stand in for it (the kernel refuses the namespaces)", e.noLandlock))
	}
	return errNotApplied(fmt.Errorf("%v, and the read-only mounts that stand in for it failed: %v", e.noLandlock, why))
}

// launchFailure is a child's failure: the stage of the op that failed, and why.
type launchFailure struct {
	stage uint8
	err   error
	exec  bool // the execve itself failed: the sandbox held, the command could not run
}

// launchAt forks the child at level and returns its pid once it has exec'd the command, or the
// failure it reported (the caller reaps it), and the level it got to. Where the kernel refuses
// the namespaces it falls back to a process group.
func launchAt(p *Profile, exe *execArgs, level int) (int, int, *launchFailure, error) {
	userNS := os.Geteuid() != 0
	parentMaps := false
	for {
		plan, err := planLaunch(p, exe, level, userNS, parentMaps)
		if err != nil {
			if exe.noLandlock != nil && !exe.policyOnly {
				return 0, level, nil, exe.noTree(err)
			}
			if level == levelMasks {
				level = levelProc // what maskOps cannot mask, Landlock hides
				continue
			}
			return 0, level, nil, errNotApplied(err)
		}
		pid, failed, err := plan.start(parentMaps)
		plan.close()
		if errors.Is(err, errChildCannotMap) && !parentMaps {
			parentMaps = true
			continue
		}
		if errors.Is(err, errNoNamespaces) && level > levelGroup {
			if exe.noLandlock != nil && !exe.policyOnly {
				return 0, level, nil, exe.noTree(err)
			}
			level = levelGroup
			continue
		}
		return pid, level, failed, err
	}
}

var errNoNamespaces = errors.New("the kernel refused the namespaces")

// errChildCannotMap: the child could not write its user namespace's mappings, where the
// launcher still may (Ubuntu's AppArmor leaves a process no capability in a user namespace it
// creates, and the launcher is its owner from outside).
var errChildCannotMap = errors.New("the child could not map its user namespace")

// childPlan is a child's list of ops with everything they point at, kept reachable until the
// fork has happened.
type childPlan struct {
	ops     []childOp
	flags   uintptr
	keep    []any
	ruleset int
	fds     []int    // the launcher's descriptors the ops name (treeOps), closed after the fork
	names   []string // what each op does, for the error a failure reports
}

func (c *childPlan) str(s string) uintptr {
	b := append([]byte(s), 0)
	c.keep = append(c.keep, b)
	return uintptr(unsafe.Pointer(&b[0]))
}

func (c *childPlan) add(stage uint8, what string, nr uintptr, args ...uintptr) *childOp {
	op := childOp{nr: nr, stage: stage}
	copy(op.args[:], args)
	c.ops = append(c.ops, op)
	c.names = append(c.names, what)
	return &c.ops[len(c.ops)-1]
}

func (c *childPlan) close() {
	if c.ruleset >= 0 {
		syscall.Close(c.ruleset)
	}
	for _, fd := range c.fds {
		syscall.Close(fd)
	}
}

const (
	atCwd             = ^uintptr(99) // AT_FDCWD (-100) as a system call argument
	prSetPdeathsig    = 1
	prSetNoNewPrivs   = 38
	prSetSeccomp      = 22
	seccompModeFilter = 2
	maskFlags         = syscall.MS_NOSUID | syscall.MS_NODEV | syscall.MS_NOEXEC
	maskTmpfsOptions  = "mode=0711,size=64k,nr_inodes=4096"
)

// pathBeneath is struct landlock_path_beneath_attr, packed as the kernel's.
type pathBeneath struct {
	access   uint64
	parentFD int32
}

// landlockABI is the kernel's Landlock ABI (RunReadOnly has checked there is one).
func landlockABI() int {
	abi, _ := landlock.ABI()
	return abi
}

// openHow is struct open_how, for openat2(2) (Linux 5.6, before any Landlock).
type openHow struct {
	flags, mode, resolve uint64
}

const (
	sysOpenat2        = 437 // the same number on amd64 and arm64
	resolveNoSymlinks = 0x04
)

type sockFprog struct {
	len    uint16
	filter *seccomp.Instruction
}

// planLaunch works out the child's ops at level: without Landlock, the read-only mounts
// instead of its ruleset (treeOps), or for the policy-only launch neither. In a user namespace
// the child maps its IDs itself, or with parentMaps waits for the launcher to (childPlan.start).
func planLaunch(p *Profile, exe *execArgs, level int, userNS, parentMaps bool) (*childPlan, error) {
	c := &childPlan{ruleset: -1}
	c.add(stageApply, "set the parent-death signal", syscall.SYS_PRCTL, prSetPdeathsig, uintptr(syscall.SIGKILL))
	if level > levelGroup {
		c.flags = syscall.CLONE_NEWPID | syscall.CLONE_NEWNS
		if exe.policyOnly {
			c.flags = syscall.CLONE_NEWPID // its /proc stays the machine's: nothing to mount
		}
		if userNS {
			c.flags |= syscall.CLONE_NEWUSER
			if !parentMaps {
				idMapOps(c)
			}
		}
	} else {
		c.add(stageApply, "start a process group", syscall.SYS_SETPGID, 0, 0)
	}
	q := *p
	q.masked = false
	if level >= levelProc {
		c.add(stageMounts, "make the mounts private", syscall.SYS_MOUNT, c.str(""), c.str("/"), 0, syscall.MS_REC|syscall.MS_PRIVATE, 0)
		c.add(stageMounts, "mount a /proc of its own", syscall.SYS_MOUNT, c.str("proc"), c.str("/proc"), c.str("proc"), maskFlags, 0)
	}
	if level == levelMasks {
		scratchMounted, err := maskOps(c, p)
		if err != nil {
			return nil, err
		}
		q.masked = true
		if exe.noLandlock != nil {
			if err := treeOps(c, p, scratchMounted); err != nil {
				c.close()
				return nil, err
			}
		}
	}
	if exe.noLandlock == nil && !exe.policyOnly {
		if err := landlockOps(c, &q, level); err != nil {
			c.close()
			return nil, err
		}
	}
	if err := capOps(c, level > levelGroup && userNS); err != nil {
		c.close()
		return nil, err
	}
	fprog := &sockFprog{len: uint16(len(exe.filter)), filter: &exe.filter[0]}
	c.keep = append(c.keep, fprog, exe.filter)
	c.add(stageApply, "set no_new_privs", syscall.SYS_PRCTL, prSetNoNewPrivs, 1, 0, 0, 0)
	if c.ruleset >= 0 {
		c.add(stageApply, "apply the Landlock ruleset", landlock.SysRestrictSelf, uintptr(c.ruleset), 0)
	}
	c.add(stageApply, "install the seccomp filter", syscall.SYS_PRCTL, prSetSeccomp, seccompModeFilter, uintptr(unsafe.Pointer(fprog)))
	argv, envv := c.strv(exe.argv), c.strv(exe.env)
	c.add(stageApply, "run "+exe.argv[0], syscall.SYS_EXECVE, c.str(exe.path), argv, envv)
	return c, nil
}

// landlockOps prepare q's Landlock ruleset for the child to apply (planLaunch adds the
// landlock_restrict_self), and at levelProc grant the /proc the child mounts.
func landlockOps(c *childPlan, q *Profile, level int) error {
	rules, err := landlockRules(q)
	if err != nil {
		return err
	}
	var procRule *pathBeneath
	if level == levelProc {
		// Landlock alone hides the paths, and grants the tree piece by piece: /proc among the
		// pieces is the launcher's, not the one the child mounts. The child grants its own.
		rules = slices.DeleteFunc(rules, func(r landlock.Rule) bool { return within(r.Path, "/proc") })
		procRule = &pathBeneath{access: readExec & landlock.HandledFS(landlockABI())}
		c.keep = append(c.keep, procRule)
	}
	ruleset, _, err := landlock.Prepare(landlock.Ruleset{Rules: rules, DenyNet: landlock.NetBindTCP | landlock.NetConnectTCP,
		Scope: landlock.ScopeAbstractUnixSocket | landlock.ScopeSignal})
	if err != nil {
		return err
	}
	c.ruleset = ruleset
	if procRule != nil {
		how := &openHow{flags: oPath | syscall.O_DIRECTORY | syscall.O_CLOEXEC, resolve: resolveNoSymlinks}
		c.keep = append(c.keep, how)
		c.add(stageMounts, "open its /proc", sysOpenat2, atCwd, c.str("/proc"), uintptr(unsafe.Pointer(how)), unsafe.Sizeof(*how)).save = true
		c.add(stageMounts, "grant its /proc", landlock.SysAddRule, uintptr(ruleset), landlock.RulePathBeneath, uintptr(unsafe.Pointer(procRule)), 0).patch = &procRule.parentFD
	}
	return nil
}

// strv is a NULL-terminated array of C strings.
func (c *childPlan) strv(ss []string) uintptr {
	v := make([]uintptr, len(ss)+1)
	for i, s := range ss {
		v[i] = c.str(s)
	}
	c.keep = append(c.keep, v)
	return uintptr(unsafe.Pointer(&v[0]))
}

// capOps drops every capability: the bounding set's (where the child may: root with
// CAP_SETPCAP, or any user in a user namespace of its own), the ambient ones, and the
// permitted, effective and inheritable sets. An unprivileged launcher without a user namespace
// has none to drop, and under no_new_privs no exec grants one.
func capOps(c *childPlan, ownUserNS bool) error {
	hdr := &capHeader{version: linuxCapVersion3}
	var data [2]capData
	if _, _, e := syscall.RawSyscall(syscall.SYS_CAPGET, uintptr(unsafe.Pointer(hdr)), uintptr(unsafe.Pointer(&data[0])), 0); e != 0 {
		return fmt.Errorf("failed to read capabilities: %v", e)
	}
	had := data[0] != (capData{}) || data[1] != (capData{})
	if !had && !ownUserNS && os.Geteuid() != 0 {
		return nil
	}
	if ownUserNS || data[capSetpcap/32].effective&(1<<(capSetpcap%32)) != 0 {
		for cp := 0; cp <= capLastCapAssumed; cp++ {
			in, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, prCapbsetRead, uintptr(cp), 0)
			if e == syscall.EINVAL {
				break // past the kernel's last capability
			}
			// A new user namespace starts with the full bounding set, whatever the
			// launcher's own lacks.
			if e == 0 && (in == 1 || ownUserNS) {
				c.add(stageApply, "drop capability "+strconv.Itoa(cp)+" from the bounding set", syscall.SYS_PRCTL, prCapbsetDrop, uintptr(cp))
			}
		}
	}
	c.add(stageApply, "clear the ambient capabilities", syscall.SYS_PRCTL, prCapAmbient, prCapAmbientClrAll, 0, 0, 0).allow = syscall.EINVAL
	zero := &[2]capData{}
	hdr = &capHeader{version: linuxCapVersion3}
	c.keep = append(c.keep, zero, hdr)
	c.add(stageApply, "drop capabilities", syscall.SYS_CAPSET, uintptr(unsafe.Pointer(hdr)), uintptr(unsafe.Pointer(&zero[0])))
	return nil
}

// maskOps hide p's hidden paths with mounts, as ops of the child's, in its mount namespace (and
// say whether they gave the scratch directory a mount of its own): one small tmpfs over the hidden directory
// that holds the scratch directory (hookctl's home), read-only, holding an empty unreadable
// entry for each of its names (ls lists them, as under Landlock), an empty unreadable directory
// and file bound over every other hidden directory and file, and the path down to the scratch
// directory, whose mount is bound there again (the other sessions' are not). Landlock then
// grants reading the whole tree (landlockRules): the launch costs the same whatever the
// directories around the hidden paths hold, where hiding them with Landlock alone means a rule
// for every entry of every directory above them (5,179 with a home among 5,000 others).
//
// A mount follows the directory it covers: a hidden directory renamed from outside keeps its
// mask, and one replaced loses its contents with it.
func maskOps(c *childPlan, p *Profile) (scratchMounted bool, err error) {
	hidden := resolvedHidden(p.Hidden)
	if err := hidesWhatRuns(p.Hidden, hidden); err != nil {
		return false, err
	}
	slices.Sort(hidden)
	hidden = slices.Compact(hidden)
	type target struct {
		path string
		dir  bool
	}
	var targets []target
	for _, h := range hidden {
		if slices.ContainsFunc(hidden, func(o string) bool { return o != h && within(h, o) }) {
			continue // masked with the hidden directory that holds it
		}
		var st syscall.Stat_t
		if syscall.Lstat(h, &st) != nil || st.Mode&syscall.S_IFMT == syscall.S_IFLNK {
			continue // a link: what it resolves to is in the list
		}
		targets = append(targets, target{h, st.Mode&syscall.S_IFMT == syscall.S_IFDIR})
	}
	scratch := ""
	if p.ScratchDir != nil {
		var err error
		if scratch, err = os.Readlink("/proc/self/fd/" + strconv.Itoa(int(p.ScratchDir.Fd()))); err != nil {
			return false, err
		}
	}
	top := slices.IndexFunc(targets, func(t target) bool { return t.dir && scratch != "" && within(scratch, t.path) })
	if top < 0 {
		top = slices.IndexFunc(targets, func(t target) bool { return t.dir })
	}
	if top < 0 {
		return false, errors.New("no hidden directory to hold the masks")
	}
	t := targets[top].path
	tree := scratch != "" && within(scratch, t) && scratch != t
	if tree {
		// A copy of the scratch directory's mount, taken before the mask covers its path. The
		// launcher's descriptor is of a mount in its own namespace, which the child's may not
		// copy: the child opens the directory again in its own, by the path the descriptor
		// has, through no symbolic link. (Landlock grants writing by the launcher's
		// descriptor: a directory put in its place meanwhile would be read-only.)
		how := &openHow{flags: oPath | syscall.O_DIRECTORY | syscall.O_CLOEXEC, resolve: resolveNoSymlinks}
		c.keep = append(c.keep, how)
		c.add(stageMasks, "open the scratch directory", sysOpenat2, atCwd, c.str(scratch), uintptr(unsafe.Pointer(how)), unsafe.Sizeof(*how)).save = true
		op := c.add(stageMasks, "copy the scratch directory's mount", sysOpenTree, 0, c.str(""), openTreeClone|syscall.O_CLOEXEC|atEmptyPath)
		op.fromSaved, op.save = true, true
	}
	// Its names stay listed, as Landlock leaves them (ls of hookctl's home works; what the
	// entries hold does not): an empty unreadable entry of each name.
	names, err := os.ReadDir(t)
	if err != nil {
		return false, err
	}
	c.add(stageMasks, "mask "+t, syscall.SYS_MOUNT, c.str(maskSource), c.str(t), c.str("tmpfs"), maskFlags, c.str(maskTmpfsOptions))
	dir, file := filepath.Join(t, ".hookctl-masked-dir"), filepath.Join(t, ".hookctl-masked-file")
	mkdir := func(path string, mode uintptr) {
		c.add(stageMasks, "make "+path, syscall.SYS_MKDIRAT, atCwd, c.str(path), mode)
	}
	mkfile := func(path string) {
		c.add(stageMasks, "make "+path, syscall.SYS_MKNODAT, atCwd, c.str(path), syscall.S_IFREG, 0)
	}
	mkdir(dir, 0)
	mkfile(file)
	first := ""
	if tree {
		first, _, _ = strings.Cut(strings.TrimPrefix(scratch, t+"/"), "/")
	}
	for _, e := range names {
		name := filepath.Join(t, e.Name())
		switch {
		case e.Name() == first || name == dir || name == file:
		case e.IsDir():
			mkdir(name, 0)
		default:
			mkfile(name)
		}
	}
	chmod := func(path string, mode uintptr) {
		c.add(stageMasks, "make "+path+" read-only", syscall.SYS_FCHMODAT, atCwd, c.str(path), mode, 0)
	}
	if tree {
		at, way := t, []string{}
		rel, _ := filepath.Rel(t, scratch)
		for _, e := range strings.Split(rel, "/") {
			at = filepath.Join(at, e)
			mkdir(at, 0o700)
			way = append(way, at)
		}
		c.add(stageMasks, "bind the scratch directory at "+at, sysMoveMount, 0, c.str(""), atCwd, c.str(at), moveMountFEmptyPath).fromSaved = true
		for _, d := range way[:len(way)-1] { // the last is the scratch directory's mount now
			chmod(d, 0o555)
		}
	}
	// Listable, holding nothing readable, once made (the launcher made it as its owner, maybe without
	// CAP_DAC_OVERRIDE: an unprivileged user's namespace).
	chmod(t, 0o555)
	c.add(stageMasks, "make the mask read-only", syscall.SYS_MOUNT, c.str(""), c.str(t), 0, syscall.MS_REMOUNT|syscall.MS_RDONLY|maskFlags, c.str(""))
	for i, h := range targets {
		if i == top {
			continue
		}
		src := file
		if h.dir {
			src = dir
		}
		c.add(stageMasks, "mask "+h.path, syscall.SYS_MOUNT, c.str(src), c.str(h.path), 0, syscall.MS_BIND, 0)
	}
	return tree, nil
}

// start forks the child, and returns once it has exec'd the command or failed. The child shares
// the launcher's memory (forkChild), unless parentMaps: then it is a copy, which waits until the
// launcher has written its user namespace's mappings (startMapped).
func (c *childPlan) start(parentMaps bool) (int, *launchFailure, error) {
	if parentMaps {
		return c.startMapped()
	}
	var report [2]int
	if err := syscall.Pipe2(report[:], syscall.O_CLOEXEC|syscall.O_NONBLOCK); err != nil {
		return 0, nil, errNotApplied(err)
	}
	defer syscall.Close(report[0])
	syscall.ForkLock.Lock()
	pid, e := forkChild(c.ops, c.flags, report[1], true)
	syscall.ForkLock.Unlock()
	runtime.KeepAlive(c)
	syscall.Close(report[1])
	if e != 0 {
		return 0, nil, c.forkFailed(e)
	}
	// The child has exec'd or exited (forkChild): a failure is in the pipe already, and an
	// empty pipe is an exec, whose closing of the pipe is not waited for.
	var f childFailure
	buf := (*[unsafe.Sizeof(f)]byte)(unsafe.Pointer(&f))[:]
	n, err := syscall.Read(report[0], buf)
	switch {
	case err == syscall.EAGAIN || err == nil && n == 0:
		return int(pid), nil, nil
	case err != nil || n != len(buf):
		syscall.Kill(int(pid), syscall.SIGKILL)
		wait4(int(pid))
		return 0, nil, errNotApplied(fmt.Errorf("failed to hear from the command's launch: %v (%d bytes)", err, n))
	}
	failed := c.failure(c.ops, c.names, f)
	if failed.stage == stageUserNS {
		wait4(int(pid))
		return 0, nil, fmt.Errorf("%w: %v", errChildCannotMap, failed.err)
	}
	return int(pid), failed, nil
}

// forkFailed is the error of a fork that failed with e: the namespaces' refusal, where it asked
// for some, which the launch falls back from.
func (c *childPlan) forkFailed(e syscall.Errno) error {
	if c.flags != 0 && (e == syscall.EPERM || e == syscall.EINVAL || e == syscall.ENOSPC || e == syscall.EUSERS || e == syscall.EACCES) {
		return fmt.Errorf("%w: %v", errNoNamespaces, e)
	}
	return errNotApplied(fmt.Errorf("failed to start the command: %v", e))
}

// failure is what the child's report f says of ops (named by names) failed.
func (c *childPlan) failure(ops []childOp, names []string, f childFailure) *launchFailure {
	i := int(f.op)
	if i < 0 || i >= len(ops) {
		return &launchFailure{stage: stageApply, err: fmt.Errorf("the launch failed: %v", syscall.Errno(f.errno))}
	}
	return &launchFailure{stage: ops[i].stage, err: fmt.Errorf("failed to %s: %v", names[i], syscall.Errno(f.errno)), exec: i == len(ops)-1}
}

// startMapped forks the child as a copy of the launcher, which waits until the launcher has
// mapped the user and group to themselves in its new user namespace, where the child could not
// itself (errChildCannotMap). The launch is slower by the copy of the address space and the
// launcher's writes.
func (c *childPlan) startMapped() (int, *launchFailure, error) {
	var report, sync [2]int
	if err := syscall.Pipe2(report[:], syscall.O_CLOEXEC); err != nil {
		return 0, nil, errNotApplied(err)
	}
	defer syscall.Close(report[0])
	if err := syscall.Pipe2(sync[:], syscall.O_CLOEXEC); err != nil {
		syscall.Close(report[1])
		return 0, nil, errNotApplied(err)
	}
	defer syscall.Close(sync[0])
	var b [1]byte
	c.keep = append(c.keep, &b)
	wait := []childOp{
		{nr: syscall.SYS_CLOSE, args: [6]uintptr{uintptr(sync[1])}, stage: stageApply},
		{nr: syscall.SYS_READ, args: [6]uintptr{uintptr(sync[0]), uintptr(unsafe.Pointer(&b[0])), 1}, want: 2, stage: stageApply},
	}
	ops := append(c.ops[:1:1], append(wait, c.ops[1:]...)...)
	names := append(c.names[:1:1], append([]string{"wait for its user namespace", "wait for its user namespace"}, c.names[1:]...)...)
	syscall.ForkLock.Lock()
	pid, e := forkChild(ops, c.flags, report[1], false)
	syscall.ForkLock.Unlock()
	runtime.KeepAlive(c)
	runtime.KeepAlive(ops)
	syscall.Close(report[1])
	if e != 0 {
		syscall.Close(sync[1])
		return 0, nil, c.forkFailed(e)
	}
	err := mapIDs(int(pid))
	if err == nil {
		_, err = syscall.Write(sync[1], []byte{1})
	}
	syscall.Close(sync[1])
	if err != nil {
		syscall.Kill(int(pid), syscall.SIGKILL)
		wait4(int(pid))
		return 0, nil, fmt.Errorf("%w: %v", errNoNamespaces, err)
	}
	var f childFailure
	buf := (*[unsafe.Sizeof(f)]byte)(unsafe.Pointer(&f))[:]
	n, err := readFull(report[0], buf)
	switch {
	case err != nil:
		syscall.Kill(int(pid), syscall.SIGKILL)
		wait4(int(pid))
		return 0, nil, errNotApplied(fmt.Errorf("failed to hear from the command's launch: %v", err))
	case n == 0:
		return int(pid), nil, nil // the exec closed the report pipe: the command runs
	}
	return int(pid), c.failure(ops, names, f), nil
}

// idMapOps map the launcher's user and group to themselves in the child's new user namespace,
// which the child writes itself (as unshare -r does): a process may map its own IDs in a user
// namespace it created, and the launcher is suspended until the child has exec'd (forkChild).
// setgroups is denied before the group is mapped, which an unprivileged process may not do
// otherwise. Where
// the child has no capability in its namespace (Ubuntu's AppArmor restriction), they fail, and
// the launch falls back to startMapped.
func idMapOps(c *childPlan) {
	write := func(file, data string) {
		c.add(stageUserNS, "open "+file, syscall.SYS_OPENAT, atCwd, c.str(file), syscall.O_WRONLY|syscall.O_CLOEXEC, 0).save = true
		op := c.add(stageUserNS, "write "+file, syscall.SYS_WRITE, 0, c.str(data), uintptr(len(data)))
		op.fromSaved, op.want = true, uintptr(len(data))+1 // all of it
		c.add(stageUserNS, "close "+file, syscall.SYS_CLOSE, 0).fromSaved = true
	}
	uid, gid := strconv.Itoa(os.Getuid()), strconv.Itoa(os.Getgid())
	write("/proc/self/uid_map", uid+" "+uid+" 1\n")
	write("/proc/self/setgroups", "deny")
	write("/proc/self/gid_map", gid+" "+gid+" 1\n")
}

// mapIDs maps the launcher's user and group to themselves in pid's new user namespace.
func mapIDs(pid int) error {
	dir := "/proc/" + strconv.Itoa(pid) + "/"
	uid, gid := os.Getuid(), os.Getgid()
	if err := os.WriteFile(dir+"uid_map", []byte(fmt.Sprintf("%d %d 1\n", uid, uid)), 0); err != nil {
		return err
	}
	if err := os.WriteFile(dir+"setgroups", []byte("deny"), 0); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return os.WriteFile(dir+"gid_map", []byte(fmt.Sprintf("%d %d 1\n", gid, gid)), 0)
}

// readFull reads until buf is full or the writers are gone.
func readFull(fd int, buf []byte) (int, error) {
	n := 0
	for n < len(buf) {
		m, err := syscall.Read(fd, buf[n:])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return n, err
		}
		if m == 0 {
			break
		}
		n += m
	}
	return n, nil
}

// wait4 reaps pid and returns how it ended.
func wait4(pid int) (syscall.WaitStatus, error) {
	var ws syscall.WaitStatus
	for {
		_, err := syscall.Wait4(pid, &ws, 0, nil)
		if err != syscall.EINTR {
			return ws, err
		}
	}
}

// open_tree(2) and move_mount(2) (Linux 5.2): the same numbers on amd64 and arm64.
const (
	sysOpenTree         = 428
	sysMoveMount        = 429
	openTreeClone       = 1
	moveMountFEmptyPath = 4
)

// maskSource names the tmpfs that masks the read-only profile's hidden paths (the edit
// profile's is hiddenSource, which InsideEditSandbox looks for).
const maskSource = "hookctl-masked"

// RunPolicyOnly is the policy-only launch (issue 28), where the read-only sandbox cannot apply
// (no Landlock, and no mount namespace for the read-only mounts that stand in for it): argv runs
// with p's environment as a child bounded by b, in a process namespace of its own where b asks
// for one (PidOnly) and the kernel allows (else a process group), under what of the kernel's
// layers still applies — the read-only profile's seccomp filter (no network, no mode changes,
// no ptrace, namespaces or mounts, no terminal injection), no_new_privs and no capabilities —
// made by the same one Go start as RunReadOnly's. If even those cannot apply, argv runs
// without them, after saying so on stderr: this launch is policy-only by design, and the probe
// says what it holds (Status.PolicyOnly).
func RunPolicyOnly(p *Profile, argv, env []string, b Bound) (int, error) {
	exe, err := readOnlyExec(p, argv, env)
	if err != nil {
		return 0, err
	}
	exe.policyOnly = true
	level := levelGroup
	if b.PidOnly {
		level = levelNoMounts
	}
	pid, level, failed, err := launchAt(p, exe, level)
	if err == nil && failed == nil {
		return waitLaunched(pid, level > levelGroup, b)
	}
	if failed != nil {
		wait4(pid)
		if failed.exec {
			return 0, failed.err
		}
		err = failed.err
	}
	fmt.Fprintf(os.Stderr, "hookctl: policy only, and its seccomp filter could not apply either: %v\n", err)
	code, _, err := RunBounded(exe.path, argv, exe.env, b)
	return code, err
}

// readOnlyExec is what a read-only or policy-only child execs, with the read-only filter for
// the kernel's Landlock ABI (its old-ABI rules included: oldABIRules), and why the kernel has no
// Landlock where it has none. It marks every descriptor but the standard streams close-on-exec,
// in the table the child gets a copy of.
//
// The child's parent-death signal is the forking thread's, which must outlive it. It does without
// locking the thread (whose first lock starts the runtime's template thread, 0.04 ms of every
// launch): Go ends a thread only when a goroutine exits locked to it, and no goroutine of a
// process that launches does. Were one to, the child would get its SIGKILL: the command ends,
// never outlives its bound.
func readOnlyExec(p *Profile, argv, env []string) (*execArgs, error) {
	path, err := lookCommand(argv)
	if err != nil {
		return nil, err
	}
	abi, noLandlock := landlock.ABI()
	filter, err := readOnlyFilter(abi)
	if err != nil {
		return nil, errNotApplied(err)
	}
	if err := closeOnExec(); err != nil {
		return nil, errNotApplied(err)
	}
	return &execArgs{path: path, argv: argv, env: p.Environ(env), filter: filter, noLandlock: noLandlock}, nil
}
