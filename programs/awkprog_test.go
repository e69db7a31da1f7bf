//go:build linux

package programs

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hookctl/hookctl/internal/testrows"
)

// awkRow is one program and, for a refused one, the phrase its refusal must contain.
type awkRow struct {
	src string
	why string
}

func prog(src string) awkRow { return awkRow{src: src} }

func (x awkRow) because(phrase string) awkRow {
	x.why = phrase
	return x
}

// checkAwkRows judges every program with checkAwkProgram and reports every miss.
func checkAwkRows(t *testing.T, wantAllow bool, rows ...awkRow) {
	t.Helper()
	for _, x := range rows {
		if testrows.Twice(t, x.src) {
			t.Errorf("duplicate row: %q", x.src)
			continue
		}
		err := checkAwkProgram(x.src)
		switch {
		case wantAllow && err != nil:
			t.Errorf("%q: refused (%v), want admitted", x.src, err)
		case wantAllow:
		case x.why == "":
			t.Errorf("%q: a hostile row must name the phrase its refusal contains", x.src)
		case err == nil:
			t.Errorf("%q: ADMITTED, want refused because %q", x.src, x.why)
		case !strings.Contains(err.Error(), x.why):
			t.Errorf("%q: refused for another reason: %q, want it to say %q", x.src, err, x.why)
		}
	}
}

// awkAdmitted are programs agents write that only read and print, each admitted. They seed
// FuzzAwkProgram, which runs them under every installed awk.
var awkAdmitted = []awkRow{
	prog(`{print $1}`),
	prog(`NR<=10`),
	prog(`NF`),
	prog(`END {print NR}`),
	prog(`{s += $2} END {print s / NR}`),
	prog(`{print $1 / 2}`),
	prog(`/^#/ {next} {print}`),
	prog(`$0 ~ /a|b/`), // | inside a regular expression is data
	prog(`!/^$/`),
	prog(`{ gsub(/a\/b/, "x"); print }`),
	prog(`BEGIN { FS = ":" } { print $1 }`),
	prog(`{ a[$1]++ } END { for (k in a) print k, a[k] }`),
	prog(`{ printf "%s %d\n", $1, $2 }`),
	prog(`{ printf("%-10s|\n", $1) }`), // | inside a string is data
	prog(`length($0) > 80`),
	prog(`{ print length($0), length }`),
	prog(`{ print substr($0, 1, 10) }`),
	prog(`{ if ($3 > 100) print $1; else print "small" }`), // > in a condition compares
	prog(`NR == 1, NR == 5`),
	prog(`function f(x) { return x * 2 } { print f($1) }`),
	prog(`{ print ($1 > $2) }`),                 // compares in every awk (scratch run: no file)
	prog(`{ print ($1) ($2 > "x") }`),           // compares in every awk (scratch run: no file x)
	prog(`{ printf("%s\n", $1 > "x") }`),        // compares in every awk (scratch run: no file x)
	prog(`/a/ > "x"`),                           // a pattern: ($0 ~ /a/) > "x" compares
	prog(`$1 > "x" { print }`),                  // a pattern compares
	prog(`/[[:space:]]+$/`),                     // a character class inside brackets
	prog(`/[^ \t]+/ { n++ } END { print n+0 }`), // an escape inside brackets
	prog(`{ print toupper($0) }`),
	prog("# a comment\n{ print }"),
	prog(`{ print } # system("id") in a comment`),
	prog(`BEGIN { x = "a\"b"; print x }`),
	prog(`BEGIN { x = "a\\"; print x }`),
	prog(`BEGIN { print "system(\"id\") | getline" }`), // names inside a string are data
	prog(`{ print $NF }`),
	prog(`{ $1 = ""; print }`),
	prog(`{ print $(NF-1) }`),
	prog(`NR % 2 == 0`),
	prog(`{ x = $1 ~ /re/ ? "y" : "n"; print x }`),
	prog(`{ for (i = NF; i > 0; i--) printf "%s ", $i; print "" }`),
	prog(`{ while (i < 3) i++; print i }`),
	prog(`0 || 1`),
	prog(`{ if ($1 || $2) print }`),
	prog(`{ n = split($0, p, /,/); print n, p[1] }`),
	prog("{ print 1 }\n/x/ { print 2 }"), // a regexp after a line break after }
	prog("BEGIN {\n  n = 0\n}\n{ n++ }\nEND { print n }"),
	prog(`{ print NR /"2"/ 1 }`),  // a division by a string in every awk: /"2"/ is no regexp after NR
	prog(`{ print 1e3, .5, 10 }`), // numbers
	prog(`{ print -$1, !$2 }`),
	prog(`{ print $1 \
  $2 }`), // a continuation
	prog(`BEGIN { printf "%d%%\n", 50 }`),
	prog(`{ print "✓ " $1 " → " $2 }`), // UTF-8 in strings
	prog(`{ sub(/^[ ]+/, ""); print }`),
	prog(`END { print (NR > 0 ? "some" : "none") }`),
}

// TestAwkProgramChecker: the checker admits programs that read and print, and refuses every
// program that runs a command, writes a file or reads one no operand named, and every form where
// the four awks could read the tokens differently. Where a row claims how the awks behave, it was
// run in a scratch directory under gawk 5.2, mawk 1.3.4, BWK awk 20220912 and BusyBox 1.35.
func TestAwkProgramChecker(t *testing.T) {
	checkAwkRows(t, true, awkAdmitted...)
	checkAwkRows(t, false, awkRefused...)
	// Pieces (gawk -e): a function one piece defines may be called in another, but only there.
	if err := checkAwkProgram("function f(x) { return x }", "{ print f($1) }"); err != nil {
		t.Errorf("a function from another piece: refused: %v", err)
	}
	if err := checkAwkProgram("{ print f($1) }"); err == nil || !strings.Contains(err.Error(), "calls `f`") {
		t.Errorf("an undefined function: %v, want it refused", err)
	}
	if err := checkAwkProgram("BEGIN {", "print 1 }"); err == nil {
		t.Errorf("a rule split over two pieces: admitted, want refused (gawk wants each piece whole)")
	}
}

// awkRefused are hostile programs and forms the awks read differently, each refused with its
// reason. They seed FuzzAwkProgram.
var awkRefused = []awkRow{
	// Running commands.
	prog(`BEGIN{system("touch x")}`).because("runs a command"),
	prog(`BEGIN { system ("id") }`).because("runs a command"), // a builtin may take a space
	prog(`{print | "sh"}`).because("pipes to or from a command"),
	prog(`{print |"sh"}`).because("pipes to or from a command"),
	prog(`{print |& "sh"}`).because("pipes to or from a command"), // a gawk coprocess
	prog(`BEGIN{while(("id"|getline l)>0)print l}`).because("pipes to or from a command"),
	prog(`BEGIN { "id" | getline; print }`).because("pipes to or from a command"),
	prog(`BEGIN { print 1 ||| "sh" }`).because("pipes to or from a command"), // || then |
	prog(`BEGIN{f="system"; @f("id")}`).because("calls a function by name"),  // gawk indirect call
	prog(`BEGIN { print awk::system("id") }`).because("namespace"),           // gawk namespaces
	prog(`function system() { }`).because("runs a command"),
	prog(`BEGIN { PROCINFO["sorted_in"] = "f" }`).because("call functions by name"),
	// Writing files.
	prog(`{print > "x"}`).because("redirects print to a file"),
	prog(`{print >"x"}`).because("redirects print to a file"),
	prog(`{print >> "x"}`).because("redirects print to a file"),
	prog(`{printf "%s", $0 > "/dev/stderr"}`).because("redirects print to a file"),
	prog(`{printf("%s", $1) > "out"}`).because("redirects print to a file"),
	prog(`{ print $1, $2 > $3 }`).because("redirects print to a file"),
	prog(`{ print (1,2) > "x" }`).because("redirects print to a file"), // scratch run: writes x
	prog(`1; {print >"x"}`).because("redirects print to a file"),
	prog(`{ print } { print > "x" }`).because("redirects print to a file"),
	prog("{ print \\\n> \"x\" }").because("redirects print to a file"), // a continuation before >
	prog(`{ print 0 >= 1 }`).because("redirects print to a file"),      // BusyBox reads >= there as >
	prog(`{ x = $1 > 2 }`).because("redirects print to a file"),        // a comparison outside parentheses: refused, simply
	prog(`function f() { print > "x" } { f() }`).because("redirects print to a file"),
	prog(`BEGIN { for (print "a" > "f"; 0; ) ; }`).because("inside parentheses"), // gawk and BWK awk write f
	prog(`BEGIN { for (printf "a" > "f"; 0; ) ; }`).because("inside parentheses"),
	prog(`BEGIN { x = (print) }`).because("inside parentheses"),
	prog(`print > "x"`).because("outside an action"),
	prog(`BEGIN { close("x"); fflush() }`).because("closes a file"),
	prog(`BEGIN { fflush() }`).because("flushes a file"),
	// Reading what no operand named.
	prog(`BEGIN{getline l < ".env"; print l}`).because("reads from a file"),
	prog(`{ getline; print }`).because("reads from a file"),
	prog(`BEGIN{print ENVIRON["GITHUB_TOKEN"]}`).because("reads the environment"),
	prog(`BEGIN{ARGV[1]=".env"} {print}`).because("read files the gate never saw"),
	prog(`BEGIN{ARGC=3} {print}`).because("read files the gate never saw"),
	prog(`BEGIN { print SYMTAB["ENVIRON"]["HOME"] }`).because("reaches every variable"),
	prog(`BEGIN { for (f in FUNCTAB) print f }`).because("indirect calls"),
	prog(`BEGIN { bindtextdomain("/tmp"); print dcgettext("x") }`).because("message catalogs"),
	prog(`@include "x.awk"`).because("includes or loads code"),
	prog(`@load "filefuncs"`).because("includes or loads code"),
	prog(`@namespace "x"`).because("includes or loads code"),
	prog(`BEGIN { print @/re/ }`).because("includes or loads code"), // a gawk typed regexp
	// Calls of what the checker cannot see.
	prog(`{ foo($1) }`).because("calls `foo`"),
	prog(`{ x (1) }`).because("calls `x`"),
	prog(`{ delete(a) }`).because("keyword `delete` before `(`"),
	// A `/` the awks read differently: a regexp to some, a division to others. The hostile
	// form hides a command in what one awk reads as a regexp and another as code.
	prog(`{ if ($1) /"/; system("id"); x = "/ }`).because("a `/` after `)`"),
	prog(`{ if ($1) /x/ }`).because("a `/` after `)`"),
	prog(`{ while (0) /x/ }`).because("a `/` after `)`"),
	prog(`{ x++ /2/ 1 }`).because("a `/` after `++`"), // mawk: a regexp; the others: division
	prog(`{ x-- /2/ 1 }`).because("a `/` after `--`"),
	prog(`{ print length /2/ 1 }`).because("a `/` after `length`"), // mawk: a regexp; gawk: division
	prog(`{ case /x/ }`).because("a `/` after `case`"),             // a gawk keyword, a mawk variable
	prog("NR == 1\n/x/").because("a line break after `1`"),
	prog(`{ print 1 /="/; y = 2 }`).because("`/=`"), // gawk reads /=.../ after 1 as a regexp
	prog(`{ a /= 2 }`).because("`/=`"),
	prog(`/[/]/`).because("inside [...]"),           // gawk: a bracket holding /; the others end at its /
	prog(`/[]/]/`).because("starting with `]`"),     // gawk reads ] first in a bracket as a member
	prog(`/[\]/]/`).because("backslash before `]`"), // escaped or not, by awk
	prog(`/[[/]/`).because("must open a character class"),
	prog(`/[[:a/b:]]/`).because("must open a character class"),
	prog(`/[a`).because("not closed"),
	// Comments, strings and lines that could hide code from one reader.
	prog("{ print } # \\\nsystem(\"id\")").because("a comment ends in `\\`"),
	prog("BEGIN { x = \"a\nb\" }").because("runs past the end of a line"),
	prog("BEGIN { x = \"a\\\nb\" }").because("backslash at the end of a line"),
	prog("/a\nb/").because("runs past the end of a line"),
	prog("/a\\\nb/").because("backslash at the end of a line"),
	prog(`BEGIN { x = "\\"; system("id") }`).because("runs a command"),                   // \\ ends with the string
	prog("BEGIN { x = \"\xa9\\\"; system(\"id\"); y = \"\" }").because("non-ASCII byte"), // GBK: \xa9\\ is one character, so the string ends
	prog("/\xa9[/").because("non-ASCII byte"),
	prog("{ print \"é\\n\" }").because("non-ASCII byte"), // refused too: write "é" "\n"
	prog(`BEGIN { x = "abc`).because("not closed"),
	prog(`BEGIN { x = "abc\`).because("backslash at the end"),
	prog(`/abc`).because("not closed"),
	prog(`{ print 0x1A }`).because("runs on into `x`"), // gawk: 26; mawk: 0 then x1A
	prog(`{ print 1.2.3 }`).because("runs on into `.`"),
	prog("{ print }\r").because("does not read"),
	prog("{ print é }").because("does not read"),
	prog("{ print `id` }").because("does not read"),
	prog(`{ print 'x' }`).because("does not read"),
	prog(`{ print $1 & $2 }`).because("does not read"),
	prog(`{ print \x }`).because("does not read"),
	// Structure.
	prog(`{ print $1 }}`).because("without its `{`"),
	prog(`{ print (1 }`).because("without its `{`"),
	prog(`{ print 1) }`).because("without its `(`"),
	prog(`{ print 1`).because("unclosed `{`"),
	prog(`{ x = (1`).because("unclosed"),
	prog(`BEGIN { x = ({ }) }`).because("inside parentheses"),
}

// TestAwkRefusedNamesMatchGawk: every awk builtin the checker lets a program call is one of
// gawk's, mawk's, BWK awk's or BusyBox's computing builtins; the names it refuses are none of
// them. A name in both lists would be a contradiction the scan resolves by refusing; this keeps
// the tables honest.
func TestAwkRefusedNamesMatchGawk(t *testing.T) {
	for _, r := range awkRefusedNames {
		if strings.Contains(" "+awkBuiltins+" ", " "+r.Name+" ") || strings.Contains(" "+awkKeywords+" ", " "+r.Name+" ") {
			t.Errorf("%s is both refused and admitted", r.Name)
		}
	}
	for _, w := range strings.Fields(awkRegexAfter + " " + awkConditionKeywords) {
		if !strings.Contains(" "+awkKeywords+" ", " "+w+" ") {
			t.Errorf("%s is not in awkKeywords", w)
		}
	}
}

// FuzzAwkProgram: the checker never panics, and every program it admits, run by each awk
// installed here (mawk, gawk, BWK awk as original-awk, BusyBox awk) in a scratch directory,
// writes no file, starts no process, opens no socket and reads no file but its input. The
// programs run under strace, which makes every fork, exec and socket fail and logs every
// open: a checker bug shows as a logged attempt, not as a command that ran. As root the awks run
// as nobody (uid 65534), so an open for writing that slips through can write almost nowhere.
func FuzzAwkProgram(f *testing.F) {
	for _, x := range append(slices.Clone(awkAdmitted), awkRefused...) {
		f.Add(x.src)
	}
	runners := awkRunners(f)
	f.Fuzz(func(t *testing.T, src string) {
		if checkAwkProgram(src) != nil || len(src) > 4096 {
			return
		}
		// The awks run side by side, each for at most a second: an admitted program may loop
		// forever, and the fuzzing engine takes an input that runs for 10s for a hang.
		type result struct {
			findings []string
			err      error
		}
		results := make([]result, len(runners))
		var wg sync.WaitGroup
		for i, r := range runners {
			wg.Add(1)
			go func() {
				defer wg.Done()
				results[i].findings, results[i].err = awkTraced(r, src)
			}()
		}
		wg.Wait()
		for i, res := range results {
			if res.err != nil {
				t.Fatalf("%s %q: %v", runners[i][0], src, res.err)
			}
			for _, f := range res.findings {
				t.Errorf("%s %q was admitted and %s", runners[i][0], src, f)
			}
		}
	})
}

// awkRunners lists the awks installed here as argv prefixes, or none when strace is missing.
// Under HOOKCTL_REQUIRE_ALL=1 (CI, whose .ci/run installs them) every awk and strace must be
// there: a checker that four awks must agree with is tested against all four.
func awkRunners(tb testing.TB) [][]string {
	var out [][]string
	var missing []string
	for _, argv := range [][]string{{"mawk"}, {"gawk"}, {"original-awk"}, {"busybox", "awk"}} {
		if p, err := exec.LookPath(argv[0]); err == nil {
			out = append(out, append([]string{p}, argv[1:]...))
		} else {
			missing = append(missing, argv[0])
		}
	}
	if _, err := exec.LookPath("strace"); err != nil {
		missing, out = append(missing, "strace"), nil
	}
	switch {
	case len(missing) > 0 && os.Getenv("HOOKCTL_REQUIRE_ALL") == "1":
		tb.Fatalf("%s not installed: the awk checker's admitted programs are not run under every awk (HOOKCTL_REQUIRE_ALL=1)", strings.Join(missing, ", "))
	case len(missing) > 0:
		tb.Logf("%s not installed: the admitted programs run under %d awks", strings.Join(missing, ", "), len(out))
	}
	return out
}

// straceCall matches a logged system call: PID NAME(ARGS) = RESULT.
var straceCall = regexp.MustCompile(`^\d+\s+(\w+)\((.*)$`)

// awkTraced runs src under the awk argv in a fresh scratch directory and returns every sign
// that it did more than read in.txt and print: a second exec, a fork, a socket, an open for
// writing, an open of secret.txt, a change to the file system, a file left behind.
func awkTraced(argv []string, src string) (findings []string, err error) {
	findings, err = awkTracedFor(argv, src, time.Second)
	if errors.Is(err, errNotStarted) {
		// On a loaded machine the deadline can pass before strace has opened its log: nothing
		// ran, so nothing was observed. Once more with time to start; a second miss is a failure.
		findings, err = awkTracedFor(argv, src, 5*time.Second)
	}
	return findings, err
}

// errNotStarted: the deadline passed before strace wrote its log.
var errNotStarted = errors.New("the deadline passed before strace started")

func awkTracedFor(argv []string, src string, deadline time.Duration) (findings []string, err error) {
	dir, err := os.MkdirTemp("", "awkfuzz")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	work := filepath.Join(dir, "work")
	logFile := filepath.Join(dir, "strace.log")
	if err := os.Mkdir(work, 0o777); err != nil {
		return nil, err
	}
	for _, d := range []string{dir, work} {
		if err := os.Chmod(d, 0o777); err != nil { // nobody writes the log, and would write work
			return nil, err
		}
	}
	files := map[string]string{"in.txt": "a b 3\nc d 200\n\n#x 1\n", "secret.txt": "SECRET\n"}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(work, name), []byte(body), 0o644); err != nil {
			return nil, err
		}
	}
	trace := []string{"-f", "-qq", "-o", logFile,
		"-e", "trace=execve,execveat,fork,vfork,clone,clone3,open,openat,openat2,creat,socket,connect," +
			"mkdir,mkdirat,rename,renameat,renameat2,unlink,unlinkat,link,linkat,symlink,symlinkat",
		"-e", "inject=fork,vfork,clone,clone3,socket,connect:error=EPERM",
		"-e", "inject=execve,execveat:error=EPERM:when=2+",
		"--"}
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	// A program that loops (while(1)) is a read, and runs until killed. The deadline kills it
	// here; a CPU limit kills it too if this process dies first (the fuzz coordinator kills a
	// worker it takes for hung), which would leave strace and its awk orphaned, spinning.
	bounded := append([]string{"-c", `ulimit -t 3 && exec "$@"`, "sh", "strace"}, trace...)
	cmd := exec.CommandContext(ctx, "/bin/sh", append(append(bounded, argv...), src, "in.txt")...)
	cmd.Dir = work
	cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + work, "LC_ALL=C"}
	in, err := os.Open(filepath.Join(work, "in.txt"))
	if err != nil {
		return nil, err
	}
	defer in.Close()
	cmd.Stdin = in
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if os.Geteuid() == 0 {
		cmd.SysProcAttr.Credential = &syscall.Credential{Uid: 65534, Gid: 65534}
	}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) } // strace and its tracee
	cmd.WaitDelay = time.Second
	var out capped // a program that loops may print without end
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) && ctx.Err() == nil {
		return nil, err
	}
	log, err := os.ReadFile(logFile)
	if errors.Is(err, fs.ErrNotExist) && ctx.Err() != nil && deadline < 5*time.Second {
		return nil, errNotStarted
	}
	if err != nil {
		return nil, fmt.Errorf("no strace log: %v (%s)", err, out.b)
	}
	execs := 0
	for _, line := range strings.Split(string(log), "\n") {
		m := straceCall.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		call, args := m[1], m[2]
		bad := ""
		switch call {
		case "execve", "execveat":
			if execs++; execs > 1 {
				bad = "runs a program"
			}
		case "fork", "vfork", "clone", "clone3":
			bad = "starts a process"
		case "socket", "connect":
			bad = "opens a socket"
		case "open", "openat", "openat2", "creat":
			switch {
			case call == "creat" || strings.Contains(args, "O_WRONLY") || strings.Contains(args, "O_RDWR") || strings.Contains(args, "O_CREAT"):
				bad = "opens a file for writing"
			case strings.Contains(args, "secret.txt"):
				bad = "reads a file no operand named"
			}
		default:
			bad = "changes the file system"
		}
		if bad != "" {
			findings = append(findings, bad+": "+line)
		}
	}
	entries, err := os.ReadDir(work)
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		if _, ok := files[e.Name()]; !ok {
			findings = append(findings, "leaves "+e.Name()+" behind")
		}
	}
	return findings, nil
}

// capped keeps the first 4 KiB written to it and discards the rest.
type capped struct{ b []byte }

func (c *capped) Write(p []byte) (int, error) {
	if n := 4096 - len(c.b); n > 0 {
		c.b = append(c.b, p[:min(n, len(p))]...)
	}
	return len(p), nil
}

// TestAwkTraceSeesEscapes keeps FuzzAwkProgram honest: run on programs the checker refuses,
// the traced run reports each escape. Nothing escapes for real: strace makes the fork and the
// socket fail, and the one write lands in the scratch directory.
func TestAwkTraceSeesEscapes(t *testing.T) {
	runners := awkRunners(t)
	cases := []struct{ src, want string }{
		{`BEGIN { system("true") }`, "starts a process"},
		{`BEGIN { print "x" > "out" }`, "opens a file for writing"},
		{`BEGIN { print "x" > "out" }`, "leaves out behind"},
		{`BEGIN { while ((getline l < "secret.txt") > 0) print l }`, "reads a file no operand named"},
		{`{ print }`, ""},
	}
	for _, r := range runners {
		for _, c := range cases {
			got, err := awkTraced(r, c.src)
			if err != nil {
				t.Fatalf("%s %q: %v", r[0], c.src, err)
			}
			found := c.want == "" && len(got) == 0
			for _, g := range got {
				found = found || c.want != "" && strings.HasPrefix(g, c.want)
			}
			if !found {
				t.Errorf("%s %q: the trace reports %q, want %q", r[0], c.src, got, c.want)
			}
		}
	}
}
