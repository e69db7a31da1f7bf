package nested

import (
	"strings"

	"github.com/hookctl/hookctl/internal/wordlist"
)

// The programs that run code given to them, as data: where each one finds its code. The edit
// guard reads the code where it is written out (an option's value, awk's program, a
// here-document or here-string, an echo piped in) and judges it; the download rule asks
// whether an interpreter reads its program from standard input; the read-only hint names them.
//
// Test: TestInterpreters (interpreters_test.go); editguard's TestInterpreterCode.

// Interpreter is how one program that runs code finds it.
type Interpreter struct {
	// Names are program names, each also matching itself followed by a version made of digits
	// and dots (python3.12, perl5.36).
	Names []string
	// Language says how a judge reads the code: "shell" (parsed and judged as shell), "make" (a
	// makefile: its recipes are shell), "" (code in another language, which a judge can only
	// scan for what it names).
	Language string
	// Code are short option letters whose value is code (python -c, perl -e): standard input
	// is then data. CodeLong are long options whose value is code (node --eval).
	Code     string
	CodeLong string
	// Program are short option letters whose value names the program otherwise (python -m
	// MODULE): standard input is then data.
	Program string
	// Valued are short option letters taking a value, attached or the next word; Attached
	// take the rest of their word only (perl -MModule).
	Valued   string
	Attached string
	// Stdin are short option letters that make it read its code from standard input (sh -s).
	Stdin string
	// Files are short option letters whose value is a file of code (awk -f, make -f); `-` or
	// /dev/stdin there reads standard input.
	Files string
	// FirstOperand: the first operand is the code unless a Files or Code option gives it (awk).
	FirstOperand bool
	// NoDefaultStdin: without code, a script file or -, it does not read standard input (make
	// reads Makefile; awk needs a program).
	NoDefaultStdin bool
}

var interpreters = []*Interpreter{
	{Names: []string{"sh", "bash", "zsh", "dash", "ksh", "mksh", "ash"}, Language: "shell", Code: "c", Valued: "oO", Stdin: "s"},
	{Names: []string{"fish"}, Language: "shell", Code: "c", CodeLong: "--command"},
	{Names: []string{"python", "pypy"}, Code: "c", Program: "m", Valued: "WX"},
	{Names: []string{"perl"}, Code: "eE", Valued: "I", Attached: "mMxdD"},
	{Names: []string{"ruby"}, Code: "e", Valued: "IrCE"},
	{Names: []string{"node", "nodejs", "bun"}, Code: "ep", CodeLong: "--eval --print", Valued: "r"},
	{Names: []string{"php"}, Code: "rRBE", Valued: "dcz", Files: "f"},
	{Names: []string{"awk", "gawk", "mawk", "nawk"}, Code: "e", CodeLong: "--source", Valued: "Fvi", Files: "f",
		FirstOperand: true, NoDefaultStdin: true},
	{Names: []string{"expect"}, Code: "c", Valued: "D", Files: "f"},
	{Names: []string{"tclsh", "wish"}},
	{Names: []string{"lua", "luajit"}, Code: "e", Valued: "l"},
	{Names: []string{"Rscript"}, Code: "e"},
	{Names: []string{"julia"}, Code: "eE", CodeLong: "--eval --print"},
	{Names: []string{"osascript"}, Code: "e"},
	{Names: []string{"make", "gmake"}, Language: "make", CodeLong: "--eval", Valued: "CIWo", Files: "f",
		NoDefaultStdin: true},
}

// LookupInterpreter returns the interpreter table for a program's base name, or nil.
func LookupInterpreter(name string) *Interpreter {
	for _, in := range interpreters {
		for _, n := range in.Names {
			if rest, ok := strings.CutPrefix(name, n); ok && strings.Trim(rest, "0123456789.") == "" {
				return in
			}
		}
	}
	return nil
}

// Code is one piece of code an interpreter's arguments give it.
type Code struct {
	Arg  int    // the index of the word holding it
	Text string // the code, as written (a value attached to its option: what follows it)
}

// CodeArgs returns the code an interpreter's arguments hold (option values, awk's first
// operand), and whether it reads its program from standard input as well.
func (in *Interpreter) CodeArgs(args []string) (code []Code, stdin bool) {
	given := false    // the code comes from an option or a file
	stdinOpt := false // sh -s: the operands are arguments
	ended := false    // after --, every word is an operand
	for i := 0; i < len(args); i++ {
		v := args[i]
		switch {
		case !ended && v == "--":
			ended = true
		case !ended && strings.HasPrefix(v, "--"):
			name, val, has := strings.Cut(v, "=")
			if wordlist.Has(in.CodeLong, name) {
				given = true
				if has {
					code = append(code, Code{Arg: i, Text: val})
				} else if i+1 < len(args) {
					i++
					code = append(code, Code{Arg: i, Text: args[i]})
				}
			}
		case !ended && len(v) > 1 && (v[0] == '-' || v[0] == '+' && in.Stdin != ""):
			for k := 1; k < len(v); k++ {
				c := v[k]
				switch {
				case strings.IndexByte(in.Code+in.Files+in.Program, c) >= 0:
					given = true
					val, at := v[k+1:], i
					if val == "" && i+1 < len(args) {
						i++
						val, at = args[i], i
					}
					switch {
					case strings.IndexByte(in.Code, c) >= 0:
						code = append(code, Code{Arg: at, Text: val})
					case strings.IndexByte(in.Files, c) >= 0 && isStdin(val):
						return code, true
					}
					k = len(v)
				case strings.IndexByte(in.Stdin, c) >= 0:
					stdinOpt = true
				case strings.IndexByte(in.Valued, c) >= 0:
					if k == len(v)-1 {
						i++
					}
					k = len(v)
				case strings.IndexByte(in.Attached, c) >= 0:
					k = len(v)
				}
			}
		case given || stdinOpt:
			return code, stdinOpt && !given // the operands are the code's arguments
		case isStdin(v):
			return code, true
		case in.FirstOperand:
			return append(code, Code{Arg: i, Text: v}), false
		default:
			return code, false // a script file, which is not opened
		}
	}
	return code, !given && (stdinOpt || !in.NoDefaultStdin)
}

func isStdin(v string) bool { return v == "-" || v == "/dev/stdin" || v == "/dev/fd/0" }

// ReadsProgram reports whether an interpreter called with args reads its program from
// standard input.
func (in *Interpreter) ReadsProgram(args []string) bool {
	_, stdin := in.CodeArgs(args)
	return stdin
}
