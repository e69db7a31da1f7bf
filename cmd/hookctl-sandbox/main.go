// A launch lasts as long as its command and runs nothing in parallel: GOMAXPROCS is not read
// from the cgroup files at start, nor updated (-0.03 ms a launch, five interleaved pairs).
//go:debug containermaxprocs=0
//go:debug updatemaxprocs=0

// Command hookctl-sandbox is the read-only launcher: the hook's rewrite of every shell command
// it admits in read-only mode starts it, and it applies the read-only profile (or, where the
// kernel's sandbox cannot apply, the policy-only one) and runs the command (package
// sandbox/readonly). It is `hookctl sandbox` for those two profiles in an executable that links
// only what they need, because it starts before every admitted read. It is installed next to
// hookctl, which uses it only when it comes from the same build (--build).
//
//	hookctl-sandbox --build DIGEST [--session ID] [--timeout D] [--pass-env=NAME…] [--profile policy-only] -- PROGRAM [ARG…]
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/hookctl/hookctl/config/home"
	"github.com/hookctl/hookctl/internal/buildinfo"
	"github.com/hookctl/hookctl/sandbox"
	"github.com/hookctl/hookctl/sandbox/readonly"
)

// exitFailed is the status when the sandbox could not be applied and so nothing ran.
const exitFailed = 126

func main() {
	if len(os.Args) == 2 && os.Args[1] == "version" {
		fmt.Print(buildinfo.Describe(readonly.Executable))
		return
	}
	fs := flag.NewFlagSet(readonly.Executable, flag.ContinueOnError)
	var o readonly.Options
	build := fs.String("build", "", "the build `DIGEST` of the hookctl whose rewrite starts it")
	profile := fs.String("profile", sandbox.ReadOnlyName, "read-only or policy-only")
	fs.StringVar(&o.Session, "session", "", "the session whose scratch directory is TMPDIR")
	fs.DurationVar(&o.Timeout, "timeout", 0, "stop the command after `DURATION`")
	fs.Func("pass-env", "pass the variable `NAME` too (the config's pass_env, as the hook read it)", func(n string) error {
		o.PassEnv = append(o.PassEnv, n)
		return nil
	})
	if err := fs.Parse(os.Args[1:]); err != nil {
		os.Exit(2)
	}
	args := fs.Args()
	fail := func(format string, a ...any) {
		fmt.Fprintf(os.Stderr, readonly.Executable+": "+format+"\n", a...)
		os.Exit(exitFailed)
	}
	switch {
	case *build != buildinfo.Digest():
		// Another build's launcher (a hookctl upgraded without it): its rules are not the
		// hook's, so nothing runs under them.
		fail("this launcher is from another build than the hookctl that started it (%q, this is %s); reinstall both (make install)", *build, buildinfo.Digest())
	case len(args) == 0:
		fail("give the program after --")
	}
	hookctlHome, err := home.Dir()
	if err != nil {
		fail("%v", err)
	}
	var code int
	switch *profile {
	case sandbox.ReadOnlyName:
		code, err = readonly.Launch(hookctlHome, o, args)
	case readonly.PolicyOnlyName:
		code, err = readonly.LaunchPolicyOnly(hookctlHome, o, args)
	default:
		fail("unknown profile %q: this launcher runs read-only and policy-only (hookctl sandbox runs the others)", *profile)
	}
	if err != nil {
		fail("%v", err)
	}
	os.Exit(code)
}
