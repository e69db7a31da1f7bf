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
)

// filterArch admits only native amd64 calls; x32 calls (bit 30 set) share the audit arch.
var filterArch = seccomp.Arch{Audit: 0xc000003e, MaxNr: 0x40000000}

var legacyMetadata = []sys{
	{"chmod", syscall.SYS_CHMOD}, {"chown", syscall.SYS_CHOWN}, {"lchown", syscall.SYS_LCHOWN},
	{"utime", syscall.SYS_UTIME}, {"utimes", syscall.SYS_UTIMES}, {"futimesat", syscall.SYS_FUTIMESAT},
	{"iopl", syscall.SYS_IOPL}, {"ioperm", syscall.SYS_IOPERM},
}
