//go:build linux && (amd64 || arm64)

package sandbox

import (
	"errors"
	"os"
	"strconv"
	"strings"
	"syscall"
	"unsafe"
)

// treeOps hold the read-only profile's writes where the kernel has no Landlock (issue 28), as
// ops of the child's, in its mount namespace, after its /proc and the masks over the hidden
// paths (maskOps): /dev becomes a tmpfs holding only null, zero, full, random, urandom and tty,
// bound from the machine's (a root command without capabilities still owns the disks' device
// nodes, and a read-only mount does not stop a device's writes), and the links to
// /proc/self/fd the C library and shells use; the scratch directory gets a mount of its own
// (maskOps made it one where it lies beneath a hidden directory); then every mount is made
// read-only, recursively, and the scratch directory's mount writable again. The plan then holds
// no Landlock ruleset, and keeps the seccomp filter: it refuses every mount change, and the
// capabilities that could undo them are gone. Only where Landlock is missing: where it is
// there, it holds all of this itself.
func treeOps(c *childPlan, p *Profile, scratchMounted bool) error {
	if p.ScratchDir == nil {
		return errors.New("the read-only tree needs the scratch directory opened")
	}
	scratch, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(int(p.ScratchDir.Fd())))
	if err != nil {
		return err
	}
	// A device's descriptor of the launcher's is of a mount in the launcher's namespace, which
	// the child's may not bind: the child opens each node again in its own, before the tmpfs
	// covers them, onto the number of the launcher's descriptor of it, which the bind then names.
	var devs []string
	for _, d := range devices {
		at := "/dev/" + d
		fd, err := syscall.Open(at, oPath|syscall.O_CLOEXEC, 0)
		if err != nil {
			continue // missing here: the tree's /dev goes without it
		}
		c.fds = append(c.fds, fd)
		c.add(stageTree, "open "+at, syscall.SYS_OPENAT, atCwd, c.str(at), oPath|syscall.O_CLOEXEC, 0).save = true
		c.add(stageTree, "keep "+at, syscall.SYS_DUP3, 0, uintptr(fd), syscall.O_CLOEXEC).fromSaved = true
		devs = append(devs, at, "/proc/self/fd/"+strconv.Itoa(fd))
	}
	c.add(stageTree, "mount a /dev of its own", syscall.SYS_MOUNT, c.str("hookctl-dev"), c.str("/dev"), c.str("tmpfs"),
		syscall.MS_NOSUID|syscall.MS_NOEXEC, c.str("mode=0755,size=64k,nr_inodes=64"))
	for i := 0; i < len(devs); i += 2 {
		at, from := devs[i], devs[i+1]
		c.add(stageTree, "make "+at, syscall.SYS_MKNODAT, atCwd, c.str(at), syscall.S_IFREG|0o666, 0)
		c.add(stageTree, "bind "+at, syscall.SYS_MOUNT, c.str(from), c.str(at), 0, syscall.MS_BIND, 0)
	}
	for _, l := range devLinks {
		c.add(stageTree, "link "+l[0], syscall.SYS_SYMLINKAT, c.str(l[1]), atCwd, c.str(l[0]))
	}
	if !scratchMounted {
		// Its own mount, copied from the directory the child opens by the path the launcher's
		// descriptor has, through no symbolic link.
		how := &openHow{flags: oPath | syscall.O_DIRECTORY | syscall.O_CLOEXEC, resolve: resolveNoSymlinks}
		c.keep = append(c.keep, how)
		c.add(stageTree, "open the scratch directory", sysOpenat2, atCwd, c.str(scratch), uintptr(unsafe.Pointer(how)), unsafe.Sizeof(*how)).save = true
		op := c.add(stageTree, "copy the scratch directory's mount", sysOpenTree, 0, c.str(""), openTreeClone|syscall.O_CLOEXEC|atEmptyPath)
		op.fromSaved, op.save = true, true
		c.add(stageTree, "bind the scratch directory", sysMoveMount, 0, c.str(""), atCwd, c.str(scratch), moveMountFEmptyPath).fromSaved = true
	}
	ro, rw := &mountAttr{attrSet: mountAttrRdonly}, &mountAttr{attrClr: mountAttrRdonly}
	c.keep = append(c.keep, ro, rw)
	c.add(stageTree, "make the tree read-only", nrMountSetattr, atCwd, c.str("/"), atRecursive, uintptr(unsafe.Pointer(ro)), unsafe.Sizeof(*ro))
	c.add(stageTree, "make the scratch directory writable", nrMountSetattr, atCwd, c.str(scratch), 0, uintptr(unsafe.Pointer(rw)), unsafe.Sizeof(*rw))
	return nil
}

// devices are what the read-only tree's /dev holds: WriteFiles' and what programs read.
var devices = []string{"null", "zero", "full", "random", "urandom", "tty"}

// devLinks are the tree's /dev's links, and where they point.
var devLinks = [][2]string{{"/dev/fd", "/proc/self/fd"}, {"/dev/stdin", "/proc/self/fd/0"}, {"/dev/stdout", "/proc/self/fd/1"}, {"/dev/stderr", "/proc/self/fd/2"}}

// mount_setattr(2) (Linux 5.12; the same number on amd64 and arm64).
const (
	atRecursive     = 0x8000
	mountAttrRdonly = 0x1
)

type mountAttr struct {
	attrSet, attrClr, propagation, usernsFd uint64
}

// policyOnlyHolds names, from the probe's checks of the policy-only launch, the layers that held
// there ("" if none).
func policyOnlyHolds(checks []Check) string {
	ok := map[string]bool{}
	for _, c := range checks {
		ok[c.Name] = c.OK
	}
	var holds []string
	if ok["holds: seccomp filter"] && ok["refused: an inet socket"] && ok["refused: connecting a unix socket"] && ok["refused: a mode change"] {
		holds = append(holds, "a seccomp filter (no network, no mode changes, no ptrace, namespaces or mounts)")
	}
	if ok["holds: no_new_privs"] {
		holds = append(holds, "no_new_privs")
	}
	if ok["holds: no capabilities"] {
		holds = append(holds, "no capabilities")
	}
	return strings.Join(holds, ", ")
}
