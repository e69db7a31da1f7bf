//go:build !linux

package securerun

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/hookctl/hookctl/internal/fsutil"
)

// ValidateArtifacts checks what the run wrote to the artifacts and home directories of l, once
// nothing of the run is left running: every regular file up to maxBytes is listed with its
// size and SHA-256; a larger one, a link whose target leaves its directory, anything that is
// not a regular file, a directory or a link (a FIFO, a socket, a device), and any entry whose
// name is not printable text are moved under the quarantine directory, keeping their paths, and
// reported. It follows no link.
func ValidateArtifacts(l Layout, maxBytes int64) Validation {
	v := Validation{Artifacts: []Artifact{}, Quarantined: []Quarantined{}}
	for _, dir := range []string{ArtifactsDir, HomeDir} {
		top := filepath.Join(l.Out, dir)
		filepath.WalkDir(top, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				if p != top {
					v.quarantine(l, p, 0, fmt.Sprintf("unreadable: %v", err))
				}
				return nil
			}
			rel, _ := filepath.Rel(l.Out, p)
			info, err := d.Info()
			if err != nil {
				return nil // gone
			}
			switch {
			case p == top:
				return nil
			case !printable(d.Name()):
				v.quarantine(l, p, info.Size(), "a name that is not printable text")
				if d.IsDir() {
					return filepath.SkipDir
				}
			case d.IsDir():
			case d.Type()&fs.ModeSymlink != 0:
				target, _ := os.Readlink(p)
				if !linkStaysIn(p, target, top) {
					v.quarantine(l, p, 0, "a symbolic link out of its directory (to "+shown(target)+")")
					return nil
				}
				v.add(Artifact{Path: shown(rel), Link: shown(target)})
			case !d.Type().IsRegular():
				v.quarantine(l, p, info.Size(), "not a regular file ("+fsutil.FileKind(info.Mode())+")")
			case info.Size() > maxBytes:
				v.quarantine(l, p, info.Size(), fmt.Sprintf("larger than the cap of %d bytes", maxBytes))
			default:
				sum, n, err := hashFile(p, maxBytes)
				switch {
				case err != nil:
					v.quarantine(l, p, info.Size(), "unreadable: "+err.Error())
				case n > maxBytes:
					v.quarantine(l, p, n, fmt.Sprintf("larger than the cap of %d bytes", maxBytes))
				default:
					v.Bytes += n
					v.add(Artifact{Path: shown(rel), Size: n, SHA256: sum})
				}
			}
			return nil
		})
	}
	return v
}

// quarantine moves p beneath the quarantine directory, at its path relative to the output, and
// records it; where it cannot be moved it is removed, so that nothing invalid stays in the
// output.
func (v *Validation) quarantine(l Layout, p string, size int64, reason string) {
	rel, _ := filepath.Rel(l.Out, p)
	q := Quarantined{Path: shown(rel), Reason: reason, Size: size}
	dest := filepath.Join(l.Quarantine(), rel)
	err := os.MkdirAll(filepath.Dir(dest), 0o700)
	if err == nil {
		err = os.Rename(p, dest)
	}
	if err != nil {
		q.Error = fmt.Sprintf("could not be moved (%v), so it was removed", err)
		os.RemoveAll(p)
	} else {
		q.MovedTo = shown(filepath.Join(QuarantineDir, rel))
	}
	v.Quarantined = append(v.Quarantined, q)
}

// hashFile returns the SHA-256 of the regular file at p and its size, reading at most max+1
// bytes (a file that grew past the cap since it was listed says so by its size), without
// following a link or blocking on a FIFO put in its place.
func hashFile(p string, max int64) (string, int64, error) {
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return "", 0, err
	}
	return hashOpen(f, max)
}
