// Package seccomp assembles and installs a seccomp-BPF filter from a table of rules, by hand:
// the filter hookctl needs is a list of system calls refused with an errno, a few of them only
// for some argument values, which a few dozen lines assemble; a binding would bring a policy
// language this table does not need.
//
// The program checks the architecture first (a system call made through another ABI, such as
// int 0x80 on amd64, has other numbers and is killed), then finds the rules of the call's number
// and tries them in order: the first that matches returns its errno, and a call no rule matches
// is allowed.
package seccomp

import (
	"cmp"
	"fmt"
	"slices"
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

// Assemble builds the filter program for rules. Past the architecture's checks, it searches the
// numbers as a binary tree of ranges (a few comparisons where a chain takes one per rule), each
// range decided by one leaf: a number's rules, a run of numbers refused alike, or a gap allowed.
// A filter's cost at install is the kernel's checking, converting and compiling it, and its
// emulation of it for every system call number, to cache the ones it allows whatever the
// arguments: for the read-only profile's hundred rules, a chain made that most of the launch's
// seccomp cost, and a leaf per number (jeq, the rule, two allows) twice the ranges' 261
// instructions. Rules of one number keep their order.
func Assemble(arch Arch, rules []Rule) ([]Instruction, error) {
	for _, r := range rules {
		if r.Notify != (r.Errno == 0) || r.Errno > 0xfff {
			return nil, fmt.Errorf("seccomp rule %s: errno %d out of range", r.Name, r.Errno)
		}
		if r.Nr < 0 {
			return nil, fmt.Errorf("seccomp rule %s: number %d", r.Name, r.Nr)
		}
	}
	// The rules by number, in their order within each: the leaves of the search. A launch
	// assembles this in a process just started, where every allocation is fresh memory to
	// fault in: the rules are copied once, and the leaves share one buffer.
	sorted := slices.Clone(rules)
	slices.SortStableFunc(sorted, func(a, b Rule) int { return cmp.Compare(a.Nr, b.Nr) })
	for _, r := range sorted {
		for _, c := range r.When {
			switch {
			case c.Arg < 0 || c.Arg > 5:
				return nil, fmt.Errorf("seccomp rule %s: argument %d", r.Name, c.Arg)
			case c.Op < In || c.Op > NonZero64:
				return nil, fmt.Errorf("seccomp rule %s: unknown op %d", r.Name, c.Op)
			case c.Op == In && len(c.Values) > 255:
				return nil, fmt.Errorf("seccomp rule %s: %d values", r.Name, len(c.Values))
			}
		}
	}
	// The leaves of the search: each a range of numbers one block decides, assembled first, so
	// that the search's jumps are counted from the code itself.
	segs := segments(sorted)
	leaves := make([][]Instruction, len(segs))
	code := make([]Instruction, 0, 4*len(sorted)+2*len(segs))
	n := 4
	for i, sg := range segs {
		start := len(code)
		var err error
		if code, err = leaf(code, sg.rules); err != nil {
			return nil, err
		}
		leaves[i] = code[start:len(code):len(code)]
		n += len(leaves[i]) + 2 // and at most a jge and a ja above it
	}
	if arch.MaxNr != 0 {
		n += 2
	}
	if n > 4096 {
		return nil, fmt.Errorf("seccomp: a program of up to %d instructions is too long", n)
	}
	prog := make([]Instruction, 0, n)
	prog = append(prog,
		Instruction{Code: ldAbsW, K: offArch},
		Instruction{Code: jeqK, K: arch.Audit, JT: 1},
		Instruction{Code: retK, K: retKillProcess},
		Instruction{Code: ldAbsW, K: offNr})
	if arch.MaxNr != 0 {
		prog = append(prog, Instruction{Code: jgeK, K: arch.MaxNr, JF: 1}, Instruction{Code: retK, K: retErrno | uint32(syscall.EPERM)})
	}
	return search(prog, segs, leaves), nil
}

// segment is the numbers from lo up to the next segment's lo, which one block decides: rules,
// the rules of a single number, or of a run of numbers that one rule each refuses alike; or,
// with none, allowed.
type segment struct {
	lo    uint32
	rules []Rule
}

// segments are the numbers from 0 up as the ranges of sorted's rules (sorted by number, each
// number's in their order) and the allowed gaps between them. Neighbouring numbers that one
// unconditional rule each refuses with the same action are one range: the read-only profile
// refuses runs of them (mount, umount2, swapon, swapoff, reboot, …), and each range costs the
// program two instructions, which the kernel converts and compiles on every install.
func segments(sorted []Rule) []segment {
	segs := make([]segment, 0, 2*len(sorted)+1)
	next := uint32(0) // the lowest number no segment holds yet
	for i := 0; i < len(sorted); {
		j := i + 1
		for j < len(sorted) && sorted[j].Nr == sorted[i].Nr {
			j++
		}
		g := sorted[i:j:j] // the number's rules
		i = j
		nr := uint32(g[0].Nr)
		switch {
		case nr > next:
			segs = append(segs, segment{lo: next}) // the gap, allowed
		case len(segs) > 0 && alike(segs[len(segs)-1].rules, g):
			next = nr + 1 // the run goes on
			continue
		}
		segs = append(segs, segment{lo: nr, rules: g})
		next = nr + 1
	}
	return append(segs, segment{lo: next}) // every number above the last rule's
}

// alike says whether a and b are each one unconditional rule with the same action.
func alike(a, b []Rule) bool {
	return len(a) == 1 && len(b) == 1 && len(a[0].When) == 0 && len(b[0].When) == 0 &&
		a[0].Errno == b[0].Errno && a[0].Notify == b[0].Notify
}

// search appends the part of the program that finds the segment of the number in the
// accumulator: halves compared with jge down to one segment, whose leaf follows. Each part ends
// only in returns.
func search(prog []Instruction, segs []segment, leaves [][]Instruction) []Instruction {
	if len(segs) == 1 {
		return append(prog, leaves[0]...)
	}
	mid := len(segs) / 2
	split := Instruction{Code: jgeK, K: segs[mid].lo}
	if below := searchLen(leaves[:mid]); below <= 255 {
		split.JT = uint8(below)
		prog = append(prog, split)
	} else {
		split.JF = 1 // a jump over more than a conditional jump reaches: through ja
		prog = append(prog, split, Instruction{Code: jaK, K: uint32(below)})
	}
	prog = search(prog, segs[:mid], leaves[:mid])
	return search(prog, segs[mid:], leaves[mid:])
}

// searchLen is how many instructions search appends for the segments of leaves.
func searchLen(leaves [][]Instruction) int {
	if len(leaves) == 1 {
		return len(leaves[0])
	}
	below := searchLen(leaves[:len(leaves)/2])
	n := 1 + below + searchLen(leaves[len(leaves)/2:])
	if below > 255 {
		n++
	}
	return n
}

// leaf appends to prog the block that decides a segment's numbers: its rules, tried in order,
// the first whose conditions hold returning its action, and the call allowed if none does. The
// search reaches it only with a number of the segment, so it need not test the number again.
// Each rule's jumps go forward within the rule, to the end of a condition that holds or to the
// next rule, so they are counted here rather than resolved from labels (a launch assembles
// this).
func leaf(prog []Instruction, rules []Rule) ([]Instruction, error) {
	var buf [16]int
	ends := buf[:0] // where each instruction that jumps to the next rule is
	for _, r := range rules {
		start := len(prog)
		ends = ends[:0]
		for _, c := range r.When {
			lo := uint32(offArgs + 8*c.Arg) // little-endian: the low word comes first
			prog = append(prog, Instruction{Code: ldAbsW, K: lo})
			if c.Mask != 0 && c.Mask != ^uint32(0) && c.Op != NonZero64 {
				prog = append(prog, Instruction{Code: andK, K: c.Mask})
			}
			switch c.Op {
			case In: // a value holds: past the ja that goes to the next rule
				for i, v := range c.Values {
					prog = append(prog, Instruction{Code: jeqK, K: v, JT: uint8(len(c.Values) - i)})
				}
				ends = append(ends, len(prog))
				prog = append(prog, Instruction{Code: jaK})
			case NotIn:
				for _, v := range c.Values {
					ends = append(ends, len(prog))
					prog = append(prog, Instruction{Code: jeqK, K: v})
				}
			case NonZero:
				ends = append(ends, len(prog))
				prog = append(prog, Instruction{Code: jeqK, K: 0})
			case NonZero64: // the low word not zero holds; else the high word decides
				prog = append(prog, Instruction{Code: jeqK, K: 0, JF: 2})
				prog = append(prog, Instruction{Code: ldAbsW, K: lo + 4})
				ends = append(ends, len(prog))
				prog = append(prog, Instruction{Code: jeqK, K: 0})
			}
		}
		if r.Notify {
			prog = append(prog, Instruction{Code: retK, K: retUserNotif})
		} else {
			prog = append(prog, Instruction{Code: retK, K: retErrno | uint32(r.Errno)})
		}
		if len(r.When) == 0 {
			return prog, nil // the rules after it are never reached
		}
		next := len(prog)
		for _, at := range ends {
			d := next - at - 1
			if prog[at].Code == jaK {
				prog[at].K = uint32(d)
				continue
			}
			if d > 255 {
				return nil, fmt.Errorf("seccomp rule %s: a rule of %d instructions is too long", r.Name, next-start)
			}
			prog[at].JT = uint8(d)
		}
	}
	return append(prog, Instruction{Code: retK, K: retAllow}), nil
}
