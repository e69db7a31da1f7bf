package programs

import (
	"strings"

	"github.com/hookctl/hookctl/internal/clip"
	"github.com/hookctl/hookctl/internal/wordlist"
)

// The toolchains' own questions: an interpreter's version, and gofmt's verdict on Go files.
// Each runs only where the OS sandbox holds (SandboxOnly), for the reason its rule gives.

// versionManagers says why an interpreter's version runs only in the sandbox: the interpreter
// prints its version before it reads any code (measured: node 20 with NODE_OPTIONS=--require
// and --import of a script, python 3.11 with a sitecustomize and usercustomize on PYTHONPATH and
// PYTHONSTARTUP, ran none of them, where `node -e 1` and `python3 -c 1` did), but the name on
// PATH is often a version manager's shim, which runs the interpreter a project's files name:
// asdf's .tool-versions may name `path:DIR`, a directory of the project's own programs, and
// pyenv before 2.3.3 followed a .python-version out of its tree (CVE-2022-35861).
const versionManagers = "the name on PATH is often a version manager's shim (asdf, mise, pyenv, volta), which runs the interpreter a project's .tool-versions, .python-version or package.json names (asdf's path:DIR: the project's own program)"

// node --version and python3 --version (or -V) print the interpreter's version. Only those exact
// words: any other argument is code to run, a script or a module (deny/interpreters.txt).
//
// Refuses: every other argument list. Test: TestToolchainRules (toolchains_test.go);
// TestToolchainsRunOnlyInTheSandbox, TestInterpreterVersionsRunNoCode (hook); deny/readers2.txt.
var (
	nodeRule = &Program{
		Name: "node", Summary: "print node's version (node --version only; in the sandbox only)", NamesOnly: true,
		BSD:         &BSD{Same: true, Note: "the same program everywhere"},
		SandboxOnly: versionManagers,
		Custom:      func(args []Arg) *Refusal { return judgeVersion("node", args, "--version") },
	}
	python3Rule = &Program{
		Name: "python3", Summary: "print python's version (python3 --version or -V only; in the sandbox only)", NamesOnly: true,
		BSD:         &BSD{Same: true, Note: "the same program everywhere"},
		SandboxOnly: versionManagers,
		Custom:      func(args []Arg) *Refusal { return judgeVersion("python3", args, "--version -V") },
	}
)

// judgeVersion admits exactly one of the words of forms, alone.
func judgeVersion(prog string, args []Arg, forms string) *Refusal {
	if len(args) == 1 && !args[0].Var && !args[0].Pattern && wordlist.Has(forms, args[0].Value) {
		return nil
	}
	what := "nothing"
	if len(args) > 0 {
		what = "`" + clip.Short(args[0].Value) + "`"
	}
	return &Refusal{Program: prog, What: "only `" + prog + " " + strings.ReplaceAll(forms, " ", "` or `"+prog+" ") + "` is a read; any other argument (here " + what + ") is code, a script or a module to run",
		Hint: "interpreters run anything; read the code with cat or rg instead"}
}

// gofmt reports how Go files differ from gofmt's formatting: -l lists them, -d prints the
// differences (Go's own diff since 1.19, no diff program), -s simplifies, -e reports every
// error, -r RULE rewrites the printed result. -w writes the result back into the files, and
// -cpuprofile FILE writes a profile. Go's flag package takes each flag as a word of its own (no
// clusters; `-r=RULE` and `--r` are forms the table does not read), and stops at the first
// operand, so the rule takes the flags exactly, before any file. It reads .go files: an
// operand is a file or a directory it walks, skipping names that start with a dot.
//
// Every gofmt run writes Go's telemetry counters under the home (~/.config/go/telemetry/local;
// measured with go 1.26, as TestExecuteAdmittedRows found for go version), which no flag or
// variable turns off, so it runs only in the sandbox, which refuses the write.
//
// Refuses: -w, -cpuprofile, any flag not written exactly, a flag after a file. Test:
// TestToolchainRules (toolchains_test.go); TestGofmtWritesTelemetry,
// TestToolchainsRunOnlyInTheSandbox (hook); deny/readers2.txt.
var gofmtRule = &Program{
	Name: "gofmt", Summary: "show how Go files differ from gofmt's formatting (-l, -d; never -w; in the sandbox only)", Files: true, Filter: true,
	BSD:         &BSD{Same: true, Note: "the same program everywhere, with Go's flag package: one flag a word, options end at the first file"},
	SandboxOnly: "gofmt writes Go's telemetry counters under your home (~/.config/go/telemetry), which only the sandbox refuses",
	Opts: &Options{
		Flags:    "-l -d -s -e",
		Valued:   "-r",
		Patterns: "-r",
		Refused: Refusals{{"-w", "writes the result back into the files"}, {"--w", "writes the result back into the files"},
			{"-c", "(-cpuprofile) writes a profile file"}},
	},
	Check: func(c *ParsedArgs) *Refusal {
		operands := false
		for i := 0; i < len(c.Args); i++ {
			v := c.Args[i].Value
			switch {
			case v == "--":
				return nil
			case operands && strings.HasPrefix(v, "-") && v != "-":
				return refuse("gofmt", "gofmt stops reading flags at the first file, so `%s` would be a file name; put the flags first", clip.Short(v))
			case !strings.HasPrefix(v, "-") || v == "-":
				operands = true
			case !wordlist.Has("-l -d -s -e -r", v):
				return refuse("gofmt", "`%s`: Go's flags are one word each (-l -d -s -e, -r RULE)", clip.Short(v))
			case v == "-r":
				i++ // the rule
			}
		}
		return nil
	},
}
