//go:build linux

package main

import (
	"strings"
	"testing"
)

// TestCommandsHoldOnlyTheirStreams: a command the hook admits, in read-only or in edit mode,
// holds no descriptor but its standard streams, whatever the shell that runs the rewrite has
// open: not the edit sandbox's filter listener (with which the command would answer its own
// supervised calls), the init's control socket or its network handover, nor one the client
// leaked. Control: the same shell without hookctl passes its descriptor 7 on.
func TestCommandsHoldOnlyTheirStreams(t *testing.T) {
	forEditWorlds(t, func(t *testing.T, w *editWorld) {
		// ls's own descriptor on the directory is the lowest free one: 3, unless one was
		// inherited.
		const list = `ls /proc/self/fd | sort -n | tr '\n' ' '`
		const want = "0 1 2 3 "
		if out, err := w.shell(t, "exec 7</dev/null; "+list); err != nil || !strings.Contains(out, " 7 ") {
			t.Fatalf("control: the shell's descriptor 7 did not reach its command: %v %q", err, out)
		}
		for _, mode := range []struct {
			name     string
			readOnly bool
		}{{"edit mode", false}, {"read-only mode", true}} {
			w.mode(t, mode.readOnly)
			runs, refused := w.throughHook(t, list)
			if refused || !launched(runs) {
				t.Fatalf("%s: not launched in the sandbox: refused %v, %s", mode.name, refused, runs)
			}
			if out, err := w.shell(t, "exec 7</dev/null; "+runs); err != nil || out != want {
				t.Errorf("%s: the command holds %q (%v), want only its streams (%q)", mode.name, out, err, want)
			}
		}
	})
}
