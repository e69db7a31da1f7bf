//go:build linux && (amd64 || arm64)

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"unsafe"

	"github.com/hookctl/hookctl/internal/landlock"
	"github.com/hookctl/hookctl/internal/seccomp"
)

// ReadOnlyTree holds the read-only profile's writes where the kernel has no Landlock (issue 28),
// in the mount namespace of the read-only launcher's bounded child (MountProc made it private,
// MaskHidden masked the hidden paths): /dev becomes a tmpfs holding only null, zero, full,
// random, urandom and tty, bound from the machine's (a root command without capabilities still
// owns the disks' device nodes, and a read-only mount does not stop a device's writes); the
// scratch directory is bound onto itself; then every mount is made read-only, recursively,
// and the scratch directory's mount writable again. Apply then installs the seccomp filter
// without a Landlock ruleset: the filter refuses every mount change, and the capabilities that
// could undo them are gone. Only where Landlock is missing: where it is there, it holds all of
// this itself.
func ReadOnlyTree(p *Profile) error {
	if _, err := landlock.ABI(); err == nil {
		return errors.New("the kernel has Landlock: the read-only profile uses it")
	}
	if p.ScratchDir == nil || !p.masked {
		return errors.New("the read-only tree needs the scratch directory opened and the hidden paths masked")
	}
	if err := minimalDev(); err != nil {
		return err
	}
	scratch := "/proc/self/fd/" + strconv.Itoa(int(p.ScratchDir.Fd()))
	real, err := os.Readlink(scratch)
	if err != nil {
		return err
	}
	if err := syscall.Mount(scratch, real, "", syscall.MS_BIND, ""); err != nil {
		return fmt.Errorf("failed to bind the scratch directory: %v", err)
	}
	if err := mountSetattr("/", atRecursive, mountAttrRdonly, 0); err != nil {
		return fmt.Errorf("failed to make the tree read-only: %v", err)
	}
	if err := mountSetattr(real, 0, 0, mountAttrRdonly); err != nil {
		return fmt.Errorf("failed to make the scratch directory writable: %v", err)
	}
	p.roTree = true
	return nil
}

// devices are what the read-only tree's /dev holds: WriteFiles' and what programs read.
var devices = []string{"null", "zero", "full", "random", "urandom", "tty"}

// minimalDev mounts a tmpfs on /dev holding devices, each bound from the machine's /dev
// (opened before the tmpfs covers it), and the links to /proc/self/fd the C library and shells
// use.
func minimalDev() error {
	fds := map[string]int{}
	defer func() {
		for _, fd := range fds {
			syscall.Close(fd)
		}
	}()
	for _, d := range devices {
		fd, err := syscall.Open("/dev/"+d, oPath|syscall.O_CLOEXEC, 0)
		if err == nil {
			fds[d] = fd
		}
	}
	if err := syscall.Mount("hookctl-dev", "/dev", "tmpfs", syscall.MS_NOSUID|syscall.MS_NOEXEC, "mode=0755,size=64k,nr_inodes=64"); err != nil {
		return fmt.Errorf("failed to mount a /dev of its own: %v", err)
	}
	for d, fd := range fds {
		at := filepath.Join("/dev", d)
		if err := os.WriteFile(at, nil, 0o666); err != nil {
			return err
		}
		if err := syscall.Mount("/proc/self/fd/"+strconv.Itoa(fd), at, "", syscall.MS_BIND, ""); err != nil {
			return fmt.Errorf("failed to bind %s: %v", at, err)
		}
	}
	for name, to := range map[string]string{"fd": "/proc/self/fd", "stdin": "/proc/self/fd/0", "stdout": "/proc/self/fd/1", "stderr": "/proc/self/fd/2"} {
		if err := os.Symlink(to, filepath.Join("/dev", name)); err != nil {
			return err
		}
	}
	return nil
}

// mount_setattr(2) (Linux 5.12; the same number on amd64 and arm64).
const (
	atRecursive     = 0x8000
	mountAttrRdonly = 0x1
)

type mountAttr struct {
	attrSet, attrClr, propagation, usernsFd uint64
}

func mountSetattr(path string, flags int, set, clr uint64) error {
	p, err := syscall.BytePtrFromString(path)
	if err != nil {
		return err
	}
	attr := mountAttr{attrSet: set, attrClr: clr}
	cwd := atFdcwd
	if _, _, e := syscall.Syscall6(nrMountSetattr, uintptr(cwd), uintptr(unsafe.Pointer(p)), uintptr(flags),
		uintptr(unsafe.Pointer(&attr)), unsafe.Sizeof(attr), 0); e != 0 {
		return e
	}
	return nil
}

// ExecFilterOnly is the policy-only launch (where the read-only sandbox cannot apply: no
// Landlock, and no mount namespace for the read-only mounts that stand in for it): what still
// applies does — the read-only profile's seccomp filter (no network, no mode changes, no
// ptrace, namespaces or mounts, no terminal injection), no_new_privs and no capabilities — and
// argv runs with p's environment. If even that cannot apply, argv runs without it, after saying
// so on stderr: this launch is policy-only by design, and the probe says what it holds
// (Status.PolicyOnly). It returns only on failure.
func ExecFilterOnly(p *Profile, argv, env []string) error {
	if len(argv) == 0 {
		return errors.New("no command to run")
	}
	path, err := exec.LookPath(argv[0])
	if err != nil {
		return fmt.Errorf("cannot run %s: %v", argv[0], err)
	}
	runtime.LockOSThread()
	if err := applyFilterOnly(); err != nil {
		fmt.Fprintf(os.Stderr, "hookctl: policy only, and its seccomp filter could not apply either: %v\n", err)
	}
	err = syscall.Exec(path, argv, p.Environ(env))
	return fmt.Errorf("failed to run %s: %v", argv[0], err)
}

func applyFilterOnly() error {
	abi, _ := landlock.ABI()
	prog, err := seccomp.Assemble(filterArch, append(readOnlyRules(), oldABIRules(abi)...))
	if err != nil {
		return err
	}
	if err := closeOnExec(); err != nil {
		return err
	}
	if _, err := dropCapabilities(); err != nil {
		return err
	}
	return seccomp.Install(prog)
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
