package editguard

import (
	"strings"
	"testing"

	"github.com/hookctl/hookctl/lexer/nested"
)

// TestWrappers: the command inside every wrapper of programs' table is judged as if written
// alone. One hostile row per wrapper, each switching hookctl off through it (issue 7); rows
// marked "base" were allowed before the wrapper table (commit c3c535a), the rest were refused
// already. Every wrapper also has a legitimate row that must keep working.
func TestWrappers(t *testing.T) {
	check(t,
		deny("env -i hookctl uninstall", "only the user"),
		deny("env -u PATH -C /tmp hookctl uninstall", "only the user"),
		deny("nice -n 5 hookctl uninstall", "only the user"),
		deny("nice -5 hookctl uninstall", "only the user"),
		deny("nohup hookctl uninstall", "only the user"),
		deny("timeout 5 hookctl readonly off", "only the user"),
		deny("timeout -k 1 --signal=KILL 5 hookctl uninstall", "only the user"),
		deny("timeout --sig KILL 5 hookctl uninstall", "only the user"), // base: an abbreviated valued option
		deny("/usr/bin/time -o /dev/null hookctl uninstall", "only the user"),
		deny("command hookctl uninstall", "only the user"),
		deny("builtin exec hookctl uninstall", "only the user"),
		deny("exec -a x hookctl uninstall", "only the user"),
		deny("stdbuf -oL hookctl uninstall", "only the user"),
		deny("ionice -c 3 hookctl uninstall", "only the user"),
		deny("setsid -f hookctl uninstall", "only the user"),
		deny("busybox env hookctl uninstall", "only the user"),
		deny("toybox timeout 5 hookctl uninstall", "only the user"),
		deny("sudo hookctl uninstall", "other privileges"),
		deny("doas hookctl uninstall", "other privileges"),
		deny("su -c 'hookctl uninstall'", "other privileges"),
		deny("runuser -u me -- hookctl uninstall", "other privileges"), // base
		deny("echo uninstall | xargs hookctl", "only the user"),
		deny("xargs -I{} hookctl {} < verbs", "only the user"),
		deny("parallel hookctl ::: uninstall", "only the user"),
		deny("sem -j 2 hookctl uninstall", "only the user"), // base
		deny("watch -n 1 hookctl uninstall", "only the user"),
		deny("watch -x hookctl uninstall", "only the user"),
		deny("find . -maxdepth 0 -exec hookctl uninstall \\;", "only the user"),
		deny("script -qc \"hookctl uninstall\" /dev/null", "only the user"),                     // base
		deny("script -qc \"hookctl readonly off --session victim\" /dev/null", "only the user"), // base: switched a read-only session to edit
		deny("script -q -c 'hookctl uninstall' /dev/null", "only the user"),                     // base
		deny("script --command='hookctl uninstall' -q /dev/null", "only the user"),              // base
		deny("script -q /dev/null -c 'hookctl uninstall'", "only the user"),                     // base: permuted
		deny("script -q /dev/null hookctl uninstall", "only the user"),                          // base: BSD script
		deny("script -q ~/.bashrc", "is protected"),                                             // base: the typescript is a write
		deny("flock /tmp/l hookctl readonly off", "only the user"),                              // base
		deny("flock /tmp/l -c 'hookctl uninstall'", "only the user"),                            // base
		deny("flock -w 3 /tmp/l hookctl uninstall", "only the user"),                            // base
		deny("flock -n /tmp/l --command 'hookctl uninstall'", "only the user"),                  // base
		deny("flock --weird 3 /tmp/l hookctl uninstall", "cannot place with certainty"),         // base
		deny("chronic hookctl uninstall", "only the user"),                                      // base
		deny("chronic -ev hookctl uninstall", "only the user"),                                  // base
		deny("unbuffer -p hookctl uninstall", "only the user"),                                  // base
		deny("taskset 1 hookctl uninstall", "only the user"),                                    // base
		deny("taskset -c 0 hookctl uninstall", "only the user"),                                 // base
		deny("chrt -o 0 hookctl uninstall", "only the user"),                                    // base
		deny("chrt --other hookctl uninstall", "only the user"),                                 // base: no priority
		deny("numactl --interleave=all hookctl uninstall", "only the user"),                     // base
		deny("numactl -C 0 hookctl uninstall", "only the user"),                                 // base
		deny("strace -f -o /dev/null hookctl uninstall", "only the user"),                       // base
		deny("strace -o '|hookctl uninstall' true", "only the user"),                            // base
		deny("strace -o ~/.bashrc true", "is protected"),                                        // base
		deny("strace -E HOME=/x -u me hookctl uninstall", "only the user"),                      // base
		deny("ltrace -o /dev/null hookctl uninstall", "only the user"),                          // base
		deny("valgrind -q --tool=none hookctl uninstall", "only the user"),                      // base
		deny("valgrind --log-file=/home/user/.bashrc true", "is protected"),                     // base
		deny("perf stat hookctl uninstall", "only the user"),                                    // base
		deny("perf stat -e cycles -- hookctl uninstall", "only the user"),                       // base
		deny("perf record -g hookctl uninstall", "only the user"),                               // base
		deny("perf trace hookctl uninstall", "only the user"),                                   // base
		deny("perf stat --pre 'hookctl uninstall' true", "only the user"),                       // base
		deny("perf sched record hookctl uninstall", "cannot place with certainty"),              // base
		deny("xvfb-run -a hookctl uninstall", "only the user"),                                  // base
		deny("xvfb-run -s '-screen 0 1x1x8' hookctl uninstall", "only the user"),                // base
		deny("dbus-run-session -- hookctl uninstall", "only the user"),                          // base
		deny("fakeroot -- hookctl uninstall", "only the user"),                                  // base
		deny("unshare -r hookctl uninstall", "only the user"),                                   // base
		deny("unshare --map-root-user --net hookctl uninstall", "only the user"),                // base
		deny("nsenter -t 1 -m hookctl uninstall", "only the user"),                              // base
		deny("chroot / hookctl uninstall", "only the user"),                                     // base
		deny("chroot --userspec=0:0 / hookctl uninstall", "only the user"),                      // base
		deny("firejail --quiet --private hookctl uninstall", "only the user"),                   // base
		deny("bwrap --ro-bind / / --dev /dev -- hookctl uninstall", "only the user"),            // base
		deny("bwrap --args 3 true", "cannot be judged"),                                         // base
		deny("systemd-run --user hookctl uninstall", "only the user"),                           // base
		deny("systemd-run --scope -E FOO=1 hookctl uninstall", "only the user"),                 // base
		deny("systemd-run -p ExecStartPre='hookctl uninstall' true", "only the user"),           // base
		deny("systemd-run --user rm -rf build", "cannot be resolved"),                           // base: it runs in ~, not here
		deny("rlwrap hookctl uninstall", "only the user"),                                       // base
		deny("rlwrap -z 'hookctl uninstall' cat", "only the user"),                              // base
		deny("entr hookctl uninstall", "only the user"),                                         // base
		deny("entr -s 'hookctl uninstall'", "only the user"),                                    // base
		deny("caffeinate -i hookctl uninstall", "only the user"),                                // base
		deny("sg staff 'hookctl uninstall'", "only the user"),                                   // base
		deny("sg staff -c 'hookctl uninstall'", "only the user"),                                // base
		deny("timeout $T 5 hookctl uninstall", "cannot place with certainty"),                   // base: $T may be an option
		deny("env $OPTS hookctl uninstall", "cannot place with certainty"),                      // base
	)
	check(t,
		allow("env FOO=1 make"),
		allow("nice -n 10 make -j4"),
		allow("nohup npm run dev"),
		allow("timeout 60 go test ./..."),
		allow("timeout -s INT 5m npm test"),
		allow("/usr/bin/time -v make"),
		allow("command -v go"),
		allow("stdbuf -oL go test -v ./..."),
		allow("ionice -c 3 make"),
		allow("setsid -w make"),
		allow("busybox ls"),
		allow("find . -name '*.go' -exec gofmt -l {} +"),
		allow("ls | xargs -n1 echo"),
		allow("parallel gzip ::: a.log b.log"),
		allow("watch -n 5 git status"),
		allow("script -qc 'go test' /dev/null"),
		allow("script -q /dev/null make"),
		allow("flock /tmp/l make"),
		allow("flock -w 3 /tmp/l -c 'go test ./...'"),
		allow("chronic make"),
		allow("unbuffer go test ./..."),
		allow("taskset -c 0 make"),
		allow("chrt -o 0 make"),
		allow("numactl --interleave=all ./bench"),
		allow("strace -f -o trace.log make"),
		allow("ltrace -o ltrace.log ./a.out"),
		allow("valgrind --leak-check=full ./a.out"),
		allow("perf stat make"),
		allow("perf record -g -o perf.data ./bench"),
		allow("perf report --stdio"),
		allow("xvfb-run -a npm test"),
		allow("dbus-run-session -- go test ./..."),
		allow("fakeroot dpkg-deb --build pkg"),
		allow("unshare -r --net go test ./..."),
		allow("chroot --userspec=1000:1000 /srv/root true"),
		allow("firejail --net=none make"),
		allow("bwrap --ro-bind / / --dev /dev --tmpfs /tmp make"),
		allow("systemd-run --user -d make"),
		allow("rlwrap sqlite3 db"),
		allow("ls *.go | entr -r go test ./..."),
		allow("caffeinate -i make"),
		allow("sg docker 'docker ps'"),
		allow("timeout 5 $CMD"),
	)
}

// TestMultiplexers: tmux and screen run commands of their own language in terminals the guard
// never sees. Rows marked "base" were allowed before (commit c3c535a).
func TestMultiplexers(t *testing.T) {
	check(t,
		deny("tmux new -d 'hookctl uninstall'", "only the user"),                                     // base
		deny("tmux new-session -d -s x 'hookctl uninstall'", "only the user"),                        // base
		deny("tmux new-s -d 'hookctl uninstall'", "only the user"),                                   // base: a unique prefix
		deny("tmux new-window 'hookctl readonly off'", "only the user"),                              // base
		deny("tmux split-window -h hookctl uninstall", "only the user"),                              // base: an argv
		deny("tmux respawn-pane -k 'hookctl uninstall'", "only the user"),                            // base
		deny("tmux run-shell 'hookctl uninstall'", "only the user"),                                  // base
		deny("tmux run -C 'run-shell \"hookctl uninstall\"'", "only the user"),                       // base: a tmux command line
		deny("tmux -c 'hookctl uninstall'", "only the user"),                                         // base
		deny("tmux send-keys -t 0 'hookctl uninstall' Enter", "only the user"),                       // base
		deny("tmux send-keys hook 'ctl uninstall' Enter", "only the user"),                           // base: split across keys
		deny("tmux send -H 68 6f 6f 6b 63 74 6c 20 75 6e 69 6e 73 74 61 6c 6c 0a", "only the user"),  // base
		deny("tmux bind x run-shell 'hookctl uninstall'", "only the user"),                           // base
		deny("tmux set-hook -g after-new-window 'run-shell \"hookctl uninstall\"'", "only the user"), // base
		deny("tmux if-shell true 'run-shell \"hookctl uninstall\"'", "only the user"),                // base
		deny("tmux new -d \\; send-keys 'hookctl uninstall' Enter", "only the user"),                 // base
		deny("tmux set -g default-command 'hookctl uninstall'", "only the user"),                     // base
		deny("tmux new -d \"$CMD\"", "not a literal"),                                                // base
		deny("screen -dmS x hookctl uninstall", "only the user"),                                     // base
		deny("screen -X stuff 'hookctl uninstall\\n'", "only the user"),                              // base
		deny("screen -S x -X stuff 'hookctl uninstall^M'", "only the user"),                          // base
		deny("screen -X exec hookctl uninstall", "only the user"),                                    // base
		deny("screen -X screen -t t hookctl uninstall", "only the user"),                             // base
	)
	check(t,
		allow("tmux new -d 'go test ./...'"),
		allow("tmux new-session -d -s dev"),
		allow("tmux ls"),
		allow("tmux send-keys -t dev 'make test' Enter"),
		allow("tmux kill-server"),
		allow("screen -dmS build make"),
		allow("screen -ls"),
		allow("screen -r build"),
	)
}

// TestWrapperRulesCoverTheTable: every wrapper in programs' table reaches a rule that peels it.
func TestWrapperRulesCoverTheTable(t *testing.T) {
	for _, w := range nested.Wrappers() {
		for _, n := range w.Names {
			if lookupRule(n) == nil {
				t.Errorf("%s is in the wrapper table but no rule judges it", n)
			}
		}
	}
}

// TestPlainWrapper: plainWrapper, which asks programs' table by name, says what a list of the
// table's names would: yes for every name of a wrapper without a language of its own, no for
// the others (find, tmux, screen) and for names the table lacks. It holds because no name stands
// in two wrappers, which this test also checks.
func TestPlainWrapper(t *testing.T) {
	seen := map[string]bool{}
	for _, w := range nested.Wrappers() {
		for _, n := range w.Names {
			if seen[n] {
				t.Errorf("%s stands in two wrappers of the table", n)
			}
			if strings.HasSuffix(n, ".") {
				t.Errorf("%s ends in a dot, which in a rule's names matches by prefix, and plainWrapper does not", n)
			}
			seen[n] = true
			if got := plainWrapper(n); got != (w.Language == "") {
				t.Errorf("plainWrapper(%s) = %v, but its wrapper's language is %q", n, got, w.Language)
			}
		}
	}
	for _, n := range []string{"", "ls", "rm", "git", "curl"} {
		if plainWrapper(n) {
			t.Errorf("plainWrapper(%q) = true", n)
		}
	}
}
