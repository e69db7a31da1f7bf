//go:build linux && (amd64 || arm64)

package sandbox

import (
	"runtime"
	"syscall"
	"testing"
	"unsafe"

	"github.com/hookctl/hookctl/internal/seccomp"
)

// BenchmarkFilterSyscall times one system call with and without the read-only filter, on a
// thread of its own that dies with the filter (the test process keeps no restriction). getppid
// is in no rule: the kernel's per-number cache (Linux 5.11) allows it without running the
// filter. ioctl and prlimit64 have rules on their arguments, so the filter runs for them: a
// search of the rules' numbers (seccomp.Assemble), then their rules.
func BenchmarkFilterSyscall(b *testing.B) {
	prog, err := seccomp.Assemble(filterArch, readOnlyRules())
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("filter: %d rules, %d instructions", len(readOnlyRules()), len(prog))
	var lim [2]uint64
	calls := []struct {
		name string
		call func()
	}{
		{"getppid", func() { syscall.RawSyscall(syscall.SYS_GETPPID, 0, 0, 0) }},
		{"ioctl-TCGETS", func() {
			var t syscall.Termios
			syscall.RawSyscall(syscall.SYS_IOCTL, 0, syscall.TCGETS, uintptr(unsafe.Pointer(&t)))
		}},
		{"prlimit64-own", func() {
			syscall.RawSyscall6(syscall.SYS_PRLIMIT64, 0, syscall.RLIMIT_NOFILE, 0, uintptr(unsafe.Pointer(&lim)), 0, 0)
		}},
	}
	for _, c := range calls {
		for _, filtered := range []bool{false, true} {
			name := c.name + "/plain"
			if filtered {
				name = c.name + "/filtered"
			}
			b.Run(name, func(b *testing.B) {
				done := make(chan error)
				go func() {
					// Never unlocked: the thread exits with the goroutine, and its filter with it.
					runtime.LockOSThread()
					if filtered {
						if err := seccomp.Install(prog); err != nil {
							done <- err
							return
						}
					}
					b.ResetTimer()
					for range b.N {
						c.call()
					}
					b.StopTimer()
					done <- nil
				}()
				if err := <-done; err != nil {
					b.Fatal(err)
				}
			})
		}
	}
}
