package fsutil

import (
	"syscall"
	"time"
)

// modTime is st's modification time.
func modTime(st *syscall.Stat_t) time.Time { return time.Unix(st.Mtimespec.Unix()) }

// changeTime is st's status change time.
func changeTime(st *syscall.Stat_t) time.Time { return time.Unix(st.Ctimespec.Unix()) }
