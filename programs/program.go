// Package programs holds the read-only gate's allowlist: the programs an agent in read-only mode
// may run, and for each one the options and operands that keep it a read.
//
// The rule is "name the reads, refuse the rest". Every program is a table of the options it may
// take, split into flags and options with a value; any option not in the table is refused,
// including every abbreviation of a long option (GNU getopt and git accept unique prefixes, so
// `--out` would mean `--output`: only exact names are matched). Each rule's doc comment says why
// the program is safe, which of its write and exec forms it refuses, and which tests prove it.
//
// Judging is a pure function of the words: no file is opened, no program is run.
package programs

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/hookctl/hookctl/internal/clip"
	"github.com/hookctl/hookctl/internal/wordlist"
)

// Arg is one argument as the program will receive it.
type Arg struct {
	Value string
	// Pattern marks quoted text holding shell-operator characters (see lexer.Word.Pattern). It
	// is accepted only where the program reads the argument as a pattern, filter or script.
	Pattern bool
	// Var marks the loop variable ("$f"); Value is then one of the loop's words, and the
	// command is judged once for each. A loop variable may only be an operand: never an
	// option's value, a pattern, a script or a subcommand.
	Var bool
	// Glob marks a word with an unquoted * or ?: the shell replaces it with the file names it
	// matches, any number of them (or, in bash, leaves it as written when none match). Value is
	// the pattern, which never starts with a glob character (the lexer puts ./ first), so every
	// name it becomes starts with the same literal text. A glob may stand only where the rule
	// reads any number of file operands (Program.Files); for a loop variable over a glob, the
	// word is one such name.
	Glob bool
}

// Refusal says why a command was refused, in words for the agent.
type Refusal struct {
	Program string // the program, or "" when the program itself is not allowed
	What    string // what was refused and why, e.g. "`-i` edits files in place"
	Hint    string // what the agent can do instead; may be empty
}

func (r *Refusal) Error() string {
	s := r.What
	if r.Program != "" {
		s = r.Program + ": " + s
	}
	if r.Hint != "" {
		s += "; " + r.Hint
	}
	return s
}

func refuse(prog, format string, args ...any) *Refusal {
	return &Refusal{Program: prog, What: fmt.Sprintf(format, args...)}
}

// operandCount refuses a call of a program that takes from min to max operands with another
// count, saying why. (A Check calls it from a func literal that captures nothing: a closure
// built at package level would allocate in every hook process's start.)
func operandCount(c *ParsedArgs, min, max int, why string) *Refusal {
	if n := len(c.Operands); n < min || n > max {
		return refuse(c.Prog.Name, "%s", why)
	}
	return nil
}

// lookupNamed returns the entry of a subcommand table whose name (as nameOf reads it) is name, or
// nil. A slice searched in order, not a map: a map literal is built in every hook process's
// start.
func lookupNamed[T any](table []T, name string, nameOf func(*T) string) *T {
	for i := range table {
		if nameOf(&table[i]) == name {
			return &table[i]
		}
	}
	return nil
}

// refusePrefixed refuses the first of words that starts with prefix: `WORD` and why.
func refusePrefixed(c *ParsedArgs, words []Arg, prefix, why string) *Refusal {
	for _, a := range words {
		if strings.HasPrefix(a.Value, prefix) {
			return refuse(c.Prog.Name, "`%s` %s", clip.Short(a.Value), why)
		}
	}
	return nil
}

// Program is the rule for one program.
type Program struct {
	Name    string
	Summary string // what the program may do, for the allowlist reference and deny hints
	// Filter marks a program that reads standard input, so it may stand after a |.
	Filter bool
	// Opts lists the options the program may take. Nil for programs that parse their own
	// arguments (Judge).
	Opts *Options
	// PatternOperand reports whether operand i (counting from 0) is read as a pattern, filter or
	// script, where shell-operator characters are data.
	PatternOperand func(c *ParsedArgs, i int) bool
	// Check applies the program's own rules to the parsed call: operand counts, scripts, formats.
	Check func(c *ParsedArgs) *Refusal
	// Custom replaces option parsing for programs with their own grammar (git, find).
	Custom func(args []Arg) *Refusal
	// Rewrite returns the environment assignments and arguments the hook runs instead of args,
	// to pin off configuration that could run code. Nil: run args as given.
	Rewrite func(args []string) (env, out []string)
	// RewriteDepth marks a rewrite the call stays safe without, for a client that takes no
	// rewrite: gawk's --sandbox (its checker refuses what that turns off as written), the walk
	// exclusions of rg, grep -r and diff -r (the hook walks what such a call reads instead). git's
	// pins are not: without them the repository's configuration runs programs.
	RewriteDepth bool
	// Files marks a program whose every operand but its pattern operands (PatternOperand) is a
	// file or name it only reads or prints, any number of them meaning the same thing: there a
	// glob may stand (Arg.Glob), since the names it becomes all start with its literal prefix
	// and so read as operands, however many there are. uniq (whose second operand is written),
	// diff and cmp (two files exactly), basename (NAME SUFFIX) and every program whose operands
	// count are not Files. A Custom rule marked Files judges globs itself (find, echo); any other
	// Custom rule gets none. Test: TestGlobOperands (program_test.go), TestCorpusRefused
	// (deny/globs.txt).
	Files bool
	// BSD says how the program's BSD build (macOS, FreeBSD) parses the same words (bsd.go).
	// Every program parsed by a table has one (TestBSDTables); git's judge models its own.
	BSD *BSD
	// AnyArgument marks a program that no argument can turn to writing, running or reading a
	// file (echo prints its words; basename and dirname print parts of them): only such a
	// program may take a word whose value comes from the environment ("$PATH", "x $PWD"), which
	// the judge cannot see. Test: TestEnvironmentWords (hook), deny/expansion.txt.
	AnyArgument bool
	// SandboxOnly, when set, says why the program runs only inside the OS sandbox: what it
	// may run that no rule can see (cargo runs the toolchain a project's rust-toolchain.toml
	// names). Where the sandbox cannot apply, the hook refuses it with this reason.
	SandboxOnly string
	// LauncherOnly, when set, says why a call runs only through hookctl's launcher (the
	// sandbox, or the policy-only launch): printenv and env print the environment, which the
	// launcher reduces to an allowlist (docs/decisions/0012-environment.md); a client that runs
	// the command as written would print the client's whole environment. "" for a call that
	// needs none.
	LauncherOnly func(args []Arg) string
	// NamesOnly marks a program that reads names and metadata but never a file's content
	// (ls, stat, find): the sensitive-file rule does not look at its words (Reads), except the
	// values of ContentValues, options whose file it does read (du --files0-from reads the
	// names in it, and prints each one it cannot find: the file's content).
	NamesOnly     bool
	ContentValues string
	// Reads returns the words of a call that the program may open and read, for the
	// sensitive-file rule, for a program with its own grammar (Custom), or for a NamesOnly one
	// that runs a reader (find -exec). Nil: every word that is not a pattern, and the value of
	// every --name=value (customReads).
	Reads func(args []Arg) []string
	// Walks returns the directory walks of a call whose files' content the program reads (rg,
	// grep -r, diff -r, git grep, find -exec of a reader), for the hook to judge by where they
	// can go (issue 23): the words name where they start, not what they reach.
	Walks func(args []Arg) []Walk
	// AccessOf, for a program with its own grammar, returns everything a call may read at once,
	// in place of Reads and Walks: find, whose -exec runs another program's reads.
	AccessOf func(args []Arg) Access
	// FileLists are valued options whose value is a file of NUL-separated names the program
	// reads (sort and wc --files0-from); NameLists the same for newline-separated names (file
	// -f). The names in the file are reads too: the hook reads the list (Access.Lists).
	FileLists, NameLists string
}

// Access is what a judged call may read, for the sensitive-file rule: the words it opens
// (Files), the walks it makes (Walks) and the files of names it reads names from (Lists).
type Access struct {
	Files []string
	Walks []Walk
	Lists []FileList
}

// Follow says which symbolic links a walk follows.
type Follow uint8

const (
	// FollowNone follows no link (rg, grep -r below its starting points, find -P).
	FollowNone Follow = iota
	// FollowRoots follows a starting point that is a link (grep -r, find -H).
	FollowRoots
	// FollowAll follows every link (rg -L, grep -R, find -L, diff -r).
	FollowAll
)

// Walk is a directory walk whose files a program reads the content of.
type Walk struct {
	// Roots are the starting points as written; "." when the program starts in the working
	// directory.
	Roots  []string
	Follow Follow
	// Names, for find, are the -name patterns (fnmatch) a file must match to be read, all of
	// them; nil: every file the walk reaches. Fold: -iname.
	Names []string
	Fold  bool
	// OpensLinks: the reader opens every name the walk yields, a link too, which the open
	// follows (find -exec cat {}: find lists the link, cat reads its target).
	OpensLinks bool
	// Excluded: the hook's rewrite keeps the secret names (secrets.ExcludeGlobs, ExcludeDirs)
	// out of the walk; a client that takes no rewrite runs it without.
	Excluded bool
}

// FileList is a file of names a program reads names from: Sep separates them (0 or '\n').
// Path "-" is standard input.
type FileList struct {
	Path string
	Sep  byte
}

// Options is a program's option table. Each field is a space-separated list of option names as
// written on the command line: "-n" for a short option, "--count" for a long one.
type Options struct {
	Flags string // options without a value
	// Valued options take a value: short ones attached (-n5) or in the next word (-n 5), long
	// ones after = or in the next word.
	Valued string
	// Optional options take a value only when attached: -i.bak, --color=auto.
	Optional string
	// Patterns are the valued options whose value is a pattern, filter or format, where
	// shell-operator characters are data.
	Patterns string
	// DashValues are valued options whose value in the next word may start with `-`, because
	// the program always takes the next word (git's parse-options: `--sort -committerdate`).
	// Such a value must be `-` and a letter, then letters, digits and `:-_.()`, so that it can
	// never be read as another option by a parser that disagreed (dashValue).
	DashValues string
	// LastArgDefault are valued options whose value may be left out when they are the last
	// argument (git's --merged and --contains default to HEAD there).
	LastArgDefault string
	// Digits accepts -NUM as a count (head -20).
	Digits bool
	// NoEnd: "--" is not an end-of-options marker for this program (it is an ordinary operand).
	NoEnd bool
	// SeparateValues: a short option never takes an attached value; each valued letter in a
	// cluster takes the next word (tree's parser: -Lo 1 OUT is -L 1 -o OUT).
	SeparateValues bool
	// Refused explains refused options by name, for precise deny reasons. Every long name here
	// is also refused in abbreviated form.
	Refused Refusals
}

// Refusals pairs refused options with why they are refused. It is a slice, not a map, so that
// the tables are laid out by the compiler rather than built when the program starts: the hook
// starts on every tool call.
type Refusals []RefusedOption

// RefusedOption is one refused option and what it would do.
type RefusedOption struct{ Name, Why string }

// why returns the reason an option is refused, if it is listed.
func (rs Refusals) why(name string) (string, bool) {
	for _, r := range rs {
		if r.Name == name {
			return r.Why, true
		}
	}
	return "", false
}

// abbreviated returns the listed long option that name abbreviates, if any.
func (rs Refusals) abbreviated(name string) (RefusedOption, bool) {
	if !strings.HasPrefix(name, "--") || len(name) <= 2 {
		return RefusedOption{}, false
	}
	for _, r := range rs {
		if strings.HasPrefix(r.Name, "--") && strings.HasPrefix(r.Name, name) {
			return r, true
		}
	}
	return RefusedOption{}, false
}

type optKind uint8

const (
	optNone optKind = iota
	optFlag
	optValued
	optOptional
)

// kind says how the table lists an option name. It scans the lists in place rather than building
// a map of them: a hook process judges one command and exits, so a map would be built to be read
// a few times (building them was about 1% of a hook's CPU). validate keeps every name in at most
// one list, so the order of the scans does not matter; flags, the commonest, come first.
func (o *Options) kind(name string) optKind {
	switch {
	case wordlist.Has(o.Flags, name):
		return optFlag
	case wordlist.Has(o.Valued, name):
		return optValued
	case wordlist.Has(o.Optional, name):
		return optOptional
	}
	return optNone
}

// validate reports the first malformed entry of the table: a name listed twice, a name that is
// not an option, a pattern or last-argument default on an option without a value, an option both
// allowed and refused, or a list separated by anything but spaces (wordlist.Has splits on spaces
// only). A malformed table is a programming error; TestOptionTables validates every table, so
// one can never reach a user.
func (o *Options) validate() error {
	seen := map[string]optKind{}
	for _, l := range []struct {
		list string
		kind optKind
	}{{o.Flags, optFlag}, {o.Valued, optValued}, {o.Optional, optOptional}} {
		for _, n := range strings.Split(l.list, " ") {
			if n == "" {
				continue
			}
			if _, dup := seen[n]; dup {
				return fmt.Errorf("option listed twice: %q", n)
			}
			if strings.ContainsFunc(n, unicode.IsSpace) || !strings.HasPrefix(n, "-") || n == "-" || n == "--" ||
				(!strings.HasPrefix(n, "--") && len(n) != 2) {
				return fmt.Errorf("malformed option name: %q", n)
			}
			seen[n] = l.kind
		}
	}
	for _, n := range strings.Split(o.Patterns, " ") {
		if k := seen[n]; n != "" && k != optValued && k != optOptional {
			return fmt.Errorf("pattern option is not valued: %q", n)
		}
	}
	for _, n := range strings.Split(o.LastArgDefault, " ") {
		if n != "" && seen[n] != optValued {
			return fmt.Errorf("last-argument default on an option that is not valued: %q", n)
		}
	}
	for _, n := range strings.Split(o.DashValues, " ") {
		if n != "" && seen[n] != optValued {
			return fmt.Errorf("dash value on an option that is not valued: %q", n)
		}
	}
	for _, r := range o.Refused {
		if _, ok := seen[r.Name]; ok {
			return fmt.Errorf("option both allowed and refused: %q", r.Name)
		}
	}
	return nil
}

// Opt is one option as parsed.
type Opt struct {
	Name     string // as written, e.g. "-n" or "--max-count"
	Value    string
	HasValue bool
}

// ParsedArgs is a command's arguments after option parsing.
type ParsedArgs struct {
	Prog     *Program
	Opts     []Opt
	Operands []Arg
	// AfterEnd is the index in Operands of the first operand after "--", or -1.
	AfterEnd int
	// Usage: the BSD build stops at an option it does not know, prints its usage and exits,
	// so nothing after it is read and the rule's Check does not apply (bsd.go).
	Usage bool
	// Args are the words parsed, for rules that depend on where a word stands.
	Args []Arg
}

// Has reports whether any of the named options was given.
func (c *ParsedArgs) Has(names ...string) bool {
	for _, o := range c.Opts {
		for _, n := range names {
			if o.Name == n {
				return true
			}
		}
	}
	return false
}

// Values returns the values given to any of the named options, in order.
func (c *ParsedArgs) Values(names ...string) []string {
	var out []string
	for _, o := range c.Opts {
		for _, n := range names {
			if o.Name == n && o.HasValue {
				out = append(out, o.Value)
			}
		}
	}
	return out
}

// Parse splits args by the option table, GNU style: options may follow operands, "--" ends
// options, a separate value never starts with "-". Anything not in the table is refused.
func (o *Options) Parse(prog string, args []Arg) (*ParsedArgs, *Refusal) {
	return o.parse(prog, args, gnuReading)
}

// parse splits args as one reading of the program does (bsd.go): the GNU table's letters or the
// BSD build's, options after operands or not. A word the table does not allow is refused in
// every reading; in a BSD reading, an option the BSD build does not know ends the reading with
// Usage set, because the program prints its usage and exits before it reads anything.
func (o *Options) parse(prog string, args []Arg, rd reading) (*ParsedArgs, *Refusal) {
	c := &ParsedArgs{AfterEnd: -1, Args: args}
	ended := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		v := a.Value
		switch {
		case a.Var && strings.HasPrefix(v, "-") && !ended:
			return nil, refuse(prog, "a loop variable may only be an operand, and `%s` reads as an option", clip.Short(v))
		case a.Glob && strings.HasPrefix(v, "-") && !ended:
			return nil, refuse(prog, "a glob in an option (`%s`) is not allowed; quote the pattern", clip.Short(v))
		case ended || v == "-" || !strings.HasPrefix(v, "-"):
			c.Operands = append(c.Operands, a)
			ended = ended || rd.stop // getopt(3) ends options at the first operand
			continue
		case v == "--" && (!o.NoEnd || rd.bsd != nil):
			ended = true
			c.AfterEnd = len(c.Operands)
			continue
		case strings.HasPrefix(v, "--"):
			if rd.bsd != nil && !rd.bsd.Long {
				c.Usage = true // getopt(3) reads --name as the unknown option -
				return c, nil
			}
			name, val, hasVal := strings.Cut(v, "=")
			opt := Opt{Name: name, Value: val, HasValue: hasVal}
			switch o.kind(name) {
			case optFlag:
				if hasVal {
					return nil, refuse(prog, "option `%s` takes no value", name)
				}
			case optValued:
				if !hasVal && i+1 == len(args) && wordlist.Has(o.LastArgDefault, name) {
					break // the program's default value
				}
				if !hasVal {
					next, r := o.separateValue(prog, name, args, i)
					if r != nil {
						return nil, r
					}
					i++
					opt.Value, opt.HasValue = next.Value, true
					a = next
				}
			case optOptional:
			default:
				return nil, o.unknown(prog, name)
			}
			if a.Pattern && !wordlist.Has(o.Patterns, name) {
				return nil, refuse(prog, "shell syntax in the value of `%s` is not allowed", name)
			}
			c.Opts = append(c.Opts, opt)
		default:
			if o.Digits && allDigits(v[1:]) {
				c.Opts = append(c.Opts, Opt{Name: "-NUM", Value: v[1:], HasValue: true})
				continue
			}
			if o.Digits && v[1] >= '0' && v[1] <= '9' {
				// The obsolete -5f, -5c forms: suffixes change the meaning (f follows).
				return nil, refuse(prog, "`%s` is an obsolete form; write the count as -n N", clip.Short(v))
			}
			if rd.bsd != nil {
				n, r := o.bsdCluster(prog, c, args, i, rd.bsd)
				if r != nil {
					return nil, r
				}
				if c.Usage {
					return c, nil
				}
				i += n
				continue
			}
			// A cluster of short options: -abc, -n5, -e PATTERN.
			for j := 1; j < len(v); j++ {
				name := "-" + v[j:j+1]
				switch o.kind(name) {
				case optFlag:
					c.Opts = append(c.Opts, Opt{Name: name})
					continue
				case optValued:
					if o.SeparateValues {
						next, r := o.separateValue(prog, name, args, i)
						if r != nil {
							return nil, r
						}
						i++
						if next.Pattern && !wordlist.Has(o.Patterns, name) {
							return nil, refuse(prog, "shell syntax in the value of `%s` is not allowed", name)
						}
						c.Opts = append(c.Opts, Opt{Name: name, Value: next.Value, HasValue: true})
						continue
					}
					opt := Opt{Name: name, Value: v[j+1:], HasValue: true}
					src := a
					if j+1 == len(v) {
						next, r := o.separateValue(prog, name, args, i)
						if r != nil {
							return nil, r
						}
						i++
						opt.Value = next.Value
						src = next
					}
					if src.Pattern && !wordlist.Has(o.Patterns, name) {
						return nil, refuse(prog, "shell syntax in the value of `%s` is not allowed", name)
					}
					c.Opts = append(c.Opts, opt)
				case optOptional:
					if a.Pattern && !wordlist.Has(o.Patterns, name) {
						return nil, refuse(prog, "shell syntax in the value of `%s` is not allowed", name)
					}
					c.Opts = append(c.Opts, Opt{Name: name, Value: v[j+1:], HasValue: j+1 < len(v)})
				default:
					return nil, o.unknown(prog, name)
				}
				break // a valued option took the rest of the word
			}
		}
	}
	return c, nil
}

// separateValue returns the word after option name as its value. A value that starts with "-"
// is refused: if this table and the program disagreed about whether name takes a value, the
// program would read that word as an option the gate never judged.
func (o *Options) separateValue(prog, name string, args []Arg, i int) (Arg, *Refusal) {
	if i+1 >= len(args) {
		return Arg{}, refuse(prog, "option `%s` needs a value", name)
	}
	next := args[i+1]
	if wordlist.Has(o.DashValues, name) && dashValue(next.Value) && !next.Var && !next.Pattern {
		return next, nil
	}
	if strings.HasPrefix(next.Value, "-") {
		return Arg{}, refuse(prog, "the value of `%s` may not start with `-`; attach it: %s=VALUE", name, name)
	}
	if next.Glob {
		return Arg{}, refuse(prog, "a glob may not be the value of `%s`; quote the pattern", name)
	}
	return next, nil
}

// dashValue reports whether v is a value starting with `-` that no parser reads as an option
// of its own: `-` then a letter (never `--`), then letters, digits and `:-_.()` (a reversed git
// sort key: -committerdate, -version:refname; not -c, which reads as a short option).
func dashValue(v string) bool {
	if len(v) < 3 || v[0] != '-' || !('a' <= v[1] && v[1] <= 'z' || 'A' <= v[1] && v[1] <= 'Z') {
		return false
	}
	for i := 2; i < len(v); i++ {
		c := v[i]
		if !isIdentChar(c) && !strings.ContainsRune(":-.()", rune(c)) {
			return false
		}
	}
	return true
}

// unknown explains a refused option, naming the dangerous option it is or abbreviates.
func (o *Options) unknown(prog, name string) *Refusal {
	if why, ok := o.Refused.why(name); ok {
		return refuse(prog, "`%s` %s", name, why)
	}
	if full, ok := o.Refused.abbreviated(name); ok {
		return refuse(prog, "`%s` abbreviates `%s`, which %s", name, full.Name, full.Why)
	}
	return refuse(prog, "option `%s` is not on the read-only allowlist", name)
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// judge applies a program's rule to its arguments, once for each way a build of the program may
// parse them (readings, bsd.go): the judge cannot know which build runs, so every reading must
// be a read.
//
// With acc set, it appends what the program may read in any reading, for the sensitive-file
// rule: every operand that is not a pattern, and the value of every option that is not a
// pattern or format (Files); its walks (Walks); and its files of names (Lists).
func (p *Program) judge(args []Arg, acc *Access) *Refusal {
	if p.Custom != nil {
		if !p.Files {
			for _, a := range args {
				if a.Glob {
					return refuse(p.Name, "a glob (`%s`) is not allowed here; name the files", clip.Short(a.Value))
				}
			}
		}
		if r := p.Custom(args); r != nil || acc == nil {
			return r
		}
		if p.AccessOf != nil {
			a := p.AccessOf(args)
			acc.Files, acc.Walks, acc.Lists = append(acc.Files, a.Files...), append(acc.Walks, a.Walks...), append(acc.Lists, a.Lists...)
			return nil
		}
		switch {
		case p.Reads != nil:
			acc.Files = append(acc.Files, p.Reads(args)...)
		case !p.NamesOnly:
			acc.Files = append(acc.Files, customReads(args)...)
		}
		if p.Walks != nil {
			acc.Walks = append(acc.Walks, p.Walks(args)...)
		}
		return nil
	}
	var contentOnly bool
	reads := (*[]string)(nil)
	if acc != nil {
		reads = &acc.Files
	}
	if p.NamesOnly {
		if p.ContentValues == "" {
			reads = nil
		}
		contentOnly = true
	}
	for _, rd := range p.readings() {
		if r := p.judgeReading(args, rd, reads, contentOnly); r != nil {
			if rd != gnuReading {
				r.What += " (" + rd.says() + ")"
			}
			return r
		}
	}
	if acc != nil {
		if p.Walks != nil {
			acc.Walks = append(acc.Walks, p.Walks(args)...)
		}
		if p.FileLists != "" || p.NameLists != "" {
			acc.Lists = append(acc.Lists, p.lists(args)...)
		}
	}
	return nil
}

// lists returns the files of names a call's FileLists and NameLists options name.
func (p *Program) lists(args []Arg) []FileList {
	c, r := p.Opts.Parse(p.Name, args)
	if r != nil {
		return nil
	}
	var out []FileList
	for _, o := range c.Opts {
		switch {
		case wordlist.Has(p.FileLists, o.Name):
			out = append(out, FileList{Path: o.Value, Sep: 0})
		case wordlist.Has(p.NameLists, o.Name):
			out = append(out, FileList{Path: o.Value, Sep: '\n'})
		}
	}
	return out
}

// judgeReading applies the rule to one reading of the arguments.
func (p *Program) judgeReading(args []Arg, rd reading, reads *[]string, contentOnly bool) *Refusal {
	c, r := p.Opts.parse(p.Name, args, rd)
	if r != nil {
		return r
	}
	if c.Usage {
		return nil
	}
	c.Prog = p
	for i, a := range c.Operands {
		pattern := p.PatternOperand != nil && p.PatternOperand(c, i)
		if a.Pattern && !pattern {
			return refuse(p.Name, "shell syntax in the argument `%s` is not allowed; quote plain text only", clip.Short(a.Value))
		}
		if a.Glob && (!p.Files || pattern || strings.HasPrefix(a.Value, "-")) {
			return refuse(p.Name, "a glob (`%s`) may stand only for files %s reads", clip.Short(a.Value), p.Name)
		}
		if a.Var && a.Glob && pattern {
			// Over a literal list the loop is judged once per word, so the variable is that
			// word; over a glob it is a file name nobody has seen.
			return refuse(p.Name, "a loop variable over a glob may not be a pattern, filter or script")
		}
		if reads != nil && !pattern && !contentOnly {
			*reads = append(*reads, a.Value)
		}
	}
	if reads != nil {
		for _, o := range c.Opts {
			if contentOnly && !wordlist.Has(p.ContentValues, o.Name) {
				continue
			}
			if o.HasValue && o.Value != "" && o.Name != "-NUM" && !wordlist.Has(p.Opts.Patterns, o.Name) {
				*reads = append(*reads, o.Value)
			}
		}
	}
	if p.Check != nil {
		return p.Check(c)
	}
	return nil
}

// customReads is what a program with its own grammar may open, when its rule does not say:
// every word that is not quoted shell syntax, and the value of each --name=value.
func customReads(args []Arg) []string {
	var out []string
	for _, a := range args {
		v := a.Value
		switch {
		case a.Pattern:
		case strings.HasPrefix(v, "--"):
			if _, val, ok := strings.Cut(v, "="); ok {
				out = append(out, val)
			}
		case strings.HasPrefix(v, "-"):
		default:
			out = append(out, v)
		}
	}
	return out
}

// firstOperandAt returns the index in args of the first word a GNU parse of the table o reads as
// an operand (skipping the values of valued options, and `--`), or len(args). It runs on words
// the table has accepted.
func firstOperandAt(o *Options, args []string) int { return firstOperandFrom(o, args, 0, nil) }

// firstOperandFrom is firstOperandAt from the word at index from on; a word bare says is an
// option without a dash (git grep's `(` and `)`) is skipped as one.
func firstOperandFrom(o *Options, args []string, from int, bare func(string) bool) int {
	for i := from; i < len(args); i++ {
		v := args[i]
		switch {
		case bare != nil && bare(v):
		case v == "--":
			return i + 1
		case v == "-" || !strings.HasPrefix(v, "-"):
			return i
		case strings.HasPrefix(v, "--"):
			if !strings.Contains(v, "=") && o.kind(v) == optValued {
				i++ // the value in the next word
			}
		default:
			// A short cluster: the first valued letter takes the rest of the word, or the
			// next word when it ends the word.
			for j := 1; j < len(v); j++ {
				if o.kind("-"+v[j:j+1]) == optValued {
					if j+1 == len(v) {
						i++
					}
					break
				}
			}
		}
	}
	return len(args)
}

// firstOperandUnless reports whether operand i is the pattern of a program whose first operand is
// the pattern unless one of the named options supplies it (grep PATTERN vs grep -e PATTERN).
// Rules call it from a function literal naming the options, which the compiler lays out: a
// closure over the names would be allocated when the package starts, in every hook process.
func firstOperandUnless(c *ParsedArgs, i int, names ...string) bool {
	return i == 0 && !c.Has(names...)
}
