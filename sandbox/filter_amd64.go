//go:build linux

package sandbox

import (
	"syscall"

	"github.com/hookctl/hookctl/internal/seccomp"
)

// amd64: numbers the syscall package lacks, and the metadata calls arm64 never had.
const (
	nrProcessVMReadv  = 310
	nrProcessVMWritev = 311
	nrSetns           = 308
	nrFinitModule     = 313
	nrClockAdjtime    = 305
	nrBPF             = 321
	nrRenameat2       = 316
	nrOpenat2         = 437
	nrFanotifyInit    = 300
	nrFanotifyMark    = 301
)

var inotifyCalls = []sys{{"inotify_init", syscall.SYS_INOTIFY_INIT}, {"inotify_init1", syscall.SYS_INOTIFY_INIT1},
	{"inotify_add_watch", syscall.SYS_INOTIFY_ADD_WATCH}}

// legacyNamedCalls are amd64's forms without a directory descriptor of the calls that name a
// directory entry (supervisedRules), and legacyNamed answers them as their *at forms.
var legacyNamedCalls = []sys{{"mkdir", syscall.SYS_MKDIR}, {"mknod", syscall.SYS_MKNOD}, {"symlink", syscall.SYS_SYMLINK},
	{"rename", syscall.SYS_RENAME}, {"link", syscall.SYS_LINK}, {"creat", syscall.SYS_CREAT}}

// legacyOpenRules supervise amd64's open with O_CREAT (built on first use: the hook process
// links this package and must not pay for it at start-up).
func legacyOpenRules() []seccomp.Rule {
	return []seccomp.Rule{{Name: "open (O_CREAT, supervised)", Nr: syscall.SYS_OPEN, Notify: true,
		When: []seccomp.Cond{{Arg: 1, Op: seccomp.NonZero, Mask: syscall.O_CREAT}}}}
}

type legacyFunc = func(*supervisor, *call, [6]uint64) (answer, syscall.Errno)

// legacyNamed answers amd64's older forms as their *at forms.
func legacyNamed(nr int) (legacyFunc, bool) {
	f, ok := legacyNamedTable()[nr]
	return f, ok
}

func legacyNamedTable() map[int]legacyFunc {
	return map[int]legacyFunc{
		syscall.SYS_MKDIR: func(s *supervisor, c *call, a [6]uint64) (answer, syscall.Errno) {
			return s.mkdir(c, atFdcwd, a[0], uint32(a[1]))
		},
		syscall.SYS_MKNOD: func(s *supervisor, c *call, a [6]uint64) (answer, syscall.Errno) {
			return s.mknod(c, atFdcwd, a[0], uint32(a[1]), a[2])
		},
		syscall.SYS_SYMLINK: func(s *supervisor, c *call, a [6]uint64) (answer, syscall.Errno) {
			return s.symlink(c, a[0], atFdcwd, a[1])
		},
		syscall.SYS_RENAME: func(s *supervisor, c *call, a [6]uint64) (answer, syscall.Errno) {
			return s.rename(c, atFdcwd, a[0], atFdcwd, a[1], 0)
		},
		syscall.SYS_LINK: func(s *supervisor, c *call, a [6]uint64) (answer, syscall.Errno) {
			return s.link(c, atFdcwd, a[0], atFdcwd, a[1], 0)
		},
		syscall.SYS_OPEN: func(s *supervisor, c *call, a [6]uint64) (answer, syscall.Errno) {
			return s.create(c, atFdcwd, a[0], int(int32(a[1])), uint32(a[2]))
		},
		syscall.SYS_CREAT: func(s *supervisor, c *call, a [6]uint64) (answer, syscall.Errno) {
			return s.create(c, atFdcwd, a[0], syscall.O_CREAT|syscall.O_WRONLY|syscall.O_TRUNC, uint32(a[1]))
		},
	}
}

// filterArch admits only native amd64 calls; x32 calls (bit 30 set) share the audit arch.
var filterArch = seccomp.Arch{Audit: 0xc000003e, MaxNr: 0x40000000}

// legacyOpenCall is amd64's open, whose flags are its second argument (truncatingReadRules).
var legacyOpenCall = []sys{{"open", syscall.SYS_OPEN}}

var legacyMetadata = []sys{
	{"chmod", syscall.SYS_CHMOD}, {"chown", syscall.SYS_CHOWN}, {"lchown", syscall.SYS_LCHOWN},
	{"utime", syscall.SYS_UTIME}, {"utimes", syscall.SYS_UTIMES}, {"futimesat", syscall.SYS_FUTIMESAT},
	{"iopl", syscall.SYS_IOPL}, {"ioperm", syscall.SYS_IOPERM},
}
