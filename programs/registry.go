package programs

import (
	"fmt"
	"sort"
	"strings"
)

// all is the allowlist. A program not here is refused.
var all = []*Program{
	gitRule,
	catRule, headRule, tailRule, wcRule, lsRule, treeRule, statRule, fileRule, duRule, dfRule,
	basenameRule, dirnameRule, realpathRule, readlinkRule,
	grepRule, rgRule, findRule, sedRule, sortRule, uniqRule, cutRule, trRule, diffRule, cmpRule, jqRule,
	dateRule, echoRule, pwdRule, trueRule, falseRule, idRule, whoamiRule, unameRule, whichRule, nprocRule,
	md5sumRule, sha1sumRule, sha256sumRule, sha512sumRule, b2sumRule, cksumRule, awkRule, gawkRule, mawkRule, nawkRule,
	tmuxRule, plutilRule, defaultsRule, launchctlRule, cargoRule, rustcRule, goRule, npmRule,
	commandRule, typeRule, printenvRule, envRule, printfRule, ulimitRule, xargsRule,
	columnRule, nlRule, pasteRule, revRule, commRule, odRule, hexdumpRule, stringsRule, xxdRule,
	hostnameRule, uptimeRule, freeRule, localeRule, psRule, testRule, bracketRule,
	nodeRule, python3Rule, gofmtRule,
	hookctlReadOnlyRule,
}

// Lookup returns the rule for the named program, or nil if it is not on the allowlist. A linear
// search of a short list costs less than building a map on every hook start.
// TestAllowlistWellFormed checks that no program is listed twice.
func Lookup(name string) *Program {
	for _, p := range all {
		if p.Name == name {
			return p
		}
	}
	return nil
}

// All returns the allowlist, sorted by name.
func All() []*Program {
	out := append([]*Program(nil), all...)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Names returns the allowed program names, sorted, for deny hints.
func Names() []string {
	out := make([]string, 0, len(all))
	for _, p := range All() {
		out = append(out, p.Name)
	}
	return out
}

// AnyArgumentNames returns the programs that take any argument (Program.AnyArgument).
func AnyArgumentNames() []string {
	var out []string
	for _, p := range All() {
		if p.AnyArgument {
			out = append(out, p.Name)
		}
	}
	return out
}

// FilterNames returns the programs that may stand after a pipe.
func FilterNames() []string {
	var out []string
	for _, p := range All() {
		if p.Filter {
			out = append(out, p.Name)
		}
	}
	return out
}

// Judge applies the program's rule to its arguments.
func (p *Program) Judge(args []Arg) *Refusal { return p.judge(args, nil) }

// JudgeReads applies the program's rule to its arguments and, when they are allowed, appends to
// reads the words the program may open and read (operands and option values that are not
// patterns; nothing for a program that reads only names: NamesOnly), for the sensitive-file
// rule. A word may name no file at all (a count, a sort key): the rule only asks whether a word
// names a secret.
func (p *Program) JudgeReads(args []Arg, reads *[]string) *Refusal {
	var acc Access
	if r := p.judge(args, &acc); r != nil {
		return r
	}
	*reads = append(*reads, acc.Files...)
	return nil
}

// JudgeAccess is JudgeReads with everything the call may read: the words it opens, its walks and
// its files of names (Access).
func (p *Program) JudgeAccess(args []Arg, acc *Access) *Refusal { return p.judge(args, acc) }

// RewriteArgs returns the environment assignments and arguments to run in place of args.
func (p *Program) RewriteArgs(args []string) (env, out []string) {
	if p.Rewrite == nil {
		return nil, args
	}
	return p.Rewrite(args)
}

func sortStrings(s []string) { sort.Strings(s) }

// reference renders the allowlist as Markdown: the programs, what each may do, and its option
// tables. docs/allowlist.md holds this text; a test keeps the two in sync.
func reference() string {
	var b strings.Builder
	b.WriteString("# Read-only allowlist\n\n")
	b.WriteString("Generated from `programs/` by `go test ./programs -run TestReference -update`; do not edit by hand.\n")
	b.WriteString("A program or option not listed here is refused. Long options match exactly (no abbreviations).\n")
	for _, p := range All() {
		b.WriteString("\n## " + p.Name + "\n\n" + strings.ToUpper(p.Summary[:1]) + p.Summary[1:] + ".")
		if p.Filter {
			b.WriteString(" May read a pipe.")
		}
		b.WriteString("\n")
		if p.BSD != nil {
			b.WriteString("\nBSD (macOS, FreeBSD): " + p.BSD.Note + ".\n")
		}
		switch {
		case p.Name == "git":
			writeGitReference(&b)
		case p.Name == "find":
			writeFindReference(&b)
		case p.Name == "go":
			writeGoReference(&b)
		case p.Name == "npm":
			b.WriteString("\n`npm --version` or `npm -v` alone; `npm ls` (or `list`) with:\n")
			writeOptions(&b, npmLsOpts, true)
		case p.Opts != nil:
			writeOptions(&b, p.Opts, true)
		}
		if p.Check != nil && isAwkRule(p) {
			writeAwkReference(&b)
		}
		if p.SandboxOnly != "" {
			b.WriteString("\nRuns only in the sandbox: " + p.SandboxOnly + ".\n")
		}
	}
	return b.String()
}

func writeOptions(b *strings.Builder, o *Options, refused bool) {
	row := func(label, list string) {
		if f := strings.Fields(list); len(f) > 0 {
			b.WriteString("- " + label + ": `" + strings.Join(f, "` `") + "`\n")
		}
	}
	b.WriteString("\n")
	row("flags", o.Flags)
	row("with a value", o.Valued)
	row("with an attached value", o.Optional)
	if o.Digits {
		b.WriteString("- `-NUM` as a count\n")
	}
	if refused && len(o.Refused) > 0 {
		var parts []string
		for _, r := range o.Refused {
			parts = append(parts, "`"+r.Name+"` ("+r.Why+")")
		}
		b.WriteString("- refused: " + strings.Join(parts, ", ") + "\n")
	}
}

func writeGitReference(b *strings.Builder) {
	b.WriteString("\nBSD (macOS, FreeBSD): the same program everywhere; it stops reading options at the first operand, as modelled here.\n")
	b.WriteString("\nGlobal options:\n")
	writeOptions(b, gitGlobal, true)
	names := make([]string, 0, len(gitSubcommands))
	for _, s := range gitSubcommands {
		names = append(names, s.name)
	}
	sort.Strings(names)
	for _, n := range names {
		b.WriteString("\n### git " + n + "\n")
		s := lookupGitSub(n)
		writeOptions(b, s.opts, false) // the danger list is the same for every subcommand; listed once below
		if len(s.inject) > 0 {
			b.WriteString("- the hook adds: `" + strings.Join(s.inject, "` `") + "`\n")
		}
	}
	b.WriteString("\nRefused in every position, in full or abbreviated:\n\n")
	for _, r := range gitDangers {
		b.WriteString("- `" + r.Name + "` " + r.Why + "\n")
	}
	b.WriteString("\nEvery git command runs as `" + strings.Join(gitEnv, " ") + " git " + strings.Join(gitPinned, " ") + " …`.\n")
}

func writeGoReference(b *strings.Builder) {
	for _, s := range goSubcommands {
		b.WriteString("\n### go " + s.name + "\n\n")
		row := func(label, list string) {
			if f := strings.Fields(list); len(f) > 0 {
				b.WriteString("- " + label + ": `" + strings.Join(f, "` `") + "`\n")
			}
		}
		row("flags", s.bools)
		row("alone or with an attached value", s.attached)
		row("with a value", s.valued)
		switch {
		case s.operands == 0:
			b.WriteString("- no operands\n")
		case s.operands > 0:
			b.WriteString(fmt.Sprintf("- at most %d operands\n", s.operands))
		}
		var parts []string
		for _, r := range s.refused {
			parts = append(parts, "`"+r.Name+"` ("+r.Why+")")
		}
		if len(parts) > 0 {
			b.WriteString("- refused: " + strings.Join(parts, ", ") + "\n")
		}
		b.WriteString("- runs as `" + strings.Join(s.env, " ") + " go " + s.name + " …`\n")
	}
}

func writeFindReference(b *strings.Builder) {
	names := make([]string, 0, len(findPrimaries))
	for _, p := range findPrimaries {
		names = append(names, p.name)
	}
	sort.Strings(names)
	b.WriteString("\n- primaries: `" + strings.Join(names, "` `") + "` and `-newerXY`\n")
	var parts []string
	for _, r := range findRefused {
		parts = append(parts, "`"+r.Name+"` ("+r.Why+")")
	}
	b.WriteString("- refused: " + strings.Join(parts, ", ") + "\n")
}
