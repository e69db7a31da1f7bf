//go:build linux && (amd64 || arm64)

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"unsafe"
)

// MaskHidden hides p's hidden paths with mounts, in the mount namespace of the read-only
// launcher's bounded child (MountProc made it private): one small tmpfs over the hidden
// directory that holds the scratch directory (hookctl's home), read-only, holding an empty
// unreadable entry for each of its names (ls lists them, as under Landlock), an empty
// unreadable directory and file bound over every other hidden directory and file, and the path
// down to the scratch directory, whose mount is bound there again (the other sessions' are not). Landlock
// then grants reading the whole tree (landlockRules): the launch costs the same whatever the
// directories around the hidden paths hold, where hiding them with Landlock alone means a rule
// for every entry of every directory above them (5,179 with a home among 5,000 others).
//
// A mount follows the directory it covers: a hidden directory renamed from outside keeps its
// mask, and one replaced loses its contents with it. On any error it undoes its mounts and
// returns it; the launcher then hides the paths with Landlock alone.
func MaskHidden(p *Profile) (err error) {
	hidden := resolvedHidden(p.Hidden)
	if err := hidesWhatRuns(p.Hidden, hidden); err != nil {
		return err
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
		if scratch, err = os.Readlink("/proc/self/fd/" + strconv.Itoa(int(p.ScratchDir.Fd()))); err != nil {
			return err
		}
	}
	top := slices.IndexFunc(targets, func(t target) bool { return t.dir && scratch != "" && within(scratch, t.path) })
	if top < 0 {
		top = slices.IndexFunc(targets, func(t target) bool { return t.dir })
	}
	if top < 0 {
		return errors.New("no hidden directory to hold the masks")
	}
	var mounted []string
	defer func() {
		if err != nil {
			for _, m := range slices.Backward(mounted) {
				syscall.Unmount(m, syscall.MNT_DETACH)
			}
		}
	}()
	t := targets[top].path
	tree := -1
	if scratch != "" && within(scratch, t) && scratch != t {
		// A copy of the scratch directory's mount, taken before the mask covers its path.
		if tree, err = openTree(int(p.ScratchDir.Fd())); err != nil {
			return err
		}
		defer syscall.Close(tree)
	}
	// Its names stay listed, as Landlock leaves them (ls of hookctl's home works; what the
	// entries hold does not): an empty unreadable entry of each name.
	names, err := os.ReadDir(t)
	if err != nil {
		return err
	}
	const flags = syscall.MS_NOSUID | syscall.MS_NODEV | syscall.MS_NOEXEC
	if err := syscall.Mount(maskSource, t, "tmpfs", flags, "mode=0711,size=64k,nr_inodes=4096"); err != nil {
		return fmt.Errorf("failed to mask %s: %v", t, err)
	}
	mounted = append(mounted, t)
	dir, file := filepath.Join(t, ".hookctl-masked-dir"), filepath.Join(t, ".hookctl-masked-file")
	if err := os.Mkdir(dir, 0); err != nil {
		return err
	}
	if err := os.WriteFile(file, nil, 0); err != nil {
		return err
	}
	first := ""
	if tree >= 0 {
		first, _, _ = strings.Cut(strings.TrimPrefix(scratch, t+"/"), "/")
	}
	for _, e := range names {
		name := filepath.Join(t, e.Name())
		switch {
		case e.Name() == first || name == dir || name == file:
		case e.IsDir():
			err = os.Mkdir(name, 0)
		default:
			err = os.WriteFile(name, nil, 0)
		}
		if err != nil {
			return err
		}
	}
	if tree >= 0 {
		at, way := t, []string{}
		rel, _ := filepath.Rel(t, scratch)
		for _, e := range strings.Split(rel, "/") {
			at = filepath.Join(at, e)
			if err := os.Mkdir(at, 0o700); err != nil {
				return err
			}
			way = append(way, at)
		}
		if err := moveMount(tree, at); err != nil {
			return fmt.Errorf("failed to bind the scratch directory at %s: %v", at, err)
		}
		mounted = append(mounted, at)
		for _, d := range way[:len(way)-1] { // the last is the scratch directory's mount now
			if err := os.Chmod(d, 0o555); err != nil {
				return err
			}
		}
	}
	// Listable, holding nothing readable, once made (the launcher made it as its owner, maybe without
	// CAP_DAC_OVERRIDE: an unprivileged user's namespace).
	if err := os.Chmod(t, 0o555); err != nil {
		return err
	}
	if err := syscall.Mount("", t, "", syscall.MS_REMOUNT|syscall.MS_RDONLY|flags, ""); err != nil {
		return fmt.Errorf("failed to make the mask read-only: %v", err)
	}
	for i, h := range targets {
		if i == top {
			continue
		}
		src := file
		if h.dir {
			src = dir
		}
		if err := syscall.Mount(src, h.path, "", syscall.MS_BIND, ""); err != nil {
			return fmt.Errorf("failed to mask %s: %v", h.path, err)
		}
		mounted = append(mounted, h.path)
	}
	p.masked = true
	return nil
}

// open_tree(2) and move_mount(2) (Linux 5.2): the same numbers on amd64 and arm64.
const (
	sysOpenTree         = 428
	sysMoveMount        = 429
	openTreeClone       = 1
	moveMountFEmptyPath = 4
)

// openTree is a detached copy of the mount of the directory fd has open.
func openTree(fd int) (int, error) {
	empty := []byte{0}
	r, _, e := syscall.Syscall(sysOpenTree, uintptr(fd), uintptr(unsafe.Pointer(&empty[0])), openTreeClone|syscall.O_CLOEXEC|atEmptyPath)
	if e != 0 {
		return -1, fmt.Errorf("failed to copy the scratch directory's mount: %v", e)
	}
	return int(r), nil
}

// moveMount attaches the detached mount tree at path.
func moveMount(tree int, path string) error {
	empty := []byte{0}
	to := append([]byte(path), 0)
	cwd := -100 // AT_FDCWD
	_, _, e := syscall.Syscall6(sysMoveMount, uintptr(tree), uintptr(unsafe.Pointer(&empty[0])), uintptr(cwd), uintptr(unsafe.Pointer(&to[0])), moveMountFEmptyPath, 0)
	if e != 0 {
		return e
	}
	return nil
}

// maskSource names the tmpfs that masks the read-only profile's hidden paths (the edit
// profile's is hiddenSource, which InsideEditSandbox looks for).
const maskSource = "hookctl-masked"
