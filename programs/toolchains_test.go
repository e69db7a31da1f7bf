package programs

import "testing"

// TestToolchainRules: node --version and python3 --version (or -V) alone; gofmt's reading flags,
// one a word, before the files. Every other interpreter argument is code to run, and gofmt's -w
// and -cpuprofile write files. All three run only in the sandbox (SandboxOnly), tested in hook.
func TestToolchainRules(t *testing.T) {
	check(t, true,
		r("node", "--version"),
		r("python3", "--version"),
		r("python3", "-V"),
		r("gofmt", "-l", "."),
		r("gofmt", "-d", "hook/gate.go"),
		r("gofmt", "-s", "-d", "-e", "lexer"),
		r("gofmt", "-l", loopGlob("./a.go")),
		r("gofmt", "-l", glob("./*.go")),
		r("gofmt", "-r", pat("a[b:len(a)] -> a[b:]"), "-d", "f.go"),
		r("gofmt", "-l"),
		r("gofmt", "-l", "--", "-odd.go"),
	)
	check(t, false,
		r("node").because("only `node --version`"),                                            // the REPL
		r("node", "--version", "-e", pat("require('fs')")).because("only `node --version`"),   // code after it
		r("node", "-e", pat("1")).because("only `node --version`"),                            // code
		r("node", "-v").because("only `node --version`"),                                      // not the exact form
		r("node", "script.js").because("only `node --version`"),                               // a script
		r("node", loopVar("--version")).because("only `node --version`"),                      // a loop word
		r("python3", "--version", "-c", pat("import os")).because("only `python3 --version`"), // code after it
		r("python3", "-c", "1").because("only `python3 --version`"),                           // code
		r("python3", "-m", "http.server").because("only `python3 --version`"),                 // a module
		r("python3", "-VV", "x.py").because("only `python3 --version`"),                       // a script
		r("python3").because("only `python3 --version`"),                                      // the REPL
		r("gofmt", "-w", ".").because("writes the result back"),                               // writes
		r("gofmt", "-l", "-w", ".").because("writes the result back"),                         // after another flag
		r("gofmt", "--w", ".").because("writes the result back"),                              // Go's flag package reads --w as -w
		r("gofmt", "-lw", ".").because("writes the result back"),                              // in a cluster
		r("gofmt", ".", "-w").because("writes the result back"),                               // after a file (permuted here)
		r("gofmt", "-cpuprofile", "p", ".").because("writes a profile"),                       // a profile file
		r("gofmt", "-ld", ".").because("one word each"),                                       // Go reads -ld as a flag named ld
		r("gofmt", "-r=a->b", ".").because("one word each"),                                   // an attached value, read differently
		r("gofmt", ".", "-l").because("stops reading flags at the first file"),                // a file named -l to gofmt
		r("gofmt", "-l=true", ".").because("not on the read-only allowlist"),                  // Go's =value form
		r("gofmt", "-r", loopGlob("x"), ".").because("glob"),                                  // a loop word over a glob as the rule
	)
}
