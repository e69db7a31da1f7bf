package programs

import "testing"

// TestTmuxCapturePaneOnly: only capture-pane with -p, one command, no `;` in any word (tmux splits
// commands at a word ending in `;`, however the shell quoted it), no tmux option but -L.
func TestTmuxCapturePaneOnly(t *testing.T) {
	check(t, true,
		r("tmux", "capture-pane", "-p"),
		r("tmux", "capture-pane", "-p", "-t", "main:0.1"),
		r("tmux", "capture-pane", "-p", "-S", "-100"),
		r("tmux", "capture-pane", "-pJ", "-S", "-", "-E", "-"),
		r("tmux", "capture-pane", "-p", "-t%3", "-S-50", "-E10"),
		r("tmux", "capturep", "-p", "-e", "-t", "build"),
		r("tmux", "-L", "work", "capture-pane", "-p"),
	)
	check(t, false,
		r("tmux", "capture-pane", "-p", ";", "kill-server").because("separates tmux commands"),        // tmux capture-pane -p \; kill-server
		r("tmux", "capture-pane", "-p", "-t", "0;", "kill-server").because("separates tmux commands"), // '0;': a word ending in ;
		r("tmux", "capture-pane", "-p;", "run-shell", "x").because("separates tmux commands"),         // a trailing ; on a flag
		r("tmux", "capture-pane", "-t", "0").because("writes a paste buffer"),                         // no -p: a paste buffer
		r("tmux", "capture-pane", "-p", "-b", "buf").because("paste buffer"),                          // -b names one
		r("tmux", "run-shell", "touch x").because("only `tmux capture-pane -p`"),                      // runs a shell command
		r("tmux", "send-keys", "-t", "0", "rm -rf ~", "Enter").because("only `tmux capture-pane -p`"),
		r("tmux", "-f", "evil.conf", "capture-pane", "-p").because("not allowed"),        // a config file runs commands
		r("tmux", "-c", "touch x").because("not allowed"),                                // runs a shell command
		r("tmux", "-v", "capture-pane", "-p").because("not allowed"),                     // writes log files
		r("tmux", "capture-pane", "-p", "extra").because("takes no operand"),             // operands are other commands' arguments
		r("tmux", "capture-pane", "-p", "-t", "a b").because("not a plain pane"),         // a space in a target
		r("tmux", "capture-pane", "-p", "-S", "top").because("not a plain pane or line"), // not a line
		r("tmux", "capture-pane", "-p", "-t", loopVar("0")).because("loop variable"),
		r("tmux").because("only `tmux capture-pane -p`"),
	)
}
