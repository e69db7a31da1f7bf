package programs

import (
	"strings"

	"github.com/hookctl/hookctl/internal/secrets"
)

// grep searches files for a regular expression. GNU grep has no option that writes or runs
// anything; its patterns are pattern slots.
//
// A recursive grep (-r, -R, -d recurse) would print the secret files it walks into: the rewrite
// excludes their names (secrets.ExcludeGlobs, ExcludeDirs) with --exclude and --exclude-dir,
// right before the first operand. There they follow every option GNU grep reads from the call,
// which matters because GNU lets the last matching --include or --exclude win (measured on grep
// 3.8: `--exclude=.env --include='*'` searched .env), and BSD grep, whose exclusions win in any
// order, still reads them (it stops reading options at the first operand under
// POSIXLY_CORRECT). When the call has --include or --exclude after its first operand (`grep -rn
// PATTERN --include='*.go' .`), the exclusions are added again after the last of them.
//
// Refuses: every option not listed. Test: TestGrepRules, TestGrepRecursiveExcludesSecrets
// (grep_test.go); TestRecursiveReadsSkipSecrets (hook) runs both rewrites.
var grepRule = &Program{
	Name: "grep", Summary: "search files for a pattern", Files: true, Filter: true,
	BSD:            &BSD{Getopt: "0123456789A:B:C:D:EFGHIJLMOPSRUVXZabcd:e:f:hilm:nopqrsuvwxyz", Lacks: "T", Long: true, Permute: true, Note: "getopt_long without `+`: permutes like GNU, and stops at the first operand under POSIXLY_CORRECT; -Z, -J, -X, -M decompress in the process; no option writes or runs a program"},
	Opts:           grepOpts,
	PatternOperand: grepPattern,
	Rewrite:        grepRewrite,
	RewriteDepth:   true,
	Walks:          grepWalks,
}

// grepPattern: grep's first operand is its pattern unless -e or -f gave one.
func grepPattern(c *ParsedArgs, i int) bool {
	return firstOperandUnless(c, i, "-e", "--regexp", "-f", "--file")
}

// grepWalks is a recursive grep's walk: its file operands, or the working directory, followed
// through every link with -R, through the starting points only with -r.
func grepWalks(args []Arg) []Walk {
	c, r := grepOpts.Parse("grep", args)
	if r != nil || !grepRecursive(c) {
		return nil
	}
	follow := FollowRoots
	if c.Has("-R", "--dereference-recursive") {
		follow = FollowAll
	}
	return []Walk{{Roots: operandRoots(c, grepPattern), Follow: follow, Excluded: true}}
}

// operandRoots are a parsed call's operands that are not patterns, or "." when there are none:
// where a search starts.
func operandRoots(c *ParsedArgs, pattern func(c *ParsedArgs, i int) bool) []string {
	var roots []string
	for i, a := range c.Operands {
		if pattern == nil || !pattern(c, i) {
			roots = append(roots, a.Value)
		}
	}
	if len(roots) == 0 {
		roots = []string{"."}
	}
	return roots
}

// grepOpts is grep's table, a variable of its own so that the rewrite can parse with it.
var grepOpts = &Options{
	Flags: "-E -F -G -P -i -y -v -w -x -c -L -l -o -q -s -b -H -h -n -T -Z -z -a -I -r -R -U " +
		"--extended-regexp --fixed-strings --basic-regexp --perl-regexp --ignore-case --no-ignore-case " +
		"--invert-match --word-regexp --line-regexp --count --files-without-match --files-with-matches " +
		"--only-matching --quiet --silent --no-messages --byte-offset --with-filename --no-filename " +
		"--line-number --initial-tab --null --null-data --text --recursive --dereference-recursive " +
		"--line-buffered --binary -V --version",
	Valued: "-e -f -m -A -B -C -d -D --regexp --file --max-count --after-context --before-context --context " +
		"--include --exclude --exclude-dir --exclude-from --label --binary-files --directories --devices",
	Optional: "--color --colour",
	Patterns: "-e --regexp --include --exclude --exclude-dir",
	Digits:   true,
}

// grepRecursive reports whether a parsed grep call walks directories.
func grepRecursive(c *ParsedArgs) bool {
	if c.Has("-r", "-R", "--recursive", "--dereference-recursive") {
		return true
	}
	for _, v := range c.Values("-d", "--directories") {
		if strings.HasPrefix("recurse", v) && v != "" {
			return true
		}
	}
	return false
}

// grepRewrite adds, to a recursive grep, an --exclude for each secret file name and an
// --exclude-dir for each credential directory: right before the first operand, and again after
// the call's last --include, --exclude or --exclude-dir when one follows the first operand
// (`grep -rn PATTERN --include='*.go' .`), so that GNU grep, which permutes and lets the last
// matching one win, reads the hook's last.
func grepRewrite(args []string) ([]string, []string) {
	parsed := make([]Arg, len(args))
	for i, a := range args {
		parsed[i] = Arg{Value: a}
	}
	c, r := grepOpts.Parse("grep", parsed)
	if r != nil || !grepRecursive(c) {
		return nil, args
	}
	at := firstOperandAt(grepOpts, args)
	if at > 0 && args[at-1] == "--" {
		at-- // before the --, where options are still read
	}
	again := -1 // the index after the last include or exclude option past the first operand
	for i := at; i < len(args) && args[i] != "--"; i++ {
		for _, n := range []string{"--include", "--exclude", "--exclude-dir", "--exclude-from"} {
			switch {
			case args[i] == n:
				again = min(i+2, len(args)) // the value is the next word
			case strings.HasPrefix(args[i], n+"="):
				again = i + 1
			}
		}
	}
	var ex []string
	for _, g := range secrets.ExcludeGlobs {
		ex = append(ex, "--exclude="+g)
	}
	for _, d := range secrets.ExcludeDirs {
		ex = append(ex, "--exclude-dir="+d)
	}
	out := make([]string, 0, len(args)+2*len(ex))
	out = append(append(out, args[:at]...), ex...)
	if again < 0 {
		return nil, append(out, args[at:]...)
	}
	out = append(append(out, args[at:again]...), ex...)
	return nil, append(out, args[again:]...)
}

// rg (ripgrep) searches files. It can run programs three ways, all refused: --pre runs a
// preprocessor on every file searched, --hostname-bin runs a program to find the host name, and
// -z/--search-zip runs decompressors. Its config file (RIPGREP_CONFIG_PATH) could add any of
// them, so the rewrite resets that variable and passes --no-config.
//
// Refuses: --pre, --pre-glob, --hostname-bin, -z/--search-zip, and their abbreviations (rg
// matches long names exactly, and so does this table). Test: TestRgRefusesExec (grep_test.go),
// TestRewritePinsConfig (hook). Its walks skip secret files (rgRewrite): TestRecursiveReadsSkipSecrets.
var rgRule = &Program{
	Name: "rg", Summary: "search files for a pattern (no --pre, -z, --hostname-bin)", Files: true, Filter: true,
	BSD:            &BSD{Same: true, Note: "the same program (ripgrep) everywhere, with its own parser"},
	Opts:           rgOpts,
	PatternOperand: rgPattern,
	Rewrite:        rgRewrite,
	RewriteDepth:   true,
	Walks:          rgWalks,
}

// rgOpts is rg's table, a variable of its own so that its walks can parse with it.
var rgOpts = &Options{
	Flags: "-i -s -S -v -w -x -F -c -l -n -N -H -I -o -q -u -L -a -U -P -0 -p -b " +
		"--ignore-case --case-sensitive --smart-case --invert-match --word-regexp --line-regexp --fixed-strings " +
		"--count --count-matches --files-with-matches --files-without-match --files --line-number --no-line-number " +
		"--with-filename --no-filename --only-matching --quiet --hidden --no-hidden --no-ignore --no-ignore-vcs " +
		"--no-ignore-dot --no-ignore-global --no-ignore-parent --no-ignore-exclude --no-ignore-files --follow " +
		"--text --multiline --multiline-dotall --pcre2 --auto-hybrid-regex --null --null-data --pretty --heading " +
		"--no-heading --column --no-column --json --no-messages --stats --trim --vimgrep --byte-offset --binary " +
		"--crlf --no-unicode --type-list --sort-files --passthru --debug --trace --no-config --one-file-system " +
		"--max-columns-preview --include-zero --line-buffered --block-buffered --unrestricted -V --version",
	Valued: "-e -f -g -t -T -A -B -C -m -d -M -j -r -E --regexp --file --glob --iglob --type --type-not --type-add " +
		"--type-clear --after-context --before-context --context --max-count --max-depth --max-columns " +
		"--max-filesize --threads --sort --sortr --color --colors --replace --encoding --engine --path-separator " +
		"--context-separator --field-match-separator --field-context-separator --ignore-file",
	Patterns: "-e --regexp -g --glob --iglob -r --replace --type-add --context-separator",
	Refused:  Refusals{{"--pre", "runs a program on every file searched"}, {"--pre-glob", "chooses files for --pre"}, {"--hostname-bin", "runs a program"}, {"-z", "runs decompression programs"}, {"--search-zip", "runs decompression programs"}},
}

// rgPattern: rg's first operand is its pattern unless -e or -f gave one, or it only lists.
func rgPattern(c *ParsedArgs, i int) bool {
	return firstOperandUnless(c, i, "-e", "--regexp", "-f", "--file", "--files", "--type-list")
}

// rgWalks is rg's walk of its operands or the working directory (unless it only lists names or
// types), through every link with -L.
func rgWalks(args []Arg) []Walk {
	c, r := rgOpts.Parse("rg", args)
	if r != nil || c.Has("--files", "--type-list") {
		return nil
	}
	follow := FollowRoots
	if c.Has("-L", "--follow") {
		follow = FollowAll
	}
	return []Walk{{Roots: operandRoots(c, rgPattern), Follow: follow, Excluded: true}}
}

// rgRewrite turns off rg's config file and, last among the options, excludes the secret file
// names and credential directories from every walk with one --iglob '!{…}'. rg applies every
// --iglob after every -g and lets the last matching one win, so an --iglob of the agent's
// (`rg --iglob .env TOKEN`) outranked the -g this was (issue 23, item 6); the last --iglob is
// the hook's. Files named on the command line are searched whatever the globs say; the
// sensitive-file rule judges those by name.
func rgRewrite(args []string) ([]string, []string) {
	at := len(args)
	for i, a := range args {
		if a == "--" {
			at = i
			break
		}
	}
	out := make([]string, 0, len(args)+3)
	out = append(out, "--no-config")
	out = append(out, args[:at]...)
	out = append(out, "--iglob", ExclusionGlob())
	return []string{"RIPGREP_CONFIG_PATH="}, append(out, args[at:]...)
}

// ExclusionGlob is the one glob rg (and gitignore-style matchers) exclude secret names with:
// !{…} of every secrets.ExcludeGlobs and ExcludeDirs.
func ExclusionGlob() string {
	var b strings.Builder
	b.WriteString("!{")
	for i, g := range append(append([]string(nil), secrets.ExcludeGlobs...), secrets.ExcludeDirs...) {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(g)
	}
	b.WriteByte('}')
	return b.String()
}
