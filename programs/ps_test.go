package programs

import "testing"

// TestPsNeverPrintsEnvironments: ps lists processes and their names, but no form prints their
// environment (procps's BSD letter e, FreeBSD's -e, macOS's and FreeBSD's -E) or their command
// lines, where secrets are passed (BSD words without c, -f, -F, -O, the args columns: issue 23).
func TestPsNeverPrintsEnvironments(t *testing.T) {
	check(t, true,
		r("ps"),
		r("ps", "auxc"),
		r("ps", "axc"),
		r("ps", "auxwwc"),
		r("ps", "axjfc"),
		r("ps", "auxc", "--sort=-%mem"),
		r("ps", "-A"),
		r("ps", "-A", "-o", "pid,ppid,comm"),
		r("ps", "-o", "pid,etime,comm", "-p", "1234"),
		r("ps", "-p", "1"),
		r("ps", "-u", "root"),
		r("ps", "-C", "node", "-o", "pid="),
		r("ps", "--forest", "-A"),
		r("ps", "-lww"),
		r("ps", "--no-headers", "-A", "-o", "rss"),
	)
	check(t, false,
		r("ps", "aux").because("command line"),                            // issue 23: every process's arguments
		r("ps", "ax").because("command line"),                             // the same
		r("ps", "-Af").because("command line"),                            // -f's CMD
		r("ps", "-fu", "root").because("command line"),                    // in a cluster
		r("ps", "-F").because("command line"),                             // -F's
		r("ps", "-O", "user").because("command line"),                     // -O's default columns
		r("ps", "-A", "-o", "pid,args").because("command line"),           // the args column
		r("ps", "-o", "cmd", "-p", "1").because("command line"),           // cmd
		r("ps", "-o", "pid,command").because("command line"),              // command
		r("ps", "e").because("environment"),                               // procps: each process's environment
		r("ps", "eww").because("environment"),                             // the same, wide
		r("ps", "auxe").because("environment"),                            // e among other letters
		r("ps", "auxeww").because("environment"),                          // the same
		r("ps", "E").because("environment"),                               // BSD's -E as a letter (macOS: -E)
		r("ps", "-e").because("environment"),                              // FreeBSD: the environment
		r("ps", "-ef").because("environment"),                             // the same, in a cluster
		r("ps", "-fe").because("command line"),                            // -f first: its command line
		r("ps", "-E").because("environment"),                              // macOS, FreeBSD
		r("ps", "-A", "-E").because("environment"),                        // after another option
		r("ps", "-o", "pid", "-e").because("environment"),                 // after a value
		r("ps", "auxc", "e").because("no operands"),                       // a second BSD word: procps reads e there too
		r("ps", "-A", "ax").because("no operands"),                        // BSD letters only first
		r("ps", "auxc", "ww", "e").because("no operands"),                 // the same
		r("ps", "1234").because("not on the read-only allowlist"),         // BSD: a pid; not a letter word
		r("ps", "aq").because("not on the read-only allowlist"),           // a letter not listed
		r("ps", "axo", "pid").because("not on the read-only allowlist"),   // BSD o takes a value: use -o
		r("ps", "-M", "core").because("not on the read-only allowlist"),   // FreeBSD: read a kernel core
		r("ps", "-N", "kernel").because("not on the read-only allowlist"), // FreeBSD: a kernel image
		r("ps", loopVar("aux")).because("BSD letters written out"),        // a loop word as the letters
		r("ps", pat("a;x")).because("BSD letters written out"),            // quoted shell syntax
		r("ps", "-o", pat("pid;x")).because("shell syntax in the value"),  // quoted shell syntax in a value
		r("ps", "--sor=pid").because("not on the read-only allowlist"),    // abbreviation
		r("ps", "-p", "-1").because("may not start with `-`"),             // a separate value like an option
	)
}
