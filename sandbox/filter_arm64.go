//go:build linux

package sandbox

import (
	"syscall"

	"github.com/hookctl/hookctl/internal/seccomp"
)

const (
	nrProcessVMReadv  = syscall.SYS_PROCESS_VM_READV
	nrProcessVMWritev = syscall.SYS_PROCESS_VM_WRITEV
	nrSetns           = syscall.SYS_SETNS
	nrFinitModule     = syscall.SYS_FINIT_MODULE
	nrClockAdjtime    = syscall.SYS_CLOCK_ADJTIME
	nrBPF             = syscall.SYS_BPF
	nrRenameat2       = syscall.SYS_RENAMEAT2
	nrOpenat2         = 437
	nrFanotifyInit    = 262
	nrFanotifyMark    = 263
)

var inotifyCalls = []sys{{"inotify_init1", syscall.SYS_INOTIFY_INIT1}, {"inotify_add_watch", syscall.SYS_INOTIFY_ADD_WATCH}}

// arm64 has only the *at forms of the calls that name a directory entry.
var legacyNamedCalls []sys

func legacyOpenRules() []seccomp.Rule { return nil }

func legacyNamed(int) (func(*supervisor, *call, [6]uint64) (answer, syscall.Errno), bool) {
	return nil, false
}

var filterArch = seccomp.Arch{Audit: 0xc00000b7}

// arm64 has no open, only openat.
var legacyOpenCall []sys

// arm64 has only the *at forms of the metadata calls.
var legacyMetadata []sys
