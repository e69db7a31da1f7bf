//go:build unix

package gate

import (
	"io/fs"
	"syscall"
)

// linkCount is a file's number of hard links, or 0 when the system does not say.
func linkCount(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 0
}

// device is the device a file is on.
func device(fi fs.FileInfo) (uint64, bool) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Dev), true // Dev is int32 on darwin
	}
	return 0, false
}

// fileID is a file's device and inode: its identity, whatever its names.
func fileID(fi fs.FileInfo) ([2]uint64, bool) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return [2]uint64{uint64(st.Dev), uint64(st.Ino)}, true
	}
	return [2]uint64{}, false
}
