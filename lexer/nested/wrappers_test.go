package nested

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestWrapperTables builds every wrapper's option table (a malformed or duplicated option
// panics), and checks that no program is listed twice and every entry says what it does.
func TestWrapperTables(t *testing.T) {
	seen := map[string]bool{}
	var check func(w *Wrapper, sub bool)
	check = func(w *Wrapper, sub bool) {
		defer func() {
			if r := recover(); r != nil {
				t.Errorf("%s: %v", w.Names[0], r)
			}
		}()
		w.opts()
		if w.Summary == "" {
			t.Errorf("%s: no summary", w.Names[0])
		}
		for _, n := range w.Names {
			if !sub && seen[n] {
				t.Errorf("%s is listed twice", n)
			}
			seen[n] = true
			if n == "" || strings.ContainsAny(n, "/ ") {
				t.Errorf("%q is not a program's base name", n)
			}
		}
		for _, s := range w.Subcommands {
			check(s, true)
		}
	}
	for _, w := range Wrappers() {
		check(w, false)
	}
	for _, c := range TmuxCommands {
		if len(c.Names) == 0 || strings.Trim(c.Flags+c.Valued, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") != "" {
			t.Errorf("malformed tmux command %v", c)
		}
	}
	if len(seen) < 45 {
		t.Errorf("only %d wrappers: the table has lost entries", len(seen))
	}
}

// peelRow is one argv and where the wrapper table finds its command.
type peelRow struct {
	argv    string // the wrapper and its arguments, split on spaces
	command string // the command's words, space-separated; "" for none
	line    string // a shell line given by an option or after the operands
	unsure  bool   // the table is not confident
	noRun   bool
}

// TestPeel: argv → where the command is, for the parsing forms the table models.
func TestPeel(t *testing.T) {
	rows := []peelRow{
		{argv: "env -i FOO=1 BAR=2 make -j4", command: "make -j4"},
		{argv: "env -u X -C /tmp make", command: "make"},
		{argv: "env A=1 -i make", command: "-i make"}, // an option after NAME=VALUE is the command
		{argv: "env -- -x", command: "-x"},
		{argv: "env --ignore-env make", command: "make"}, // a unique abbreviation
		{argv: "env --frob make", command: "make", unsure: true},
		{argv: "nice -n 5 make", command: "make"},
		{argv: "nice -5 make", command: "make"},
		{argv: "nice --5 make", command: "make"},
		{argv: "nice --adj 3 make", command: "make"},
		{argv: "timeout 5 make test", command: "make test"},
		{argv: "timeout -s KILL -k 1 5 make", command: "make"},
		{argv: "timeout --sig=KILL 5 make", command: "make"},
		{argv: "timeout 5 -s KILL make", command: "-s KILL make"}, // `+`: options end at DURATION
		{argv: "timeout -k1 5 make", command: "make"},
		{argv: "command -v make", noRun: true},
		{argv: "command -p make", command: "make"},
		{argv: "exec -a name make", command: "make"},
		{argv: "stdbuf -oL make", command: "make"},
		{argv: "ionice -c3 -n 2 make", command: "make"},
		{argv: "ionice -p 42", noRun: true},
		{argv: "setsid -fw make", command: "make"},
		{argv: "xargs -0 -n1 -I {} rm {}", command: "rm {}"},
		{argv: "xargs -i rm {}", command: "rm {}"},
		{argv: "flock /tmp/l make", command: "make"},
		{argv: "flock -w 3 /tmp/l make", command: "make"},
		{argv: "flock /tmp/l -c go test", line: "go"},
		{argv: "flock -n /tmp/l --command x", line: "x"},
		{argv: "flock /tmp/l -w 3 make", command: "-w 3 make"}, // flock options come before FILE
		{argv: "flock --weird 3 /tmp/l make", command: "/tmp/l make", unsure: true},
		{argv: "script -qc x /dev/null", line: "x"},
		{argv: "script -q /dev/null -c x", line: "x"}, // permuted
		{argv: "script --command=x -q /dev/null", line: "x"},
		{argv: "script -q /dev/null make", command: "make"}, // BSD script, util-linux 2.40
		{argv: "taskset 1 make", command: "make"},
		{argv: "taskset -c 0 make", command: "make"},
		{argv: "taskset -p 1", noRun: true},
		{argv: "chrt -o 0 make", command: "make"},
		{argv: "chronic -ev make", command: "make"},
		{argv: "unbuffer -p make", command: "make"},
		{argv: "numactl --interleave=all make", command: "make"},
		{argv: "numactl -C 0 -m 0 make", command: "make"},
		{argv: "numactl --show", noRun: true},
		{argv: "strace -f -o /dev/null make", command: "make"},
		{argv: "strace -e trace=file -- make", command: "make"},
		{argv: "ltrace -o x make", command: "make"},
		{argv: "valgrind -q --tool=memcheck --leak-check=full ./a.out x", command: "./a.out x"},
		{argv: "xvfb-run -a -s -screen make", command: "make"},
		{argv: "dbus-run-session -- make", command: "make"},
		{argv: "dbus-run-session --config-file x make", command: "make"},
		{argv: "fakeroot -- make", command: "make"},
		{argv: "unshare -r --net make", command: "make"},
		{argv: "unshare -m/proc/1/ns/mnt make", command: "make"},
		{argv: "nsenter -t 1 -m make", command: "make"},
		{argv: "chroot / make", command: "make"},
		{argv: "chroot --userspec=0:0 / make", command: "make"},
		{argv: "firejail --quiet --private=/tmp --x=y make", command: "make"},
		{argv: "bwrap --ro-bind / / --dev /dev --overlay a b c -- make", command: "make"},
		{argv: "systemd-run --user -p A=b -E X=1 make", command: "make"},
		{argv: "watch -n 1 make", command: "make"},
		{argv: "sg staff make test", command: "make test"},
		{argv: "sg - staff -c x", line: "x"},
		{argv: "entr -rs make", command: "make"},
		{argv: "caffeinate -i -t 60 make", command: "make"},
		{argv: "rlwrap -a -H h make", command: "make"},
		{argv: "rlwrap -a h make", command: "h make"}, // -a takes a value only when attached
		{argv: "parallel -j 2 gzip ::: a", command: "gzip ::: a"},
		{argv: "sudo -u root -E A=1 make", command: "make"},
		{argv: "su - root -c x", line: ""},
		{argv: "busybox rm x", command: "rm x"},
		{argv: "time -o t make", command: "make"},
	}
	for _, r := range rows {
		words := strings.Fields(r.argv)
		w := LookupWrapper(words[0])
		if w == nil {
			t.Errorf("%s: not in the wrapper table", words[0])
			continue
		}
		args := make([]WrapperArg, 0, len(words)-1)
		for _, s := range words[1:] {
			args = append(args, WrapperArg{Value: s})
		}
		p := w.Peel(args)
		var cmd []string
		for _, i := range p.Command {
			cmd = append(cmd, args[i].Value)
		}
		line := ""
		if p.Then >= 0 {
			line = args[p.Then].Value
		}
		for _, o := range p.Option(w.Shell) {
			if o.HasAttached {
				line = o.Attached
			} else if len(o.Values) > 0 {
				line = args[o.Values[0]].Value
			}
		}
		if r.noRun {
			if !p.NoRun {
				t.Errorf("%s: runs %q, want no command", r.argv, cmd)
			}
			continue
		}
		if got := strings.Join(cmd, " "); got != r.command && r.line == "" {
			t.Errorf("%s: command %q, want %q", r.argv, got, r.command)
		}
		if r.line != "" && line != r.line {
			t.Errorf("%s: shell line %q, want %q", r.argv, line, r.line)
		}
		if p.Confident == r.unsure {
			t.Errorf("%s: confident %v, want %v", r.argv, p.Confident, !r.unsure)
		}
	}
}

// TestPeelOpenWord: a word that may begin with `-` where an option could stand makes the
// table unsure from there on.
func TestPeelOpenWord(t *testing.T) {
	w := LookupWrapper("timeout")
	p := w.Peel([]WrapperArg{{Open: true}, {Value: "make"}})
	if p.Confident || p.Unsure != 0 {
		t.Errorf("timeout $X make: confident %v from %d, want unsure from 0", p.Confident, p.Unsure)
	}
}

// TestPeelMatchesRealPrograms runs each installed wrapper on a probe that records its argv and
// checks that the table finds the command the program really ran: the model is the program.
func TestPeelMatchesRealPrograms(t *testing.T) {
	if testing.Short() {
		t.Skip("runs programs")
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "argv")
	probe := filepath.Join(dir, "probe")
	script := "#!/bin/sh\n: > " + out + "\nfor a in \"$@\"; do printf '%s\\n' \"$a\" >> " + out + "; done\n"
	if err := os.WriteFile(probe, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	lock := filepath.Join(dir, "lock")
	cases := [][]string{
		{"env", "-u", "X", "A=1", "probe", "-i"},
		{"env", "A=1", "-i", "probe"},
		{"nice", "-n", "5", "probe", "-n"},
		{"nice", "-5", "probe", "x"},
		{"nice", "--adj", "3", "probe", "y"},
		{"nohup", "probe", "-x"},
		{"timeout", "5", "probe", "-s"},
		{"timeout", "-s", "KILL", "5", "probe", "a"},
		{"timeout", "5", "-s", "KILL", "probe"},
		{"timeout", "--sig=KILL", "5", "probe", "b"},
		{"stdbuf", "-oL", "probe", "-i0"},
		{"setsid", "-w", "probe", "-f"},
		{"flock", lock, "probe", "a"},
		{"flock", "-w", "3", lock, "probe", "-x"},
		{"flock", lock, "-w", "3", "probe"},
		{"taskset", "1", "probe", "-c"},
		{"taskset", "-c", "0", "probe"},
		{"ionice", "-c", "3", "probe", "-c"},
		{"strace", "-f", "-o", "/dev/null", "probe", "-e"},
		{"strace", "-o", "/dev/null", "--", "probe", "x"},
		{"fakeroot", "--", "probe", "-y"},
		{"chronic", "-v", "probe", "z"},
	}
	env := append(os.Environ(), "PATH="+dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	for _, c := range cases {
		if _, err := exec.LookPath(c[0]); err != nil {
			t.Logf("%s is not installed: its rows are not cross-checked", c[0])
			continue
		}
		os.Remove(out)
		cmd := exec.Command(c[0], c[1:]...)
		cmd.Env, cmd.Dir = env, dir
		cmd.Run() // a wrapper that refuses its arguments runs no probe, which is the answer
		got, err := os.ReadFile(out)
		ran := err == nil
		var real []string
		if ran && len(got) > 0 {
			real = strings.Split(strings.TrimSuffix(string(got), "\n"), "\n")
		}
		args := make([]WrapperArg, 0, len(c)-1)
		for _, s := range c[1:] {
			args = append(args, WrapperArg{Value: s})
		}
		p := LookupWrapper(c[0]).Peel(args)
		var model []string
		for _, i := range p.Command {
			model = append(model, args[i].Value)
		}
		modelRuns := len(model) > 0 && model[0] == "probe"
		switch {
		case ran != modelRuns:
			t.Errorf("%q: the program ran the probe: %v; the table's command is %q", c, ran, model)
		case ran && !slices.Equal(real, model[1:]):
			t.Errorf("%q: the probe got %q; the table's command is %q", c, real, model)
		}
	}
}
