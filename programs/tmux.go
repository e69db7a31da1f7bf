package programs

import (
	"strings"

	"github.com/hookctl/hookctl/internal/clip"
)

// tmux is allowed for one command: `tmux capture-pane -p`, which prints a pane's contents.
//
// Why care: every tmux command is a request to the tmux server, which can run anything
// (run-shell, new-window CMD, send-keys to a shell, source-file), and one tmux command line may
// hold several commands, split wherever an argument ends in `;` — `\;`, `';'` and `'0;'` all
// reach tmux as a word ending in `;`. Without -p, capture-pane writes a paste buffer (-b names
// it), which a later paste types into a shell. tmux's own options can start a server with a
// config file (-f), run a shell command (-c) or write log files (-v).
//
// What: `tmux [-L NAME] capture-pane|capturep -p [-a -C -e -J -N -P -q] [-t TARGET] [-S LINE]
// [-E LINE]`, every word without `;`; TARGET a plain pane name; LINE a number, `-NUM` or `-`.
// capture-pane never starts a server (it lacks tmux's start-server flag), so with none running
// it fails without reading a config.
//
// Note: the read-only sandbox refuses every connect, so there tmux cannot reach its server and
// the command fails; it is useful where commands run on the policy alone.
//
// Test: TestTmuxCapturePaneOnly (tmux_test.go); deny/readers.txt.
var tmuxRule = &Program{
	Name: "tmux", Summary: "print a pane (capture-pane -p only)", NamesOnly: true,
	BSD:    &BSD{Same: true, Note: "the same program everywhere, with its own parser"},
	Custom: judgeTmux,
}

// tmuxCaptureFlags and tmuxCaptureValued are capture-pane's letters in tmux 3.3 that only
// choose what is printed; -b (a paste buffer) is left out.
const (
	tmuxCaptureFlags  = "aCeJNPpqT"
	tmuxCaptureValued = "tSE"
)

func judgeTmux(args []Arg) *Refusal {
	for _, a := range args {
		if strings.Contains(a.Value, ";") {
			return refuse("tmux", "`%s` holds `;`, which separates tmux commands; only one capture-pane may run", clip.Short(a.Value))
		}
		if a.Pattern || a.Var {
			return refuse("tmux", "shell syntax or a loop variable in `%s` is not allowed", clip.Short(a.Value))
		}
	}
	i := 0
	for i < len(args) && strings.HasPrefix(args[i].Value, "-") {
		switch v := args[i].Value; {
		case v == "-L" && i+1 < len(args) && plainTmuxName(args[i+1].Value):
			i += 2
		case strings.HasPrefix(v, "-L") && plainTmuxName(v[2:]):
			i++
		default:
			return refuse("tmux", "tmux option `%s` is not allowed (-f and -c run commands, -v writes logs, -S and -C talk to a server otherwise); only -L NAME", clip.Short(v))
		}
	}
	if i == len(args) || args[i].Value != "capture-pane" && args[i].Value != "capturep" {
		return &Refusal{Program: "tmux", What: "only `tmux capture-pane -p` is allowed; every other tmux command can run programs or type into a pane",
			Hint: "tmux capture-pane -p -t PANE -S -50"}
	}
	printed := false
	for i++; i < len(args); i++ {
		v := args[i].Value
		if v == "-" || !strings.HasPrefix(v, "-") || v == "--" {
			return refuse("tmux", "capture-pane takes no operand (`%s`)", clip.Short(v))
		}
		for j := 1; j < len(v); j++ {
			l := v[j]
			switch {
			case strings.IndexByte(tmuxCaptureFlags, l) >= 0:
				printed = printed || l == 'p'
				continue
			case strings.IndexByte(tmuxCaptureValued, l) >= 0:
				val := v[j+1:]
				if val == "" {
					if i+1 >= len(args) {
						return refuse("tmux", "`-%c` needs a value", l)
					}
					i++
					val = args[i].Value
				}
				if l == 't' && !plainTmuxName(val) || l != 't' && !tmuxLine(val) {
					return refuse("tmux", "`-%c %s` is not a plain pane or line number", l, clip.Short(val))
				}
			case l == 'b':
				return refuse("tmux", "`-b` writes a paste buffer, which a later paste types into a shell; use -p to print")
			default:
				return refuse("tmux", "capture-pane option `-%c` is not allowed", l)
			}
			break // a valued letter took the rest of the word
		}
	}
	if !printed {
		return refuse("tmux", "capture-pane without -p writes a paste buffer, which a later paste types into a shell; add -p to print")
	}
	return nil
}

// plainTmuxName reports whether v is a socket, session, window or pane name made only of
// letters, digits and `_.:%@$+=-`, not starting with `-`.
func plainTmuxName(v string) bool {
	if v == "" || v[0] == '-' || len(v) > 128 {
		return false
	}
	for i := 0; i < len(v); i++ {
		if !isIdentChar(v[i]) && !strings.ContainsRune("_.:%@$+=-", rune(v[i])) {
			return false
		}
	}
	return true
}

// tmuxLine reports whether v is a capture-pane line: a number, a negative number, or `-`.
func tmuxLine(v string) bool {
	return v == "-" || allDigits(strings.TrimPrefix(v, "-"))
}
