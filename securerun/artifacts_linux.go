//go:build linux

package securerun

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"unsafe"
)

// ValidateArtifacts checks what the run wrote to the artifacts and home directories of l, once
// nothing of the run is left running (the run's pid namespace has ended): every regular file up
// to maxBytes is listed with its size and SHA-256; a larger one, a link whose target leaves its
// directory, anything that is not a regular file, a directory or a link (a FIFO, a socket, a
// device), and any entry whose name is not printable text are moved under the quarantine
// directory, keeping their paths, and reported.
//
// It works by descriptor, from the output directory opened once: each directory is opened
// beneath the one above it and each entry relative to its directory, never through a link, and
// a quarantined entry is renamed from its directory's descriptor to the quarantine's. Nothing
// the run left (a link, a directory swapped for one) can make it read or move a file from
// outside the output.
func ValidateArtifacts(l Layout, maxBytes int64) Validation {
	v := Validation{Artifacts: []Artifact{}, Quarantined: []Quarantined{}}
	out, err := syscall.Open(l.Out, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
	if err != nil {
		return v
	}
	defer syscall.Close(out)
	q := &quarantine{out: out}
	defer q.close()
	for _, dir := range []string{ArtifactsDir, HomeDir} {
		fd, err := openDirAt(out, dir)
		if err != nil {
			continue
		}
		v.walk(q, fd, dir, maxBytes)
		syscall.Close(fd)
	}
	return v
}

// walk validates the entries of the directory dir (its descriptor), rel beneath the output.
func (v *Validation) walk(q *quarantine, dir int, rel string, maxBytes int64) {
	names, err := dirNames(dir)
	if err != nil {
		return
	}
	for _, name := range names {
		path := rel + "/" + name
		var st syscall.Stat_t
		if err := fstatat(dir, name, &st); err != nil {
			continue // gone
		}
		mode := st.Mode & syscall.S_IFMT
		switch {
		case !printable(name):
			v.quarantine(q, dir, name, path, st.Size, "a name that is not printable text")
		case mode == syscall.S_IFDIR:
			fd, err := openDirAt(dir, name)
			if err != nil {
				v.quarantine(q, dir, name, path, 0, fmt.Sprintf("unreadable: %v", err))
				continue
			}
			v.walk(q, fd, path, maxBytes)
			syscall.Close(fd)
		case mode == syscall.S_IFLNK:
			target, err := readlinkAt(dir, name)
			if err != nil || !linkStaysIn(path, target, strings.SplitN(rel, "/", 2)[0]) {
				v.quarantine(q, dir, name, path, 0, "a symbolic link out of its directory (to "+shown(target)+")")
				continue
			}
			v.add(Artifact{Path: shown(path), Link: shown(target)})
		case mode != syscall.S_IFREG:
			v.quarantine(q, dir, name, path, st.Size, "not a regular file ("+kindOfMode(mode)+")")
		case st.Size > maxBytes:
			v.quarantine(q, dir, name, path, st.Size, fmt.Sprintf("larger than the cap of %d bytes", maxBytes))
		default:
			sum, n, err := hashAt(dir, name, maxBytes)
			switch {
			case err != nil:
				v.quarantine(q, dir, name, path, st.Size, "unreadable: "+err.Error())
			case n > maxBytes:
				v.quarantine(q, dir, name, path, n, fmt.Sprintf("larger than the cap of %d bytes", maxBytes))
			default:
				v.Bytes += n
				v.add(Artifact{Path: shown(path), Size: n, SHA256: sum})
			}
		}
	}
}

// quarantine moves the entry name of directory dir (path beneath the output) to the same path
// beneath the quarantine directory, and records it; where it cannot be moved it is removed,
// so that nothing invalid stays in the output.
func (v *Validation) quarantine(q *quarantine, dir int, name, path string, size int64, reason string) {
	rec := Quarantined{Path: shown(path), Reason: reason, Size: size}
	err := q.move(dir, name, path)
	if err != nil {
		rec.Error = fmt.Sprintf("could not be moved (%v), so it was removed", err)
		removeAt(dir, name)
	} else {
		rec.MovedTo = shown(QuarantineDir + "/" + path)
	}
	v.Quarantined = append(v.Quarantined, rec)
}

// quarantine is the quarantine directory, made and opened beneath the output once, with the
// directories made beneath it so far.
type quarantine struct {
	out  int
	dirs map[string]int
}

func (q *quarantine) close() {
	for _, fd := range q.dirs {
		syscall.Close(fd)
	}
}

// dir returns the quarantine's directory for rel (a/b), making each level by descriptor.
func (q *quarantine) dir(rel string) (int, error) {
	if fd, ok := q.dirs[rel]; ok {
		return fd, nil
	}
	parent, name := q.out, QuarantineDir
	if rel != "" {
		up := filepath.Dir(rel)
		if up == "." {
			up = ""
		}
		p, err := q.dir(up)
		if err != nil {
			return -1, err
		}
		parent, name = p, filepath.Base(rel)
	}
	if err := syscall.Mkdirat(parent, name, 0o700); err != nil && !errors.Is(err, syscall.EEXIST) {
		return -1, err
	}
	fd, err := openDirAt(parent, name)
	if err != nil {
		return -1, err
	}
	if q.dirs == nil {
		q.dirs = map[string]int{}
	}
	q.dirs[rel] = fd
	return fd, nil
}

func (q *quarantine) move(dir int, name, path string) error {
	rel := filepath.Dir(path)
	if rel == "." {
		rel = ""
	}
	to, err := q.dir(rel)
	if err != nil {
		return err
	}
	return syscall.Renameat(dir, name, to, name)
}

func openDirAt(dir int, name string) (int, error) {
	return syscall.Openat(dir, name, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
}

// dirNames lists the directory dir (its descriptor), sorted.
func dirNames(dir int) ([]string, error) {
	fd, err := syscall.Dup(dir)
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(fd), "dir")
	defer f.Close()
	names, err := f.Readdirnames(-1)
	slices.Sort(names)
	return names, err
}

// fstatat stats the entry name of dir itself (a link as a link).
func fstatat(dir int, name string, st *syscall.Stat_t) error {
	const oPath = 0x200000
	fd, err := syscall.Openat(dir, name, oPath|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer syscall.Close(fd)
	return syscall.Fstat(fd, st)
}

func readlinkAt(dir int, name string) (string, error) {
	buf := make([]byte, 4096)
	p, err := syscall.BytePtrFromString(name)
	if err != nil {
		return "", err
	}
	n, _, e := syscall.Syscall6(syscall.SYS_READLINKAT, uintptr(dir), uintptr(unsafe.Pointer(p)), uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)), 0, 0)
	if e != 0 {
		return "", e
	}
	return string(buf[:n]), nil
}

// hashAt returns the SHA-256 of the regular file name in dir and its size, reading at most
// max+1 bytes, without following a link or blocking on a FIFO put in its place.
func hashAt(dir int, name string, max int64) (string, int64, error) {
	fd, err := syscall.Openat(dir, name, syscall.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		return "", 0, err
	}
	return hashOpen(os.NewFile(uintptr(fd), name), max)
}

// removeAt removes name from dir, a directory's whole tree by descriptor.
func removeAt(dir int, name string) {
	if syscall.Unlinkat(dir, name) == nil {
		return
	}
	fd, err := openDirAt(dir, name)
	if err != nil {
		return
	}
	if names, err := dirNames(fd); err == nil {
		for _, n := range names {
			removeAt(fd, n)
		}
	}
	syscall.Close(fd)
	const atRemovedir = 0x200
	p, _ := syscall.BytePtrFromString(name)
	syscall.Syscall(syscall.SYS_UNLINKAT, uintptr(dir), uintptr(unsafe.Pointer(p)), atRemovedir)
}

func kindOfMode(m uint32) string {
	switch m {
	case syscall.S_IFIFO:
		return "a FIFO"
	case syscall.S_IFSOCK:
		return "a socket"
	case syscall.S_IFCHR, syscall.S_IFBLK:
		return "a device"
	}
	return "of an unknown kind"
}
