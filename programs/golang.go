package programs

import (
	"strings"

	"github.com/hookctl/hookctl/internal/clip"
	"github.com/hookctl/hookctl/internal/wordlist"
)

// go is allowed for the questions an agent asks a Go toolchain: go version, go env, go list and
// go doc (goSubcommands). None builds, tests, generates or fetches, but the go command runs
// programs and writes files on the way, chosen by files the project brings or the user's go env
// file (measured with go 1.26.8):
//   - toolchain switching: a go.mod `toolchain go1.99.9` (or a newer `go` line) makes go run
//     another toolchain, downloaded from the module proxy (GOTOOLCHAIN=auto) or found on PATH
//     (GOTOOLCHAIN=path, which ran a go1.99.9 on PATH). Every form runs as GOTOOLCHAIN=local:
//     the go that was judged runs, and a go.mod asking for a newer one is an error.
//   - VCS stamping: go list of a main package runs `git status` in the work tree to stamp the
//     build, and a repository's core.fsmonitor ran then. go list and go doc run as
//     GOFLAGS=-buildvcs=false. GOFLAGS in the environment replaces the go env file's (an empty
//     value does not), so its -toolexec (which go list -json ran as `TRAP compile -V=full`),
//     -mod=mod and -overlay do not apply either.
//   - downloads: go list -m and go doc resolve modules, from the proxy or `direct` by git; they
//     run as GOPROXY=off, so a module missing from the module cache is an error, not a fetch.
//   - go env (whole, -json, -changed) runs the user's C compiler (CC, default gcc) to probe
//     its flags on empty input; go list -json and -f {{.Stale}} run the toolchain's tools and
//     the compiler with -V=full and -### to identify them. The project chooses none of these.
//     go list never runs cgo or //go:generate (-compiled and -export, which do, are refused).
//   - writes: every go command writes telemetry counters under ~/.config/go/telemetry (and
//     starts a child to upload them), go list writes the build cache, go env's compiler probes
//     write in TMPDIR. Nothing turns the telemetry off but `go telemetry off`, which writes, so
//     go runs only in the OS sandbox (SandboxOnly): there the telemetry writes are refused and
//     go carries on, GOCACHE and TMPDIR are the session's scratch directory, and the network is
//     closed.
//
// The pins show in go env's output (GOTOOLCHAIN='local'), which is why go env and go version
// carry only GOTOOLCHAIN: for them the go env file's GOFLAGS applies as the user set it, and a
// -w or -u there would make go env a write, which the sandbox refuses.
//
// What: `go version`; `go env [-json] [-changed] [NAME…]`; `go list` with the flags below and
// package or module patterns; `go doc` with its printing flags and at most a package and a
// symbol. Flags as the go command's flag package reads them, before the first operand.
//
// Test: TestGoRules, TestGoRewrite (golang_test.go); TestGoPinsRealGo (hook) runs every form
// as rewritten against a project and home that spring a trap for each mechanism above, with a
// control for each, and under the real sandbox; deny/toolchains.txt.
var goRule = &Program{
	Name: "go", Summary: "ask the Go toolchain: go version, go env, go list, go doc (pinned to the local toolchain, in the sandbox only)",
	BSD:         &BSD{Same: true, Note: "the same program everywhere, with its own parser"},
	Custom:      judgeGo,
	Rewrite:     goRewrite,
	SandboxOnly: "go writes its telemetry counters and build cache under your home, which no option turns off",
}

// goSub is one go subcommand: its flags, as the go command's flag package reads them, and the
// environment it runs with.
type goSub struct {
	name string
	// bools are flags without a value (-e); attached are flags alone or with an attached value
	// (-json, -json=Name,Dir); valued are flags whose value is attached or the next word
	// (-f FORMAT, -tags=a,b), and patterns those of them whose value is a template.
	bools, attached, valued, patterns string
	refused                           Refusals
	// operands is how many operands it takes (-1: any); operand judges each.
	operands int
	operand  func(a Arg) *Refusal
	// env is what the rewrite runs it with.
	env []string
}

// goLocal runs the go that was judged, whatever go.mod asks for; goLoading adds what go list
// and go doc need: no VCS stamping and no GOFLAGS from the go env file, no downloads.
var (
	goLocal   = []string{"GOTOOLCHAIN=local"}
	goLoading = []string{"GOTOOLCHAIN=local", "GOFLAGS=-buildvcs=false", "GOPROXY=off"}
)

var goSubcommands = []goSub{
	{name: "version", operands: 0, env: goLocal,
		refused: Refusals{{"-m", "reads the build information of the named files; name none"}}},
	{name: "env", bools: "-json -changed", operands: -1, operand: goEnvName, env: goLocal,
		refused: Refusals{
			{"-w", "writes your go env file"},
			{"-u", "writes your go env file"},
		}},
	{name: "list", bools: "-e -m -deps -test -find", attached: "-json", valued: "-f -tags", patterns: "-f",
		operands: -1, env: goLoading,
		refused: Refusals{
			{"-compiled", "runs cgo, and so the C compiler on the project's C code"},
			{"-export", "compiles the packages"},
			{"-toolexec", "runs a program for each tool"},
			{"-exec", "runs a program"},
			{"-u", "asks the module proxy for updates"},
			{"-versions", "asks the module proxy"},
			{"-retracted", "asks the module proxy"},
			{"-mod", "with -mod=mod rewrites go.mod and go.sum"},
			{"-modfile", "names another go.mod, which go may rewrite"},
			{"-overlay", "replaces source files with others"},
			{"-reuse", "reads a file"},
			{"-C", "changes directory; cd first"},
		}},
	{name: "doc", bools: "-all -c -cmd -short -src -u", operands: 2, env: goLoading,
		refused: Refusals{
			{"-http", "starts a web server, and downloads and runs pkgsite"},
			{"-C", "changes directory; cd first"},
		}},
}

// lookupGoSub returns the rule for a go subcommand, or nil if go may not run it.
func lookupGoSub(name string) *goSub {
	return lookupNamed(goSubcommands, name, func(s *goSub) string { return s.name })
}

func judgeGo(args []Arg) *Refusal {
	if len(args) == 0 || args[0].Pattern || args[0].Var {
		return refuse("go", "needs a subcommand: version, env, list or doc")
	}
	s := lookupGoSub(args[0].Value)
	if s == nil {
		return &Refusal{Program: "go", What: "`go " + clip.Short(args[0].Value) + "` is not a read: only version, env, list and doc are allowed (the others build, run, test, generate or fetch code)",
			Hint: "go list ./..., go doc PKG SYMBOL, go env NAME; or read_only_runners in your config for builds"}
	}
	prog := "go " + s.name
	operands := 0
	flags := true
	rest := args[1:]
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		v := a.Value
		if flags && strings.HasPrefix(v, "-") && v != "-" {
			if a.Var {
				return refuse(prog, "a loop variable may only be an operand, and `%s` reads as a flag", clip.Short(v))
			}
			if v == "--" {
				return refuse(prog, "`--` is not needed here")
			}
			// The flag package reads --name as -name.
			name, _, hasVal := strings.Cut(strings.TrimPrefix(v[1:], "-"), "=")
			name = "-" + name
			switch {
			case wordlist.Has(s.bools, name):
				if hasVal {
					return refuse(prog, "write the flag `%s` without a value", name)
				}
			case wordlist.Has(s.attached, name):
			case wordlist.Has(s.valued, name):
				if !hasVal {
					// The flag package takes the next word whatever it starts with; a value that
					// looks like a flag is refused, so no reading can take it for one.
					if i+1 == len(rest) {
						return refuse(prog, "flag `%s` needs a value", name)
					}
					i++
					a = rest[i]
					if strings.HasPrefix(a.Value, "-") || a.Var {
						return refuse(prog, "the value of `%s` may not start with `-` or be a loop variable; attach it: %s=VALUE", name, name)
					}
				}
			default:
				if why, ok := s.refused.why(name); ok {
					return refuse(prog, "`%s` %s", name, why)
				}
				return refuse(prog, "flag `%s` is not on the read-only allowlist", clip.Short(name))
			}
			if a.Pattern && !wordlist.Has(s.patterns, name) {
				return refuse(prog, "shell syntax in the value of `%s` is not allowed", name)
			}
			continue
		}
		// The flag package stops at the first operand: every word after it is an operand, and
		// one that looks like a flag is refused, since go would take it for a package.
		flags = false
		if strings.HasPrefix(v, "-") {
			return refuse(prog, "`%s` after an operand is not a flag to go; put flags first", clip.Short(v))
		}
		if a.Pattern {
			return refuse(prog, "shell syntax in the argument `%s` is not allowed", clip.Short(v))
		}
		if s.operand != nil {
			if r := s.operand(a); r != nil {
				return r
			}
		}
		operands++
	}
	switch {
	case s.operands == 0 && operands > 0:
		return refuse(prog, "takes no operand")
	case s.operands > 0 && operands > s.operands:
		return refuse(prog, "takes at most %d operands (a package and a symbol)", s.operands)
	}
	return nil
}

// goEnvName admits a variable's name: go env prints it. NAME=VALUE is refused (go env reads it
// as a request to set).
func goEnvName(a Arg) *Refusal {
	v := a.Value
	ok := v != "" && v[0] >= 'A' && v[0] <= 'Z'
	for i := 0; ok && i < len(v); i++ {
		c := v[i]
		ok = c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
	}
	if !ok {
		return refuse("go env", "`%s` is not a variable's name (NAME, upper case)", clip.Short(v))
	}
	return nil
}

// goRewrite runs the subcommand with its pins (goSub.env); the words are as judged.
func goRewrite(args []string) (env, out []string) {
	if len(args) > 0 {
		if s := lookupGoSub(args[0]); s != nil {
			return s.env, args
		}
	}
	return goLocal, args
}
