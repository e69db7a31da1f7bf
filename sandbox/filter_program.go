//go:build linux

package sandbox

import "github.com/hookctl/hookctl/internal/seccomp"

// readOnlyFilter is the read-only profile's program for a kernel of Landlock ABI abi: the
// assembled rules (readOnlyRules and oldABIRules), read from readOnlyPrograms where this
// architecture has them, built at every launch otherwise. The rules are the same on every
// machine of an architecture, so the table is the program the launch would assemble: 60 µs of
// every launch, the rules and the assembly, are data instead
// (TestReadOnlyProgramsAreAssembled holds them equal; -update-programs writes the table).
func readOnlyFilter(abi int) ([]seccomp.Instruction, error) {
	if p := readOnlyPrograms[programIndex(abi)]; p != nil {
		return p, nil
	}
	return seccomp.Assemble(filterArch, append(readOnlyRules(), oldABIRules(abi)...))
}

// programIndex is where readOnlyPrograms keeps the program for abi: one per distinct
// oldABIRules.
func programIndex(abi int) int {
	if abi >= 3 {
		return 1
	}
	return 0
}

// ReadOnlyProgram is the read-only profile's seccomp program for a kernel of Landlock ABI abi,
// as the launch installs it: for the launch bench's yardstick, which installs the same program
// (internal/latency/launch).
func ReadOnlyProgram(abi int) ([]seccomp.Instruction, error) { return readOnlyFilter(abi) }
