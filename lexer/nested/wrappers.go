package nested

import (
	"strings"
	"sync"

	"github.com/hookctl/hookctl/internal/wordlist"
)

// The programs that run another command, as data: how each one parses its arguments, as far as
// finding that command needs. The edit guard peels them to judge the command inside
// (programs/editguard), the read-only hint names them (policy), and any other judge that must see
// through `timeout 5 CMD` or `flock FILE -c CMD` reads the same table, so that no two judges can
// disagree about where a wrapper's command starts.
//
// Each entry is modelled on the program's real parser, checked against its manual and source
// and, where it is installed, by running it on a probe: GNU getopt_long programs permute
// options past operands unless their option string starts with `+` (or POSIXLY_CORRECT is set)
// and accept unique abbreviations of long options; BSD getopt does not permute; wrappers that
// take a command stop option parsing at its first word. Where the table and a program could
// disagree (an option it does not list, a word that may begin with `-`), Peel says it is not
// confident, and a judge must treat every later word as a possible start of the command.
//
// Test: TestWrapperTables, TestPeel (wrappers_test.go); editguard's TestWrappers.

// wrappers is the table. Each entry's comment names where its parsing was checked.
var wrappers = []*Wrapper{
	// coreutils env: getopt_long "+0C:iS:u:v"; NAME=VALUE words, then the command.
	{Names: []string{"env"}, Summary: "runs a command with a changed environment",
		Flags:    "-i -0 -v --ignore-environment --null --debug --list-signal-handling --help --version",
		Valued:   "-u -C -S -P --unset --chdir --split-string",
		Optional: "--block-signal --default-signal --ignore-signal",
		Abbrev:   true, Assigns: true, NoRun: "--help --version",
		Chdir: "-C --chdir", Unset: "-u --unset", Split: "-S --split-string"},
	// coreutils nice: -NUM (obsolete), then getopt_long "+n:".
	{Names: []string{"nice"}, Summary: "runs a command at another priority",
		Flags: "--help --version", Valued: "-n --adjustment", Abbrev: true, Digits: true, NoRun: "--help --version"},
	{Names: []string{"nohup"}, Summary: "runs a command immune to hangups",
		Flags: "--help --version", Abbrev: true, NoRun: "--help --version"},
	// coreutils timeout: getopt_long "+k:s:v"; DURATION, then the command.
	{Names: []string{"timeout"}, Summary: "runs a command with a time limit",
		Flags:  "-v --verbose --preserve-status --foreground --help --version",
		Valued: "-k -s --kill-after --signal", Abbrev: true, Operands: 1, NoRun: "--help --version"},
	// GNU time: getopt_long "+o:f:apqvV". (Bash's `time` keyword is a TimeClause, not a call.)
	{Names: []string{"time"}, Summary: "times a command",
		Flags:  "-a -p -q -v -V --append --portability --quiet --verbose --version --help",
		Valued: "-o -f --output --format", Abbrev: true, Writes: "-o --output", NoRun: "-V --version --help"},
	// bash builtins.
	{Names: []string{"command"}, Summary: "runs a command, bypassing functions",
		Flags: "-p -v -V", NoRun: "-v -V"},
	{Names: []string{"builtin"}, Summary: "runs a shell builtin"},
	{Names: []string{"exec"}, Summary: "replaces the shell with a command",
		Flags: "-c -l", Valued: "-a"},
	// coreutils stdbuf: getopt_long "+i:o:e:".
	{Names: []string{"stdbuf"}, Summary: "runs a command with other stream buffering",
		Flags: "--help --version", Valued: "-i -o -e --input --output --error", Abbrev: true, NoRun: "--help --version"},
	// util-linux ionice: "+n:c:p:P:u:tVh"; with -p, -P or -u the operands are ids.
	{Names: []string{"ionice"}, Summary: "runs a command at another I/O priority",
		Flags:  "-t -h -V --ignore --help --version",
		Valued: "-c -n -p -P -u --class --classdata --pid --pgid --uid", Abbrev: true,
		NoRun: "-p -P -u --pid --pgid --uid -h -V --help --version"},
	// util-linux setsid: "+cfwhV".
	{Names: []string{"setsid"}, Summary: "runs a command in a new session",
		Flags: "-c -f -w -h -V --ctty --fork --wait --help --version", Abbrev: true, NoRun: "-h -V --help --version"},
	{Names: []string{"busybox", "toybox"}, Summary: "runs one of its built-in programs",
		Flags: "--list --list-full --install --help", NoRun: "--list --list-full --install --help"},
	// sudo: getopt_long "+"; doas: BSD getopt. Refused by the privilege rule whatever follows.
	{Names: []string{"sudo"}, Summary: "runs a command as another user",
		Flags: "-A -b -B -E -e -H -i -K -k -l -N -n -P -S -s -V -v --askpass --background --bell --edit --help " +
			"--set-home --login --remove-timestamp --reset-timestamp --list --no-update --non-interactive " +
			"--preserve-groups --stdin --shell --validate --version",
		Valued: "-C -D -g -h -p -R -r -t -T -U -u --close-from --chdir --group --host --prompt --chroot --role " +
			"--type --command-timeout --other-user --user",
		Optional: "--preserve-env", Abbrev: true, Assigns: true, Privileged: true,
		NoRun: "-e -K -k -l -V -v --edit --remove-timestamp --reset-timestamp --list --validate --version --help"},
	{Names: []string{"doas"}, Summary: "runs a command as another user",
		Flags: "-L -n -s", Valued: "-C -u", Privileged: true, NoRun: "-L -C"},
	// util-linux su and runuser: getopt_long, permuted; USER (or runuser -u USER), then arguments
	// for the shell or the command. Refused by the privilege rule whatever follows.
	{Names: []string{"su"}, Summary: "runs a shell as another user",
		Flags: "-f -l -m -p -P -h -V --fast --login --preserve-environment --pty --help --version",
		Valued: "-c -C -g -G -s -w --command --session-command --group --supp-group --shell " +
			"--whitelist-environment",
		Abbrev: true, Permute: true, Login: true, Operands: 1, OperandsOptional: true,
		Shell: "-c -C --command --session-command", Privileged: true, NoRun: "-h -V --help --version"},
	{Names: []string{"runuser"}, Summary: "runs a command as another user",
		Flags: "-f -l -m -p -P -h -V --fast --login --preserve-environment --pty --help --version",
		Valued: "-c -C -g -G -s -u -w --command --session-command --group --supp-group --shell --user " +
			"--whitelist-environment",
		Abbrev: true, Permute: true, Login: true, Operands: 1, OperandsOptional: true,
		Shell: "-c -C --command --session-command", Privileged: true, NoRun: "-h -V --help --version"},
	// shadow sg: `sg [-] GROUP [-c] COMMAND`: the command is one string for /bin/sh -c.
	{Names: []string{"sg"}, Summary: "runs a command as another group",
		Login: true, Operands: 1, Then: "-c", Joined: true},
	// findutils xargs: getopt_long "+0a:E:e::i::I:l::L:n:prs:txP:d:"; -J REPLSTR is BSD
	// xargs' (macOS), which puts the input where REPLSTR stands.
	{Names: []string{"xargs"}, Summary: "runs a command with operands read from its input",
		Flags: "-0 -p -r -t -x --null --interactive --no-run-if-empty --verbose --exit --open-tty --show-limits " +
			"--help --version",
		Valued: "-a -E -I -J -L -n -P -s -d --arg-file --delimiter --max-args --max-procs --max-chars " +
			"--process-slot-var",
		Optional: "-e -i -l --eof --replace --max-lines",
		Abbrev:   true, Input: true, Default: "echo", Replace: "-I -J", ReplaceBraces: "-i --replace",
		NoRun: "--help --version --show-limits"},
	// GNU parallel (and sem, which is parallel --semaphore): Getopt::Long, bundling and
	// require_order; the command is a shell line, its inputs follow :::.
	{Names: []string{"parallel", "sem"}, Summary: "runs a shell command line for each input",
		Flags: "-0 -k -q -r -u -v -X -m --null --keep-order --quote --no-run-if-empty --ungroup --line-buffer " +
			"--pipe --eta --progress --bar --dry-run --semaphore --fg --bg --will-cite --xargs --group --plus " +
			"--shuf --tag --verbose --halt-on-error --noswap --citation --version --help --bibtex",
		Valued: "-j -P -n -N -a -d -E -I -S -C --jobs --max-procs --max-args --max-replace-args --arg-file " +
			"--delimiter --sshlogin --sshloginfile --colsep --joblog --results --res --tmpdir --workdir --wd " +
			"--timeout --delay --retries --halt --memfree --load --tagstring --basefile --bf --return --env " +
			"--block --recstart --recend --header --nice --id --semaphorename --jobslot",
		Abbrev: true, Joined: true, Input: true, Separators: "::: :::: :::+ ::::+",
		NoRun: "--version --help --citation --bibtex"},
	// procps watch: getopt_long "+bced::ghq:n:prtvwx"; the command is joined for sh -c, unless -x.
	{Names: []string{"watch"}, Summary: "runs a command again and again",
		Flags: "-b -c -e -g -h -p -r -t -v -w -x --beep --color --no-color --errexit --chgexit --precise " +
			"--no-rerun --no-title --no-wrap --exec --help --version",
		Valued: "-n -q --interval --equexit", Optional: "-d --differences",
		Abbrev: true, Joined: true, Exec: "-x --exec", NoRun: "-h -v --help --version"},
	// find: the primaries that run a command; the guard reads find's expression itself.
	{Names: []string{"find"}, Summary: "runs a command for each file found",
		Language: "find", Exprs: "-exec -execdir -ok -okdir"},
	// util-linux script: getopt_long, permuted; [FILE] (the typescript, written), -c COMMAND;
	// BSD script and util-linux 2.40 run the words after FILE as the command.
	{Names: []string{"script"}, Summary: "runs a command in a terminal and records it",
		Flags:    "-a -e -f -q -h -V --append --return --flush --force --quiet --help --version",
		Valued:   "-B -c -E -I -m -O -o -T -F --log-io --command --echo --log-in --logging-format --log-out --output-limit --log-timing",
		Optional: "-t --timing",
		Abbrev:   true, Permute: true, Operands: 1, WritesOperand: true, Shell: "-c --command",
		Writes: "-B -I -O -T -t --log-io --log-in --log-out --log-timing --timing", NoRun: "-h -V --help --version"},
	// util-linux flock: "+sexnoFuw:E:hV?"; FILE, then a command or `-c COMMAND`.
	{Names: []string{"flock"}, Summary: "runs a command holding a file lock",
		Flags: "-s -e -x -n -o -F -u -h -V --shared --exclusive --nonblock --nb --close --no-fork --unlock " +
			"--verbose --help --version",
		Valued: "-w -E --timeout --wait --conflict-exit-code", Abbrev: true, Operands: 1, Then: "-c --command",
		NoRun: "-h -V --help --version"},
	// moreutils chronic: Getopt::Std "hev".
	{Names: []string{"chronic"}, Summary: "runs a command, showing its output only if it fails",
		Flags: "-h -e -v", NoRun: "-h"},
	// expect's unbuffer: a leading -p only.
	{Names: []string{"unbuffer"}, Summary: "runs a command on a pseudo-terminal", Flags: "-p"},
	// util-linux taskset: "+apchV"; MASK, then the command; with -p the operands are a pid.
	{Names: []string{"taskset"}, Summary: "runs a command on chosen CPUs",
		Flags: "-a -p -c -h -V --all-tasks --pid --cpu-list --help --version", Abbrev: true, Operands: 1,
		NoRun: "-p --pid -h -V --help --version"},
	// util-linux chrt: PRIORITY (optional for some policies), then the command.
	{Names: []string{"chrt"}, Summary: "runs a command with another scheduling policy",
		Flags: "-a -b -d -e -f -i -m -o -p -r -R -v -h -V --all-tasks --batch --deadline --ext --fifo --idle " +
			"--max --other --pid --rr --reset-on-fork --verbose --help --version",
		Valued: "-T -P -D --sched-runtime --sched-period --sched-deadline", Abbrev: true,
		Operands: 1, OperandsOptional: true, NoRun: "-m -p --max --pid -h -V --help --version"},
	// numactl: getopt_long with a "+" option string built from its long options.
	{Names: []string{"numactl"}, Summary: "runs a command with a NUMA policy",
		Flags: "-s -l -H -t -d -D -u -T -V -a -b -h --show --localalloc --hardware --strict --dump --dump-nodes " +
			"--huge --touch --verify --all --balancing --help --version",
		Valued: "-i -w -p -P -c -N -C -m -S -f -o -L -M -I --interleave --weighted-interleave --preferred " +
			"--preferred-many --cpubind --cpunodebind --physcpubind --membind --shm --file --offset --length " +
			"--shmmode --shmid",
		Abbrev: true, NoRun: "-s -H --show --hardware -h --help --version"},
	// strace: getopt_long "+"; -o FILE, or -o '|CMD' to pipe the trace to a shell command.
	{Names: []string{"strace"}, Summary: "runs a command and traces its system calls",
		Flags: "-A -c -C -d -D -f -F -h -i -k -n -N -q -r -t -T -v -V -w -x -y -Y -z -Z --summary-only --summary " +
			"--summary-wall-clock --follow-forks --output-separately --stack-trace --instruction-pointer --no-abbrev " +
			"--decode-pids --successful-only --failed-only --seccomp-bpf --kill-on-exit --help --version --debug",
		Valued: "-a -b -e -E -I -o -O -p -P -s -S -u -U -X --output --trace --signal --abbrev --verbose --raw " +
			"--read --write --fault --inject --status --quiet --user --env --attach --columns --const-print-style " +
			"--string-limit --trace-path --summary-columns --summary-sort-by --interruptible --trace-fds --argv0",
		Optional: "--daemonize --syscall-times --absolute-timestamps --relative-timestamps --timestamps " +
			"--strings-in-hex --decode-fds --secontext --tips",
		Abbrev: true, Writes: "-o --output", WritePipes: true, Env: "-E --env", NoRun: "-h -V --help --version"},
	// ltrace: getopt_long "+".
	{Names: []string{"ltrace"}, Summary: "runs a command and traces its library calls",
		Flags:  "-b -c -C -d -f -h -i -L -r -S -t -T -V --demangle --help --version --no-signals",
		Valued: "-a -A -D -e -F -l -n -o -p -s -u -w -x --align --library --output --indent", Abbrev: true,
		Writes: "-o --output", NoRun: "-h -V --help --version"},
	// valgrind: every option is one word, values after =; the first word not starting with -
	// is the program.
	{Names: []string{"valgrind"}, Summary: "runs a program under a checker",
		Flags:    "-q -v -h -d --help --help-debug --version --quiet --verbose",
		Optional: "--tool --log-file --xml-file --log-fd --log-socket --xml --trace-children",
		Attached: true, Writes: "--log-file --xml-file", NoRun: "-h --help --help-debug --version"},
	// perf: global options, then a subcommand; stat, record, trace and ftrace run a command
	// (parse-options: stop at the first operand; long options may be abbreviated).
	{Names: []string{"perf"}, Summary: "runs a command under the profiler",
		Flags:    "-p -v --paginate --no-pager --debug --version --help --list-cmds --list-opts",
		Optional: "--exec-path --html-path --debugfs-dir --buildid-dir", Abbrev: true,
		NoRun:       "--version --help --list-cmds --list-opts",
		Subcommands: []*Wrapper{perfStat, perfRecord, perfTrace, perfFtrace, perfReads}},
	// xvfb-run: getopt --options +ae:f:hn:lp:s:w:.
	{Names: []string{"xvfb-run"}, Summary: "runs a command on a virtual X server",
		Flags:  "-a -h -l --auto-servernum --help --listen-tcp",
		Valued: "-e -f -n -p -s -w --error-file --auth-file --server-num --xauth-protocol --server-args --wait",
		Abbrev: true, Writes: "-e -f --error-file --auth-file", NoRun: "-h --help"},
	// dbus-run-session: its own parser; the first word not starting with -- is the program.
	{Names: []string{"dbus-run-session"}, Summary: "runs a command with its own D-Bus session",
		Flags: "--help --version", Valued: "--config-file --dbus-daemon", NoRun: "--help --version"},
	// fakeroot: getopt "+l:f:i:s:ub:vh" with long forms.
	{Names: []string{"fakeroot"}, Summary: "runs a command that believes it is root",
		Flags: "-u -v -h --unknown-is-real --version --help", Valued: "-l -f -i -s -b --lib --faked --fd-base",
		Abbrev: true, Writes: "-s", NoRun: "-v -h --version --help"},
	// util-linux unshare: getopt_long "+"; namespace files attach only (-m[FILE]).
	{Names: []string{"unshare"}, Summary: "runs a command in new namespaces",
		Flags: "-f -r -c -h -V --fork --map-root-user --map-current-user --map-auto --keep-caps --help --version",
		Valued: "-R -w -S -G -l --propagation --setgroups --root --wd --setuid --setgid --map-user --map-group " +
			"--map-users --map-groups --monotonic --boottime --load-interp",
		Optional: "-m -u -i -n -p -U -C -T --mount --uts --ipc --net --pid --user --cgroup --time --kill-child --mount-proc",
		Abbrev:   true, Chdir: "-w --wd", NoRun: "-h -V --help --version"},
	// util-linux nsenter: getopt_long "+".
	{Names: []string{"nsenter"}, Summary: "runs a command in another process's namespaces",
		Flags:    "-a -F -e -c -Z -h -V --all --no-fork --env --join-cgroup --follow-context --preserve-credentials --user-parent --keep-caps --help --version",
		Valued:   "-t -S -G -W --target --setuid --setgid --wdns",
		Optional: "-m -u -i -n -p -C -U -T -r -w --mount --uts --ipc --net --pid --cgroup --user --time --root --wd",
		Abbrev:   true, NoRun: "-h -V --help --version"},
	// coreutils chroot: getopt_long "+"; NEWROOT, then the command.
	{Names: []string{"chroot"}, Summary: "runs a command with another root directory",
		Flags: "--skip-chdir --help --version", Valued: "--groups --userspec", Abbrev: true, Operands: 1,
		NoRun: "--help --version"},
	// firejail: every option is one word, values after =.
	{Names: []string{"firejail"}, Summary: "runs a command in a sandbox",
		Flags: "--help --version --quiet --noprofile", Attached: true, NoRun: "--help --version"},
	// bubblewrap: long options with a fixed number of values each.
	{Names: []string{"bwrap"}, Summary: "runs a command in a sandbox",
		Flags: "--help --version --level-prefix --unshare-all --share-net --unshare-user --unshare-user-try " +
			"--unshare-ipc --unshare-pid --unshare-net --unshare-uts --unshare-cgroup --unshare-cgroup-try " +
			"--disable-userns --assert-userns-disabled --die-with-parent --as-pid-1 --new-session --clearenv",
		Valued: "--args --argv0 --unsetenv --lock-file --sync-fd --exec-label --file-label --proc --dev --tmpfs " +
			"--mqueue --dir --remount-ro --seccomp --add-seccomp-fd --block-fd --userns-block-fd --info-fd " +
			"--json-status-fd --cap-add --cap-drop --perms --size --uid --gid --hostname --chdir --userns --userns2 " +
			"--pidns --overlay-src --tmp-overlay --ro-overlay",
		Valued2: "--bind --ro-bind --dev-bind --bind-try --ro-bind-try --dev-bind-try --bind-fd --ro-bind-fd " +
			"--symlink --setenv --file --bind-data --ro-bind-data --chmod",
		Valued3: "--overlay",
		Chdir:   "--chdir", Env: "--setenv", Unset: "--unsetenv", Unknowable: "--args", NoRun: "--help --version"},
	// systemd-run: getopt_long "+"; -p Exec*=CMD runs CMD too.
	{Names: []string{"systemd-run"}, Summary: "runs a command as a transient unit",
		Flags: "-h -r -d -t -T -P -q -G -S --help --version --no-ask-password --user --system --scope " +
			"--slice-inherit --no-block --remain-after-exit --wait --send-sighup --same-dir --pty --pty-late --pipe " +
			"--quiet --collect --shell --on-timezone-change --on-clock-change --expand-environment --ignore-failure",
		Valued: "-H -M -u -p -E -C --host --machine --unit --property --description --slice --service-type --uid " +
			"--gid --nice --working-directory --setenv --path-property --socket-property --timer-property " +
			"--on-active --on-boot --on-startup --on-unit-active --on-unit-inactive --on-calendar --capsule --json",
		Abbrev: true, Env: "-E --setenv", ExecProperties: "-p --property", Chdir: "--working-directory",
		ElsewhereUnless: "-d --same-dir", NoRun: "-h --help --version"},
	// tmux and screen read commands of their own language.
	{Names: []string{"tmux"}, Summary: "runs commands in a terminal multiplexer",
		Flags: "-2 -C -D -l -N -u -v -V", Valued: "-c -f -L -S -T", Shell: "-c", NoRun: "-V", Language: "tmux"},
	{Names: []string{"screen"}, Summary: "runs commands in a terminal multiplexer",
		Flags: "-a -A -d -D -f -i -l -L -m -O -q -r -R -U -v -x -X -Q", Valued: "-c -e -h -p -s -S -t -T",
		Words: "-ls -list -wipe -fn -fa -ln", WordsValued: "-Logfile", NoRun: "-v -r -x -ls -list -wipe",
		Language: "screen"},
	// rlwrap: getopt_long "+:a::Ab:cC:d::D:e:f:F:g:hH:iIl:nNM:m::oO:p::P:q:rRs:S:t:TUvw:Wz:";
	// -z FILTER runs a filter command.
	{Names: []string{"rlwrap"}, Summary: "runs a command with line editing",
		Flags: "-A -c -h -i -I -n -N -o -r -R -T -U -v -W --ansi-colour-aware --complete-filenames --help " +
			"--case-insensitive --pass-sigint-as-sigterm --no-warnings --no-children --one-shot --remember --renice " +
			"--test-terminal --mirror-arguments --version --polling",
		Valued: "-b -C -D -e -f -F -g -H -l -M -O -P -q -s -S -t -w -z --break-chars --command-name " +
			"--extra-char-after-completion --history-no-dupes --file --history-format --forget-matching " +
			"--history-filename --logfile --multi-line-ext --only-cook --pre-given --quote-characters --histsize " +
			"--substitute-prompt --set-terminal-name --wait-before-prompt --filter",
		Optional: "-a -d -m -p --always-readline --debug --multi-line --prompt-colour",
		Abbrev:   true, Shell: "-z --filter", Writes: "-l --logfile", NoRun: "-h -v --help --version"},
	// entr: options only before the first word not starting with -; -s runs the first operand
	// with $SHELL -c.
	{Names: []string{"entr"}, Summary: "runs a command when files change",
		Flags: "-a -c -d -n -p -r -s -x -z", JoinedIf: "-s"},
	// macOS caffeinate: BSD getopt "dimsut:w:".
	{Names: []string{"caffeinate"}, Summary: "runs a command keeping the machine awake",
		Flags: "-d -i -m -s -u", Valued: "-t -w"},
}

// TmuxCommand is one tmux command: its option letters (tmux's parser stops at the first
// operand) and what its operands are.
type TmuxCommand struct {
	Names         []string // the name, then its alias
	Flags, Valued string   // option letters
	// Runs says what the operands are: "shell" (a shell command: one operand is a line for
	// sh -c, several an argv run directly), "keys" (keys typed into the pane), "tmux" (from
	// operand At on, a tmux command), "line" (operand At is a tmux command line), "if" (a shell
	// command, then tmux command lines), "env" (operand 0 is a variable set in the server's
	// environment), "none" (nothing runs), "" (not modelled: may run something). Shell
	// commands' -e NAME=VALUE sets their environment.
	Runs string
	At   int
}

// TmuxCommands are tmux 3.3a's commands (its manual). tmux accepts a command's name, its alias
// or a unique prefix of its name, so every command is listed, for prefixes to resolve as tmux
// resolves them. A command whose Runs is "" may run something the table does not model
// (set-option's default-command, a menu's items): a judge treats its operands as possible shell
// and tmux command lines; "none" runs nothing.
var TmuxCommands = []TmuxCommand{
	{Names: []string{"new-session", "new"}, Flags: "AdDEPX", Valued: "cefFnstxy", Runs: "shell"},
	{Names: []string{"new-window", "neww"}, Flags: "abdkPS", Valued: "ceFnt", Runs: "shell"},
	{Names: []string{"split-window", "splitw"}, Flags: "bdfhIvPZ", Valued: "celptF", Runs: "shell"},
	{Names: []string{"respawn-pane", "respawnp"}, Flags: "k", Valued: "cet", Runs: "shell"},
	{Names: []string{"respawn-window", "respawnw"}, Flags: "k", Valued: "cet", Runs: "shell"},
	{Names: []string{"display-popup", "popup"}, Flags: "BCE", Valued: "bcdehsStTwxy", Runs: "shell"},
	{Names: []string{"pipe-pane", "pipep"}, Flags: "IOo", Valued: "t", Runs: "shell"},
	{Names: []string{"run-shell", "run"}, Flags: "bCE", Valued: "cdt", Runs: "shell"},
	{Names: []string{"if-shell", "if"}, Flags: "bF", Valued: "t", Runs: "if"},
	{Names: []string{"send-keys", "send"}, Flags: "FHKlMRX", Valued: "cNt", Runs: "keys"},
	{Names: []string{"bind-key", "bind"}, Flags: "nr", Valued: "NT", Runs: "tmux", At: 1},
	{Names: []string{"set-hook"}, Flags: "agpRuw", Valued: "t", Runs: "line", At: 1},
	{Names: []string{"confirm-before", "confirm"}, Flags: "by", Valued: "cpt", Runs: "line"},
	{Names: []string{"command-prompt"}, Flags: "1bFikN", Valued: "IptT", Runs: "line"},
	{Names: []string{"kill-server"}, Runs: "none"},
	{Names: []string{"kill-session"}, Runs: "none"},
	{Names: []string{"list-sessions", "ls"}, Runs: "none"},
	{Names: []string{"attach-session", "attach"}, Runs: "none"},
	{Names: []string{"has-session", "has"}, Runs: "none"},
	{Names: []string{"capture-pane", "capturep"}, Runs: "none"},
	{Names: []string{"detach-client", "detach"}, Runs: "none"},
	{Names: []string{"list-windows", "lsw"}, Runs: "none"},
	{Names: []string{"list-panes", "lsp"}, Runs: "none"},
	{Names: []string{"kill-window", "killw"}, Runs: "none"},
	{Names: []string{"kill-pane", "killp"}, Runs: "none"},
	{Names: []string{"select-window", "selectw"}, Runs: "none"},
	{Names: []string{"select-pane", "selectp"}, Runs: "none"},
	{Names: []string{"rename-session", "rename"}, Runs: "none"},
	{Names: []string{"rename-window", "renamew"}, Runs: "none"},
	{Names: []string{"resize-pane", "resizep"}, Runs: "none"},
	{Names: []string{"show-options", "show"}, Runs: "none"},
	{Names: []string{"list-keys", "lsk"}, Runs: "none"},
	// Listed for prefixes; their operands are judged loosely.
	{Names: []string{"list-clients", "lsc"}}, {Names: []string{"list-commands", "lscm"}},
	{Names: []string{"lock-client", "lockc"}}, {Names: []string{"lock-session", "locks"}},
	{Names: []string{"lock-server", "lock"}}, {Names: []string{"refresh-client", "refresh"}},
	{Names: []string{"server-access"}}, {Names: []string{"show-messages", "showmsgs"}},
	{Names: []string{"source-file", "source"}}, {Names: []string{"start-server", "start"}},
	{Names: []string{"suspend-client", "suspendc"}}, {Names: []string{"switch-client", "switchc"}},
	{Names: []string{"copy-mode"}}, {Names: []string{"break-pane", "breakp"}},
	{Names: []string{"choose-client"}}, {Names: []string{"choose-tree"}}, {Names: []string{"choose-buffer"}},
	{Names: []string{"customize-mode"}}, {Names: []string{"display-panes", "displayp"}},
	{Names: []string{"find-window", "findw"}}, {Names: []string{"join-pane", "joinp"}},
	{Names: []string{"last-pane", "lastp"}}, {Names: []string{"last-window", "last"}},
	{Names: []string{"link-window", "linkw"}}, {Names: []string{"move-pane", "movep"}},
	{Names: []string{"move-window", "movew"}}, {Names: []string{"next-layout", "nextl"}},
	{Names: []string{"next-window", "next"}}, {Names: []string{"previous-layout", "prevl"}},
	{Names: []string{"previous-window", "prev"}}, {Names: []string{"resize-window", "resizew"}},
	{Names: []string{"rotate-window", "rotatew"}}, {Names: []string{"select-layout", "selectl"}},
	{Names: []string{"swap-pane", "swapp"}}, {Names: []string{"swap-window", "swapw"}},
	{Names: []string{"unlink-window", "unlinkw"}}, {Names: []string{"send-prefix"}},
	{Names: []string{"unbind-key", "unbind"}}, {Names: []string{"set-option", "set"}},
	{Names: []string{"set-window-option", "setw"}}, {Names: []string{"show-window-options", "showw"}},
	{Names: []string{"show-hooks"}},
	{Names: []string{"set-environment", "setenv"}, Flags: "Fhgru", Valued: "t", Runs: "env"},
	{Names: []string{"show-environment", "showenv"}}, {Names: []string{"clear-prompt-history", "clearphist"}},
	{Names: []string{"display-menu", "menu"}}, {Names: []string{"display-message", "display"}},
	{Names: []string{"show-prompt-history", "showphist"}}, {Names: []string{"clear-history", "clearhist"}},
	{Names: []string{"delete-buffer", "deleteb"}}, {Names: []string{"list-buffers", "lsb"}},
	{Names: []string{"load-buffer", "loadb"}}, {Names: []string{"paste-buffer", "pasteb"}},
	{Names: []string{"save-buffer", "saveb"}}, {Names: []string{"set-buffer", "setb"}},
	{Names: []string{"show-buffer", "showb"}}, {Names: []string{"clock-mode"}},
	{Names: []string{"wait-for", "wait"}},
}

// perf's subcommands that run a command (and the ones that only read), each with its options.
var (
	perfStat = &Wrapper{Names: []string{"stat"}, Summary: "counts a command's events",
		Flags: "-a -A -B -c -d -n -q -s -S -v -i --all-cpus --no-aggr --big-num --scale --detailed --null --quiet " +
			"--per-socket --per-die --per-core --per-thread --per-node --per-cache --sync --verbose --no-inherit " +
			"--no-merge --metric-only --append --json --topdown --smi-cost --td-level --all-user --all-kernel",
		Valued: "-e -o -p -t -C -G -r -x -I -M -D -u --event --output --pid --tid --cpu --cgroup --repeat " +
			"--field-separator --interval-print --metrics --delay --uid --log-fd --pre --post --for-each-cgroup " +
			"--interval-count --timeout --control",
		Abbrev: true, Shell: "--pre --post", Writes: "-o --output"}
	perfRecord = &Wrapper{Names: []string{"record"}, Summary: "records a command's profile",
		Flags: "-a -g -q -v -s -n -N -R -i -T -P -d -W -B --all-cpus --quiet --verbose --stat --no-samples " +
			"--no-buildid-cache --raw-samples --no-inherit --timestamp --sample-cpu --period --data --weight " +
			"--no-buildid --phys-data --data-page-size --code-page-size --running-time --namespaces --all-cgroups " +
			"--switch-events --tail-synthesize --overwrite --strict-freq --kernel-callchains --user-callchains " +
			"--timestamp-filename --timestamp-boundary --no-bpf-event",
		Valued: "-e -o -p -t -C -c -F -m -G -u -D -r -j -k --event --output --pid --tid --cpu --count --freq " +
			"--mmap-pages --cgroup --uid --delay --realtime --branch-filter --clockid --filter --call-graph " +
			"--user-regs --affinity --mmap-flush --max-size --num-thread-synthesize --control --aio --exclude-perf",
		Optional: "-I --intr-regs --switch-output --synth --compression-level --buildid-mmap",
		Abbrev:   true, Writes: "-o --output"}
	perfTrace = &Wrapper{Names: []string{"trace"}, Summary: "traces a command's system calls and events",
		Flags: "-a -f -s -S -v -T --all-cpus --no-inherit --summary --with-summary --verbose --time --comm " +
			"--no-comm --sched --failure --syscalls --print-sample --sort-events --errno-summary --force",
		Valued: "-e -o -p -t -u -C -m -D -F --event --expr --output --pid --tid --uid --cpu --mmap-pages --delay " +
			"--duration --filter-pids --pf --max-events --call-graph --max-stack --min-stack --proc-map-timeout " +
			"--kernel-syscall-graph --tool_stats --map-dump --cgroup --summary-mode",
		Abbrev: true, Writes: "-o --output"}
	perfFtrace = &Wrapper{Names: []string{"ftrace"}, Summary: "traces a command's kernel functions",
		Flags:  "-a -v --all-cpus --verbose --inherit",
		Valued: "-t -p -C -T -N -G -g -D -m --tracer --pid --cpu --trace-funcs --notrace-funcs --graph-funcs --nograph-funcs --graph-depth --buffer-size --delay",
		Abbrev: true}
	// perfReads are subcommands that read recorded data and run no command of the agent's.
	// Any other subcommand (sched record, mem record, script, bench, …) may run one: a judge
	// treats its words as possible commands.
	perfReads = &Wrapper{Names: []string{"report", "annotate", "list", "diff", "evlist", "buildid-list",
		"archive", "help", "version", "config", "data"}, Summary: "reads profiles", Flags: "--help", Attached: true,
		NoRun: "--help"}
)

// Wrapper is how one program that runs another command reads its arguments.
type Wrapper struct {
	Names []string
	// Summary says what the wrapper does to the command it runs, for messages and hints.
	Summary string

	// Options as written on the command line, space-separated: "-n --adjustment". An option not
	// listed is unknown, and the command cannot then be found with confidence.
	Flags    string // no value
	Valued   string // a value, attached (-n5, --adjustment=5) or in the next word
	Optional string // a value only when attached (-d1, --differences=1)
	Valued2  string // the next two words (bwrap --bind SRC DEST)
	Valued3  string // the next three words (bwrap --overlay RW WORK DEST)
	// Words are single-dash options longer than one letter, matched as whole words before a
	// word is read as a cluster of letters (screen -ls); WordsValued take the next word
	// (screen -Logfile FILE).
	Words       string
	WordsValued string

	// Permute: options may follow operands, up to `--` (GNU getopt without `+`).
	Permute bool
	// Abbrev: a long option may be abbreviated to a unique prefix (getopt_long, Getopt::Long,
	// perf's parser).
	Abbrev bool
	// Digits: -NUM (and --NUM) is an option (nice -5).
	Digits bool
	// Attached: every option is one word, its value only after `=` (valgrind, firejail): an
	// option that is not listed still cannot take the next word.
	Attached bool
	// Login: a lone `-` before the operands is an option, not an operand (su -, sg -).
	Login bool

	// Operands is the number of operands before the command: timeout's DURATION, flock's FILE,
	// taskset's mask, chrt's priority, chroot's NEWROOT, sg's group.
	Operands int
	// OperandsOptional: the operands may be left out, so the command may start at any of them
	// (chrt's priority is optional for some policies).
	OperandsOptional bool
	// Assigns: NAME=VALUE words come before the command and set its environment (env, sudo).
	Assigns bool
	// Default is the command run when none is given (xargs: echo).
	Default string

	// NoRun are options after which no command runs: the operands are something else
	// (command -v NAME, taskset -p PID, ionice -p PID).
	NoRun string
	// Shell are options whose value is a shell command line (script -c, su -c, perf stat --pre).
	Shell string
	// Then are options that may stand right after the operands, whose value is a shell command
	// line: `flock FILE -c CMD`, `sg GROUP -c CMD`. Matched exactly, as those programs do.
	Then string
	// Joined: the command's words are joined with spaces and run by `sh -c` (watch, sg,
	// parallel), unless one of Exec is given.
	Joined bool
	Exec   string // options that make a Joined wrapper exec its words instead (watch -x)
	// JoinedIf are options that make the command a shell command line (entr -s).
	JoinedIf string
	// Input: the command gets more operands from standard input (xargs, parallel); Replace are
	// options whose value is a string replaced by each input (xargs -I R); ReplaceBraces options
	// that make {} (or their attached value) that string (xargs -i, --replace).
	Input         bool
	Replace       string
	ReplaceBraces string
	// Separators are words that end the command and begin its inputs (parallel :::).
	Separators string
	// Exprs are the primaries of an expression language that run a command (find -exec).
	Exprs string

	// Writes are options whose value is a file the wrapper writes (time -o, strace -o).
	Writes string
	// WritePipes: a Writes value starting with `|` or `!` is a shell command line instead
	// (strace -o '|CMD').
	WritePipes bool
	// WritesOperand: the first operand is a file the wrapper writes (script's typescript).
	WritesOperand bool
	// Chdir are options whose value is the directory the command runs in (env -C).
	Chdir string
	// ElsewhereUnless: the command runs in another directory (/ or the home directory) unless
	// one of these options is given (systemd-run -d).
	ElsewhereUnless string
	// Env are options whose value NAME=VALUE (or, with two values, NAME VALUE) is set in the
	// command's environment; Unset options whose value NAME is removed from it.
	Env   string
	Unset string
	// Split are options whose value is split into words that stand before the operands
	// (env -S 'CMD ARGS').
	Split string
	// ExecProperties are options whose value NAME=VALUE runs VALUE as a command line when NAME
	// starts with Exec (systemd-run -p ExecStartPre=CMD).
	ExecProperties string
	// Unknowable are options after which the command's words cannot be known (bwrap --args FD).
	Unknowable string
	// Privileged: the command runs as another user; the edit guard refuses it outright.
	Privileged bool
	// Language names a wrapper whose arguments are a command language of its own, which the
	// judge that peels it must interpret: "tmux", "screen", "find".
	Language string

	// Subcommands pick the parser by the first operand (perf stat, perf record). Under a
	// wrapper with subcommands, a subcommand not listed runs nothing the table knows of: a judge
	// must treat its words as possible commands.
	Subcommands []*Wrapper

	once  sync.Once
	table *wrapperTable
}

// wrapperTable is a Wrapper's option lists, parsed once.
type wrapperTable struct {
	kinds map[string]wrapperOpt
	long  []string // every long option, for abbreviations
}

type wrapperOpt uint8

const (
	wrapFlag wrapperOpt = iota + 1
	wrapValued
	wrapOptional
	wrapValued2
	wrapValued3
)

func (w *Wrapper) opts() *wrapperTable {
	w.once.Do(w.build)
	return w.table
}

// build parses the option lists. A malformed or duplicated name is a programming error and
// panics; TestWrapperTables builds every table, so it can never reach a user.
func (w *Wrapper) build() {
	t := &wrapperTable{kinds: map[string]wrapperOpt{}}
	add := func(list string, k wrapperOpt) {
		for _, n := range strings.Fields(list) {
			if _, dup := t.kinds[n]; dup {
				panic("programs: wrapper option listed twice: " + w.Names[0] + " " + n)
			}
			if !strings.HasPrefix(n, "-") || n == "-" || n == "--" || (!strings.HasPrefix(n, "--") && len(n) != 2) {
				panic("programs: malformed wrapper option: " + w.Names[0] + " " + n)
			}
			t.kinds[n] = k
			if strings.HasPrefix(n, "--") {
				t.long = append(t.long, n)
			}
		}
	}
	add(w.Flags, wrapFlag)
	add(w.Valued, wrapValued)
	add(w.Optional, wrapOptional)
	add(w.Valued2, wrapValued2)
	add(w.Valued3, wrapValued3)
	for _, n := range strings.Fields(w.Words + " " + w.WordsValued) {
		if _, dup := t.kinds[n]; dup || !strings.HasPrefix(n, "-") || strings.HasPrefix(n, "--") || len(n) < 3 {
			panic("programs: malformed wrapper word option: " + w.Names[0] + " " + n)
		}
	}
	for _, list := range []string{w.NoRun, w.Shell, w.Exec, w.JoinedIf, w.Replace, w.ReplaceBraces,
		w.Writes, w.Chdir, w.ElsewhereUnless, w.Env, w.Unset, w.Split, w.ExecProperties, w.Unknowable} {
		for _, n := range strings.Fields(list) {
			if _, ok := t.kinds[n]; !ok && !wordlist.Has(w.Words, n) && !wordlist.Has(w.WordsValued, n) {
				panic("programs: wrapper option used but not listed: " + w.Names[0] + " " + n)
			}
		}
	}
	w.table = t
}

// WrapperArg is one word of a wrapper's arguments as a judge knows it.
type WrapperArg struct {
	Value string
	// Open: the word may begin with anything, an option included (it starts with a variable or
	// a substitution). Its Value is then not used.
	Open bool
}

// Peeled is where a wrapper's parts stand in its arguments, as indexes.
type Peeled struct {
	Options []PeeledOption
	// Assigns are the NAME=VALUE words before the command.
	Assigns []int
	// Operands are the operands before the command (Wrapper.Operands of them, or fewer).
	Operands []int
	// Command are the command's words: contiguous, except where options were permuted out of
	// them. Empty when the wrapper runs no command or a shell line given by an option.
	Command []int
	// Posix is the first word of the command as a parser that does not permute reads it
	// (POSIXLY_CORRECT, or a BSD build): from there on every word is the command's. It differs
	// from Command[0] only when options were found after an operand. -1 when there is none.
	Posix int
	// Then is the index of a Then option's value (flock FILE -c CMD), or -1.
	Then int
	// Sub is the subcommand's table and index when the wrapper has subcommands; SubUnknown
	// says that the first operand names none the table lists.
	Sub        *Wrapper
	SubAt      int
	SubUnknown bool
	// Confident is false when an option was not in the table or a word that may begin with `-`
	// stood where an option could: the command may then start at any word from Unsure on.
	Confident bool
	Unsure    int
	// NoRun: an option after which no command runs was given.
	NoRun bool
}

// PeeledOption is one option as parsed.
type PeeledOption struct {
	Name string // the name in the table, e.g. "--signal" for `--sig`, "-n" for `-n5`
	// Values are the indexes of the words that hold the option's values; an attached value
	// has At set instead.
	Values []int
	// Attached is a value written in the option's own word (-n5, --signal=KILL); HasAttached
	// says whether there was one.
	Attached    string
	HasAttached bool
	At          int // the index of the option's own word
}

// Option returns the options of p named in list.
func (p *Peeled) Option(list string) []PeeledOption {
	var out []PeeledOption
	for _, o := range p.Options {
		if wordlist.Has(list, o.Name) {
			out = append(out, o)
		}
	}
	return out
}

// Peel parses a wrapper's arguments (the words after its name).
func (w *Wrapper) Peel(args []WrapperArg) Peeled {
	t := w.opts()
	p := Peeled{Posix: -1, Then: -1, SubAt: -1, Confident: true, Unsure: -1}
	unsure := func(i int) {
		if p.Confident {
			p.Confident, p.Unsure = false, i
		}
	}
	var operands []int // every operand, in order
	firstOperand := -1 // where a parser that does not permute would stop
	ended := false
	i := 0
	for ; i < len(args); i++ {
		a := args[i]
		v := a.Value
		isOperand := ended || a.Open || v == "" || v[0] != '-' || (v == "-" && !w.Login)
		if a.Open && !ended {
			unsure(i) // it may be an option the table knows nothing of
		}
		if isOperand {
			if w.Assigns && len(operands) == 0 && !a.Open && isAssignment(v) {
				p.Assigns = append(p.Assigns, i)
				if !w.Permute {
					ended = true // env A=1 -i CMD runs -i
				}
				continue
			}
			if firstOperand < 0 {
				firstOperand = i
			}
			operands = append(operands, i)
			if !w.Permute {
				// Options end here; the rest are operands and the command.
				for k := i + 1; k < len(args); k++ {
					operands = append(operands, k)
				}
				i = len(args)
				break
			}
			continue
		}
		if v == "--" {
			ended = true
			continue
		}
		if v == "-" { // Login
			p.Options = append(p.Options, PeeledOption{Name: "-", At: i})
			continue
		}
		next, ok := w.option(t, args, i, &p)
		if !ok {
			unsure(i)
		}
		i = next
		if firstOperand >= 0 {
			p.Posix = firstOperand // an option after an operand: a permuting parse
		}
	}
	for _, o := range p.Options {
		if wordlist.Has(w.NoRun, o.Name) {
			p.NoRun = true
		}
	}
	// The operands before the command, then (for flock and sg) a shell line after them.
	rest := operands
	if len(w.Subcommands) > 0 && len(rest) > 0 && !args[rest[0]].Open {
		p.SubAt = rest[0]
		for _, s := range w.Subcommands {
			if containsString(s.Names, args[rest[0]].Value) {
				p.Sub = s
			}
		}
		p.SubUnknown = p.Sub == nil
		return p
	}
	n := min(w.Operands, len(rest))
	p.Operands = rest[:n]
	rest = rest[n:]
	if len(rest) >= 2 && !args[rest[0]].Open && wordlist.Has(w.Then, args[rest[0]].Value) {
		p.Then = rest[1]
		return p
	}
	if len(rest) == 1 && !args[rest[0]].Open && wordlist.Has(w.Then, args[rest[0]].Value) {
		return p // `flock FILE -c` with no command: flock fails
	}
	p.Command = rest
	if p.Posix >= 0 {
		// Without permutation the command starts right after the operands the wrapper
		// itself takes.
		k := p.Posix
		for skipped := 0; skipped < w.Operands && k < len(args); skipped++ {
			k++
		}
		if k < len(args) {
			p.Posix = k
		} else {
			p.Posix = -1
		}
	}
	return p
}

// option reads the option at args[i] into p and returns the index of its last word; false
// when the table does not know it.
func (w *Wrapper) option(t *wrapperTable, args []WrapperArg, i int, p *Peeled) (int, bool) {
	v := args[i].Value
	take := func(o PeeledOption, k wrapperOpt) int {
		n := map[wrapperOpt]int{wrapValued: 1, wrapValued2: 2, wrapValued3: 3}[k]
		if o.HasAttached {
			n--
		}
		for ; n > 0 && i+1 < len(args); n-- {
			i++
			o.Values = append(o.Values, i)
		}
		p.Options = append(p.Options, o)
		return i
	}
	if wordlist.Has(w.Words, v) {
		p.Options = append(p.Options, PeeledOption{Name: v, At: i})
		return i, true
	}
	if wordlist.Has(w.WordsValued, v) {
		return take(PeeledOption{Name: v, At: i}, wrapValued), true
	}
	if w.Digits && isOptionNumber(v) {
		p.Options = append(p.Options, PeeledOption{Name: "-NUM", Attached: strings.TrimLeft(v, "-"), HasAttached: true, At: i})
		return i, true
	}
	if strings.HasPrefix(v, "--") || w.Attached {
		name, val, has := strings.Cut(v, "=")
		full, ok := t.lookup(name, w.Abbrev)
		o := PeeledOption{Name: full, Attached: val, HasAttached: has, At: i}
		if !ok {
			o.Name = name
			p.Options = append(p.Options, o)
			return i, w.Attached // an attached-only parser keeps going with confidence
		}
		switch k := t.kinds[full]; {
		case w.Attached || k == wrapFlag || k == wrapOptional:
			p.Options = append(p.Options, o)
			return i, !(k == wrapFlag && has) // --flag=x makes the program fail
		default:
			return take(o, k), true
		}
	}
	// A cluster of short options: -abc, -n5, -dmS NAME.
	for k := 1; k < len(v); k++ {
		name := "-" + v[k:k+1]
		kind, ok := t.kinds[name]
		if !ok {
			p.Options = append(p.Options, PeeledOption{Name: name, At: i})
			return i, false
		}
		o := PeeledOption{Name: name, At: i}
		switch kind {
		case wrapFlag:
			p.Options = append(p.Options, o)
			continue
		case wrapOptional:
			o.Attached, o.HasAttached = v[k+1:], k+1 < len(v)
			p.Options = append(p.Options, o)
		default:
			o.Attached, o.HasAttached = v[k+1:], k+1 < len(v)
			i = take(o, kind)
		}
		break // the option took the rest of the word, or the next words
	}
	return i, true
}

// lookup finds an option by name, or by a unique abbreviation of a long one.
func (t *wrapperTable) lookup(name string, abbrev bool) (string, bool) {
	if _, ok := t.kinds[name]; ok {
		return name, true
	}
	if !abbrev || !strings.HasPrefix(name, "--") || len(name) < 3 {
		return "", false
	}
	found := ""
	for _, l := range t.long {
		if strings.HasPrefix(l, name) {
			if found != "" {
				return "", false // ambiguous: getopt refuses it, and the program runs nothing
			}
			found = l
		}
	}
	return found, found != ""
}

// isAssignment reports whether an env operand is NAME=VALUE.
func isAssignment(v string) bool {
	name, _, ok := strings.Cut(v, "=")
	return ok && name != "" && !strings.HasPrefix(v, "=")
}

// isOptionNumber reports -NUM, --NUM and -+NUM (nice's obsolete adjustment).
func isOptionNumber(v string) bool {
	s := strings.TrimPrefix(v, "-")
	s = strings.TrimPrefix(strings.TrimPrefix(s, "-"), "+")
	return s != "" && len(s) < len(v) && strings.Trim(s, "0123456789") == ""
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// LookupWrapper returns the wrapper table for a program name (a base name), or nil.
func LookupWrapper(name string) *Wrapper {
	for _, w := range wrappers {
		if containsString(w.Names, name) {
			return w
		}
	}
	return nil
}

// Wrappers returns the wrapper table, in its order.
func Wrappers() []*Wrapper { return append([]*Wrapper(nil), wrappers...) }
