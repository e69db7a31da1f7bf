package seccomp

import (
	"encoding/binary"
	"math/rand/v2"
	"slices"
	"syscall"
	"testing"
)

// interpret runs prog as the kernel's classic BPF would, loading words with load, and returns
// the action, or false when load refused a word. It knows only the instructions Assemble emits;
// any other fails the test.
func interpret(t *testing.T, prog []Instruction, load func(off uint32) (uint32, bool)) (uint32, bool) {
	t.Helper()
	var acc uint32
	for pc := 0; pc < len(prog); pc++ {
		in := prog[pc]
		switch in.Code {
		case ldAbsW:
			w, ok := load(in.K)
			if !ok {
				return 0, false
			}
			acc = w
		case andK:
			acc &= in.K
		case jaK:
			pc += int(in.K)
		case jeqK, jgeK:
			hit := acc == in.K
			if in.Code == jgeK {
				hit = acc >= in.K
			}
			if hit {
				pc += int(in.JT)
			} else {
				pc += int(in.JF)
			}
		case retK:
			return in.K, true
		default:
			t.Fatalf("instruction %d: unknown code %#x", pc, in.Code)
		}
	}
	t.Fatal("the program ran off its end")
	return 0, false
}

// run interprets prog on one system call and returns the action.
func run(t *testing.T, prog []Instruction, arch uint32, nr int, args [6]uint64) uint32 {
	t.Helper()
	data := make([]byte, 64)
	binary.LittleEndian.PutUint32(data[0:], uint32(nr))
	binary.LittleEndian.PutUint32(data[4:], arch)
	for i, a := range args {
		binary.LittleEndian.PutUint64(data[16+8*i:], a)
	}
	action, _ := interpret(t, prog, func(off uint32) (uint32, bool) { return binary.LittleEndian.Uint32(data[off:]), true })
	return action
}

const testArch = 0xc000003e

var testRules = []Rule{
	{Name: "connect", Nr: 42, Errno: syscall.EPERM},
	{Name: "socket family", Nr: 41, Errno: syscall.EPERM, When: []Cond{{Arg: 0, Op: NotIn, Values: []uint32{1}}}},
	{Name: "socket type", Nr: 41, Errno: syscall.EPERM, When: []Cond{{Arg: 1, Op: NotIn, Mask: 0xf, Values: []uint32{1, 5}}}},
	{Name: "sendto address", Nr: 44, Errno: syscall.EPERM, When: []Cond{{Arg: 4, Op: NonZero64}}},
	{Name: "ioctl", Nr: 16, Errno: syscall.EPERM, When: []Cond{{Arg: 1, Op: In, Values: []uint32{0x5412, 0x541c}}}},
	{Name: "prlimit other", Nr: 302, Errno: syscall.EPERM, When: []Cond{{Arg: 0, Op: NonZero}, {Arg: 2, Op: NonZero64}}},
	{Name: "clone namespaces", Nr: 56, Errno: syscall.EPERM, When: []Cond{{Arg: 0, Op: NonZero, Mask: 0x10000000}}},
	{Name: "io_uring", Nr: 425, Errno: syscall.ENOSYS},
}

func TestAssembledFilter(t *testing.T) {
	prog, err := Assemble(Arch{Audit: testArch, MaxNr: 0x40000000}, testRules)
	if err != nil {
		t.Fatal(err)
	}
	eperm, enosys := uint32(retErrno|uint32(syscall.EPERM)), uint32(retErrno|uint32(syscall.ENOSYS))
	for _, c := range []struct {
		name string
		arch uint32
		nr   int
		args [6]uint64
		want uint32
	}{
		{"read passes", testArch, 0, [6]uint64{}, retAllow},
		{"connect refused", testArch, 42, [6]uint64{}, eperm},
		{"unix stream socket passes", testArch, 41, [6]uint64{1, 1}, retAllow},
		{"unix stream with CLOEXEC|NONBLOCK passes", testArch, 41, [6]uint64{1, 1 | 0x80000 | 0x800}, retAllow},
		{"unix seqpacket passes", testArch, 41, [6]uint64{1, 5}, retAllow},
		{"unix datagram refused", testArch, 41, [6]uint64{1, 2}, eperm},
		{"inet refused", testArch, 41, [6]uint64{2, 1}, eperm},
		{"inet6 refused", testArch, 41, [6]uint64{10, 2}, eperm},
		{"netlink refused", testArch, 41, [6]uint64{16, 3}, eperm},
		// The kernel reads an int from the low word: high bits set on AF_UNIX are still AF_UNIX
		// to it, so passing is right; high bits cannot disguise AF_INET.
		{"inet with high bits refused", testArch, 41, [6]uint64{1<<32 | 2, 1}, eperm},
		{"sendto without address passes", testArch, 44, [6]uint64{3, 0x1000, 10, 0, 0, 0}, retAllow},
		{"sendto with an address refused", testArch, 44, [6]uint64{3, 0x1000, 10, 0, 0x7ff0, 16}, eperm},
		{"sendto with an address above 4 GiB refused", testArch, 44, [6]uint64{3, 0, 0, 0, 1 << 40, 16}, eperm},
		{"TIOCSTI refused", testArch, 16, [6]uint64{0, 0x5412}, eperm},
		{"TIOCSTI with high bits refused", testArch, 16, [6]uint64{0, 0xffffffff00005412}, eperm},
		{"TIOCLINUX refused", testArch, 16, [6]uint64{0, 0x541c}, eperm},
		{"TCGETS passes", testArch, 16, [6]uint64{0, 0x5401}, retAllow},
		{"own prlimit passes", testArch, 302, [6]uint64{0, 7, 0x1000, 0}, retAllow},
		{"reading another's limit passes", testArch, 302, [6]uint64{1234, 7, 0, 0x1000}, retAllow},
		{"setting another's limit refused", testArch, 302, [6]uint64{1234, 7, 0x1000, 0}, eperm},
		{"plain clone passes", testArch, 56, [6]uint64{0x3d0f00}, retAllow},
		{"clone of a new user namespace refused", testArch, 56, [6]uint64{0x10000000 | 0x11}, eperm},
		{"io_uring ENOSYS", testArch, 425, [6]uint64{}, enosys},
		{"x32 call refused", testArch, 0x40000000 | 42, [6]uint64{}, eperm},
		{"x32 read refused", testArch, 0x40000000, [6]uint64{}, eperm},
		{"a foreign ABI is killed", 0x40000003, 0, [6]uint64{}, retKillProcess},
	} {
		if got := run(t, prog, c.arch, c.nr, c.args); got != c.want {
			t.Errorf("%s: action %#x, want %#x", c.name, got, c.want)
		}
	}
}

func TestAssembleRefusesBadRules(t *testing.T) {
	for _, r := range []Rule{
		{Name: "no errno", Nr: 1},
		{Name: "bad arg", Nr: 1, Errno: syscall.EPERM, When: []Cond{{Arg: 6, Op: NonZero}}},
		{Name: "bad op", Nr: 1, Errno: syscall.EPERM, When: []Cond{{Arg: 0}}},
	} {
		if _, err := Assemble(Arch{Audit: testArch}, []Rule{r}); err == nil {
			t.Errorf("%s: assembled", r.Name)
		}
	}
	many := make([]Rule, 0, 300)
	for i := range 300 {
		many = append(many, Rule{Name: "r", Nr: i, Errno: syscall.EPERM, When: []Cond{{Arg: 0, Op: In, Values: make([]uint32, 20)}}})
	}
	if _, err := Assemble(Arch{Audit: testArch}, many); err == nil {
		t.Error("a program over 4096 instructions assembled")
	}
}

// constAllow follows prog as the kernel does when it installs a filter (seccomp_is_const_allow,
// Linux 5.11): with only the number and the architecture known, it says whether the filter
// allows nr whatever the arguments. For such numbers the kernel caches the answer and never
// runs the filter again, which is why the rules' layout costs nothing on most calls.
func constAllow(t *testing.T, prog []Instruction, arch uint32, nr int) bool {
	t.Helper()
	action, ok := interpret(t, prog, func(off uint32) (uint32, bool) {
		switch off {
		case offNr:
			return uint32(nr), true
		case offArch:
			return arch, true
		}
		return 0, false // an argument: not constant
	})
	return ok && action == retAllow
}

// TestFilterStaysCacheable: every number no rule names is allowed on the number alone, so the
// kernel's cache skips the filter for read, openat, getdents64 and the rest; only the numbers
// whose rules test arguments run it. Loading an argument (or the instruction pointer) before
// the rule's number matched would send every call through the whole chain.
func TestFilterStaysCacheable(t *testing.T) {
	prog, err := Assemble(Arch{Audit: testArch, MaxNr: 0x40000000}, testRules)
	if err != nil {
		t.Fatal(err)
	}
	conditional := map[int]bool{}
	named := map[int]bool{}
	for _, r := range testRules {
		named[r.Nr] = true
		if len(r.When) > 0 {
			conditional[r.Nr] = true
		}
	}
	for nr := range 500 {
		got := constAllow(t, prog, testArch, nr)
		if want := !named[nr]; got != want {
			t.Errorf("number %d: constant allow %v, want %v (conditional %v)", nr, got, want, conditional[nr])
		}
	}
	if constAllow(t, prog, 0x40000003, 0) {
		t.Error("a foreign ABI's call is allowed on the number alone")
	}
}

// decide is what rules decide for a call, read straight from the table: the first rule of the
// call's number whose every condition holds.
func decide(rules []Rule, nr int, args [6]uint64) uint32 {
	for _, r := range rules {
		if r.Nr != nr {
			continue
		}
		holds := true
		for _, c := range r.When {
			w := uint32(args[c.Arg])
			if c.Mask != 0 {
				w &= c.Mask
			}
			switch c.Op {
			case In:
				holds = holds && slices.Contains(c.Values, w)
			case NotIn:
				holds = holds && !slices.Contains(c.Values, w)
			case NonZero:
				holds = holds && w != 0
			case NonZero64:
				holds = holds && args[c.Arg] != 0
			}
		}
		if holds {
			if r.Notify {
				return retUserNotif
			}
			return retErrno | uint32(r.Errno)
		}
	}
	return retAllow
}

// TestSearchIsTheTable: the assembled program (a search tree over ranges of numbers) decides
// every call as the table of rules does, read in order: for every number up to past the last rule's,
// with arguments made of every value the rules name, masked and not, with high bits and
// without. The rules are many and of every kind, so that the tree is deep and some of its jumps
// go through ja (over more than 255 instructions).
func TestSearchIsTheTable(t *testing.T) {
	rng := rand.New(rand.NewPCG(28, 1))
	rules := append([]Rule{}, testRules...)
	for i := range 160 {
		r := Rule{Name: "generated", Nr: rng.IntN(470), Errno: syscall.Errno(1 + rng.IntN(40))}
		if i%17 == 0 {
			r.Errno, r.Notify = 0, true
		}
		for range rng.IntN(3) {
			c := Cond{Arg: rng.IntN(6), Op: Op(1 + rng.IntN(4))}
			if rng.IntN(3) == 0 {
				c.Mask = 0xff
			}
			for range 1 + rng.IntN(4) {
				c.Values = append(c.Values, uint32(rng.IntN(6)))
			}
			r.When = append(r.When, c)
		}
		rules = append(rules, r)
	}
	// Runs of numbers that one unconditional rule each refuses alike, which the program decides
	// as ranges (segments): one broken by a conditional rule, one by another errno, one by a
	// number with two rules, and runs of another errno and of notifications next to them.
	for nr := 480; nr < 560; nr++ {
		r := Rule{Name: "run", Nr: nr, Errno: syscall.EPERM}
		switch {
		case nr == 500:
			r.When = []Cond{{Arg: 0, Op: In, Values: []uint32{1}}}
		case nr == 510:
			r.Errno = syscall.EACCES
		case nr == 520:
			rules = append(rules, Rule{Name: "run, first", Nr: nr, Errno: syscall.EPERM, When: []Cond{{Arg: 1, Op: NonZero}}})
		case nr >= 530 && nr < 540:
			r.Errno = syscall.ENOSYS
		case nr >= 545:
			r.Errno, r.Notify = 0, true
		}
		rules = append(rules, r)
	}
	prog, err := Assemble(Arch{Audit: testArch, MaxNr: 0x40000000}, rules)
	if err != nil {
		t.Fatal(err)
	}
	values := []uint64{0, 1, 2, 3, 4, 5, 6, 0x100, 0x101, 1 << 32, 1<<32 | 2, 0x5412, 0xffffffff00005412, 0x10000011, 0x3d0f00}
	ja := 0
	for _, in := range prog {
		if in.Code == jaK && in.K > 255 {
			ja++
		}
	}
	if ja == 0 {
		t.Errorf("no jump over more than 255 instructions in a program of %d: the test does not reach that case", len(prog))
	}
	for nr := range 570 {
		for i := range 40 {
			var args [6]uint64
			for k := range args {
				args[k] = values[(i*7+k*3+nr)%len(values)]
				if i%5 == 0 {
					args[k] = values[rng.IntN(len(values))]
				}
			}
			if got, want := run(t, prog, testArch, nr, args), decide(rules, nr, args); got != want {
				t.Fatalf("number %d, arguments %#x: action %#x, the table says %#x", nr, args, got, want)
			}
		}
	}
}
