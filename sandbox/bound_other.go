//go:build unix && !(linux && (amd64 || arm64))

package sandbox

import "syscall"

// boundAttr: no namespaces here; RunBounded's child gets a process group of its own.
func boundAttr(bool) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}

// RunReadOnly runs argv under p as a child bounded by b, in a process group of its own (this
// platform has no namespaces), and returns its exit status; see the Linux one.
func RunReadOnly(p *Profile, argv, env []string, b Bound) (int, error) {
	path, err := lookCommand(argv)
	if err != nil {
		return 0, err
	}
	if path, argv, err = wrapped(p, path, argv); err != nil {
		return 0, err
	}
	code, _, err := RunBounded(path, argv, p.Environ(env), b)
	return code, err
}

// RunPolicyOnly runs argv with p's environment as a child bounded by b, in a process group of
// its own: no seccomp filter here.
func RunPolicyOnly(p *Profile, argv, env []string, b Bound) (int, error) {
	path, err := lookCommand(argv)
	if err != nil {
		return 0, err
	}
	code, _, err := RunBounded(path, argv, p.Environ(env), b)
	return code, err
}
