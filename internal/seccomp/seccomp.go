// Package seccomp assembles and installs a seccomp-BPF filter from a table of rules, by hand:
// the filter hookctl needs is a list of system calls refused with an errno, a few of them only
// for some argument values, which a few dozen lines assemble; a binding would bring a policy
// language this table does not need.
//
// The program checks the architecture first (a system call made through another ABI, such as
// int 0x80 on amd64, has other numbers and is killed), then tries the rules in order: the first
// that matches returns its errno, and a call no rule matches is allowed.
package seccomp

import (
	"errors"
	"fmt"
	"syscall"
)

// Op is how a condition tests an argument.
type Op uint8

const (
	// In holds when the argument's low 32 bits, masked, equal one of Values. The kernel reads
	// the ints and unsigned ints these rules test from the low word; testing only it means high
	// bits a caller sets cannot slip past the rule.
	In Op = iota + 1
	// NotIn holds when the masked low word equals none of Values.
	NotIn
	// NonZero holds when the masked low word is not zero.
	NonZero
	// NonZero64 holds when any bit of the whole 64-bit argument is set (a pointer).
	NonZero64
)

// Cond is one test of a system call's argument.
type Cond struct {
	Arg    int // 0 to 5
	Op     Op
	Mask   uint32 // 0 means all 32 bits
	Values []uint32
}

// Rule refuses system call Nr with Errno when every condition in When holds (always, if When
// is empty). With Notify, the call is not refused but handed to the filter's listener
// (SECCOMP_RET_USER_NOTIF: InstallListener), which answers it for the caller.
type Rule struct {
	Name   string // for messages and tests
	Nr     int
	Errno  syscall.Errno
	Notify bool
	When   []Cond
}

// Instruction is one classic BPF instruction (struct sock_filter).
type Instruction struct {
	Code   uint16
	JT, JF uint8
	K      uint32
}

const (
	ldAbsW = 0x20 // BPF_LD | BPF_W | BPF_ABS
	jeqK   = 0x15 // BPF_JMP | BPF_JEQ | BPF_K
	jgeK   = 0x35 // BPF_JMP | BPF_JGE | BPF_K
	jaK    = 0x05 // BPF_JMP | BPF_JA
	andK   = 0x54 // BPF_ALU | BPF_AND | BPF_K
	retK   = 0x06 // BPF_RET | BPF_K

	retAllow       = 0x7fff0000
	retUserNotif   = 0x7fc00000
	retErrno       = 0x00050000
	retKillProcess = 0x80000000

	offNr   = 0
	offArch = 4
	offArgs = 16 // struct seccomp_data: nr, arch, instruction_pointer, args[6]
)

// Arch describes the ABI the filter admits.
type Arch struct {
	Audit uint32 // AUDIT_ARCH_* of the native ABI
	// MaxNr, if set, refuses (EPERM) every number at or above it: amd64's x32 calls, which share
	// the native audit arch with their own numbers.
	MaxNr uint32
}

// Assemble builds the filter program for rules.
func Assemble(arch Arch, rules []Rule) ([]Instruction, error) {
	var a assembler
	a.op(ldAbsW, offArch, "", "")
	a.op(jeqK, arch.Audit, "native", "")
	a.op(retK, retKillProcess, "", "")
	a.label("native")
	a.op(ldAbsW, offNr, "", "")
	if arch.MaxNr != 0 {
		a.op(jgeK, arch.MaxNr, "", "numbered")
		a.op(retK, retErrno|uint32(syscall.EPERM), "", "")
		a.label("numbered")
	}
	for i, r := range rules {
		if r.Notify != (r.Errno == 0) || r.Errno > 0xfff {
			return nil, fmt.Errorf("seccomp rule %s: errno %d out of range", r.Name, r.Errno)
		}
		next := fmt.Sprintf("rule%d", i+1)
		a.op(ldAbsW, offNr, "", "")
		a.op(jeqK, uint32(r.Nr), "", next)
		for j, c := range r.When {
			if c.Arg < 0 || c.Arg > 5 {
				return nil, fmt.Errorf("seccomp rule %s: argument %d", r.Name, c.Arg)
			}
			holds := fmt.Sprintf("rule%d.cond%d", i, j)
			lo := uint32(offArgs + 8*c.Arg) // little-endian: the low word comes first
			a.op(ldAbsW, lo, "", "")
			if c.Mask != 0 && c.Mask != ^uint32(0) && c.Op != NonZero64 {
				a.op(andK, c.Mask, "", "")
			}
			switch c.Op {
			case In:
				for _, v := range c.Values {
					a.op(jeqK, v, holds, "")
				}
				a.op(jaK, 0, next, "")
			case NotIn:
				for _, v := range c.Values {
					a.op(jeqK, v, next, "")
				}
			case NonZero:
				a.op(jeqK, 0, next, "")
			case NonZero64:
				a.op(jeqK, 0, "", holds)
				a.op(ldAbsW, lo+4, "", "")
				a.op(jeqK, 0, next, "")
			default:
				return nil, fmt.Errorf("seccomp rule %s: unknown op %d", r.Name, c.Op)
			}
			a.label(holds)
		}
		if r.Notify {
			a.op(retK, retUserNotif, "", "")
		} else {
			a.op(retK, retErrno|uint32(r.Errno), "", "")
		}
		a.label(next)
	}
	a.op(retK, retAllow, "", "")
	return a.resolve()
}

// assembler collects instructions whose jumps name labels, and resolves them to offsets.
type assembler struct {
	ins    []Instruction
	jumps  []jump
	labels map[string]int
}

type jump struct {
	at     int
	jt, jf string
	always bool // ja: the target is in K
}

func (a *assembler) op(code uint16, k uint32, jt, jf string) {
	if jt != "" || jf != "" {
		a.jumps = append(a.jumps, jump{at: len(a.ins), jt: jt, jf: jf, always: code == jaK})
	}
	a.ins = append(a.ins, Instruction{Code: code, K: k})
}

func (a *assembler) label(name string) {
	if a.labels == nil {
		a.labels = map[string]int{}
	}
	a.labels[name] = len(a.ins)
}

func (a *assembler) resolve() ([]Instruction, error) {
	off := func(from int, name string) (int, error) {
		to, ok := a.labels[name]
		if !ok {
			return 0, fmt.Errorf("seccomp: no label %s", name)
		}
		d := to - from - 1
		if d < 0 {
			return 0, errors.New("seccomp: backward jump")
		}
		return d, nil
	}
	for _, j := range a.jumps {
		in := &a.ins[j.at]
		if j.always {
			d, err := off(j.at, j.jt)
			if err != nil {
				return nil, err
			}
			in.K = uint32(d)
			continue
		}
		for _, t := range []struct {
			name string
			dst  *uint8
		}{{j.jt, &in.JT}, {j.jf, &in.JF}} {
			if t.name == "" {
				continue
			}
			d, err := off(j.at, t.name)
			if err != nil {
				return nil, err
			}
			if d > 255 {
				return nil, fmt.Errorf("seccomp: jump of %d instructions", d)
			}
			*t.dst = uint8(d)
		}
	}
	if len(a.ins) > 4096 {
		return nil, fmt.Errorf("seccomp: a program of %d instructions is too long", len(a.ins))
	}
	return a.ins, nil
}
