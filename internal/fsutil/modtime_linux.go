package fsutil

import (
	"syscall"
	"time"
)

// modTime is st's modification time (Stat_t names it Mtim here, Mtimespec on macOS).
func modTime(st *syscall.Stat_t) time.Time { return time.Unix(st.Mtim.Unix()) }

// changeTime is st's status change time.
func changeTime(st *syscall.Stat_t) time.Time { return time.Unix(st.Ctim.Unix()) }
