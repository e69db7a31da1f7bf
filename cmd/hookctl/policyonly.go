package main

import (
	"os"

	"github.com/hookctl/hookctl/policy"

	"github.com/hookctl/hookctl/sandbox"
)

// policyOnlyExec is the policy-only launch's bounded child (boundedExec), where the read-only
// sandbox cannot apply: the read-only profile's environment, and what of the kernel's layers
// still applies there (sandbox.ExecFilterOnly: the seccomp filter, no_new_privs, no
// capabilities; issue 28). It returns only on failure.
func policyOnlyExec(home string, opts *sandboxOptions, args []string) error {
	scratch, err := scratchFor(home, opts)
	if err != nil {
		return err
	}
	defer scratch.Close()
	p := sandbox.ReadOnly(nil, scratch.Path)
	p.Name = policy.PolicyOnlyProfile
	p.PassEnv, p.Pins = readOnlyEnv(home)
	return sandbox.ExecFilterOnly(p, args, os.Environ())
}
