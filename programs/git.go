package programs

import (
	"path"
	"slices"
	"strings"

	"github.com/hookctl/hookctl/internal/clip"
	"github.com/hookctl/hookctl/internal/secrets"
	"github.com/hookctl/hookctl/internal/wordlist"
)

// git is allowed for its read subcommands only, each with its own option table.
//
// Why git needs the most care:
//   - Options write files or run programs: --output (diff, log, show), -O/--open-files-in-pager
//     (grep), --ext-diff and --textconv (run configured drivers), --upload-pack/-u and ext::
//     remotes (run commands), --exec-path, -c and --config-env (set any configuration, such as
//     core.pager or core.fsmonitor), --git-dir/--work-tree (point git at another repository),
//     --attr-source and --shallow-file, and signature checks (--show-signature, %G? format
//     placeholders) that run gpg.
//   - git's option parser accepts unique abbreviations of long options (--outp is --output), so
//     every long option is matched exactly against the tables and anything else is refused.
//   - Options are judged past `--` too: after `--` no word may start with `-`.
//   - Some subcommands write when given operands (git branch NAME, git tag NAME, git stash,
//     git config NAME VALUE), so their tables accept operands only in listing forms.
//   - Most subcommands permute (options may follow operands), as the tables do; git config and
//     git grep stop reading options at the first operand, so after it a word that looks like
//     an option is an operand: `git config core.hooksPath --get` sets core.hooksPath. Those
//     subcommands are marked inOrder and refuse such words (gitOptionAfterOperand). Measured on
//     git 2.39: rev-parse reads its words in order but every one of its options only prints, so
//     position changes output, never writes; all the others permute.
//   - A repository's own configuration runs code on plain reads: core.fsmonitor on status,
//     diff.external and textconv drivers on diff, core.pager, gpg.program for log.showSignature.
//     A repository committed inside a project (a bare one reached with -C or cd) brings its own
//     config. The rewrite (gitRewrite) pins all of these off on every git command it emits.
//
// Refuses: every option above in every spelling, every subcommand not in gitSubcommands,
// listing forms given operands that would create or delete, and option-looking words after the
// first operand of an in-order subcommand. Test: TestGitRefusesWrites, TestGitAbbreviations,
// TestGitPastDoubleDash, TestGitInOrder (git_test.go); TestHostileRepoConfig,
// TestGitInOrderRealGit (hook).
var gitRule = &Program{
	Name: "git", Summary: "read a repository: status, log, diff, show, grep, blame, … (no writes, no --output, -c, -O, --ext-diff)",
	Custom:  judgeGit,
	Rewrite: gitRewrite,
	Reads:   gitReads,
	Walks:   gitWalks,
}

// gitReads is every word git may take as a path or an object naming one, for the sensitive-file
// rule: plain words, values of --name=value, and the path in REV:PATH and :N:PATH (git show
// HEAD:.env, git cat-file -p :0:.env). Revisions and subcommand names are among them; they
// name no secret file.
func gitReads(args []Arg) []string {
	var out []string
	for _, v := range customReads(args) {
		out = append(out, v)
		if i := strings.IndexByte(v, ':'); i >= 0 {
			out = append(out, v[i+1:])
			if j := strings.LastIndexByte(v, ':'); j > i {
				out = append(out, v[j+1:])
			}
		}
	}
	dir, sub, _ := gitSplit(values(args))
	for i, a := range args {
		// -L START,END:PATH and -L :FUNC:PATH (log, blame), attached or not: the path is a read
		// (issue 23: `git log -L1,2:legacy/.env`).
		v := a.Value
		switch {
		case v == "-L" && i+1 < len(args):
			v = args[i+1].Value
		case strings.HasPrefix(v, "-L") && len(v) > 2:
			v = v[2:]
		default:
			continue
		}
		if j := strings.LastIndexByte(v, ':'); j >= 0 {
			out = append(out, v[j+1:])
		}
	}
	if gitPrintsConfig(sub) {
		// git config, remote -v, ls-remote --get-url print the repository's configuration,
		// where a CI checkout leaves its token (extraheader, https://x-access-token:…@): the
		// hook judges the configuration git reads by its content (issue 23, item 2).
		out = append(out, path.Join(dir, ".git", "config"))
	}
	return out
}

// gitPrintsConfig says whether a subcommand prints configuration values or remote URLs.
func gitPrintsConfig(sub string) bool {
	return sub == "config" || sub == "remote" || sub == "ls-remote"
}

// values are the words as the program gets them.
func values(args []Arg) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = a.Value
	}
	return out
}

// gitSplit returns a git command's -C directory (joined, "" for none), its subcommand, and the
// words after the subcommand.
func gitSplit(words []string) (dir, sub string, rest []string) {
	for i := 0; i < len(words); i++ {
		w := words[i]
		switch {
		case w == "-C" && i+1 < len(words):
			dir = path.Join(dir, words[i+1])
			i++
		case !strings.HasPrefix(w, "-"):
			return dir, w, words[i+1:]
		}
	}
	return dir, "", nil
}

// gitWalks is git grep's walk of the work tree (tracked files, and untracked ones with
// --untracked or --no-index): its pathspecs, or the working directory. git follows no link.
func gitWalks(args []Arg) []Walk {
	words := values(args)
	dir, sub, rest := gitSplit(words)
	if sub != "grep" {
		return nil
	}
	var roots []string
	if at := slices.Index(rest, "--"); at >= 0 {
		for _, p := range rest[at+1:] {
			if !strings.HasPrefix(p, ":") {
				roots = append(roots, path.Join(dir, p))
			}
		}
	}
	if len(roots) == 0 {
		roots = []string{path.Join(dir, ".")}
	}
	return []Walk{{Roots: roots, Follow: FollowNone, Excluded: gitExcludable(words)}}
}

// gitExcludable says whether the rewrite can add pathspecs that keep secret files out of a git
// grep or git diff (gitExclusions): after its `--`, or at its end when it has no operand that git
// would read as a path or a revision (so that an added `--` changes nothing): git diff alone,
// git grep PATTERN.
func gitExcludable(words []string) bool {
	_, sub, rest := gitSplit(words)
	if sub != "grep" && sub != "diff" {
		return false
	}
	if slices.Contains(rest, "--") {
		return true
	}
	s := lookupGitSub(sub)
	parsed := make([]Arg, len(rest))
	for i, w := range rest {
		parsed[i] = Arg{Value: w}
	}
	c, r := s.opts.Parse("git "+sub, parsed)
	if r != nil {
		return false
	}
	pattern := 0
	if sub == "grep" && !c.Has("-e", "-f") {
		pattern = 1
	}
	return len(c.Operands) <= pattern
}

// gitExclusions are the pathspecs that keep every secret name out of a git grep or diff, in any
// directory and without regard to case (git reads :(exclude) alone as "everything but").
func gitExclusions() []string {
	var out []string
	for _, g := range secrets.ExcludeGlobs {
		out = append(out, ":(exclude,icase,glob)**/"+g)
	}
	for _, d := range secrets.ExcludeDirs {
		out = append(out, ":(exclude,icase,glob)**/"+d+"/**")
	}
	return out
}

// gitDangers are the long options that write, run programs, or change which repository or
// configuration git uses. Any argument that is one of them or abbreviates one is refused, in any
// position, before the tables are consulted.
var gitDangers = Refusals{ // sorted by name, so messages are stable (TestGitDangersSorted)
	{"--attr-source", "changes where attributes come from"},
	{"--batch", "reads object names from standard input"},
	{"--batch-check", "reads object names from standard input"},
	{"--batch-command", "reads commands from standard input"},
	{"--config-env", "sets configuration"},
	{"--edit", "runs an editor"},
	{"--end-of-options", "is not needed here"},
	{"--exec", "runs a program"},
	{"--exec-path", "changes where git finds its programs"},
	{"--ext-diff", "runs the configured external diff program"},
	{"--filters", "runs the configured filter programs"},
	{"--git-dir", "points git at another repository"},
	{"--in-place", "edits files in place"},
	{"--list-cmds", "is internal to git"},
	{"--no-replace-objects", "is not needed here"},
	{"--open-files-in-pager", "runs a pager"},
	{"--output", "writes to a file"},
	{"--output-directory", "writes files"},
	{"--paginate", "runs a pager"},
	{"--receive-pack", "runs a program"},
	{"--separate-git-dir", "moves the repository"},
	{"--shallow-file", "changes the shallow-commit file"},
	{"--show-signature", "runs gpg"},
	{"--super-prefix", "is internal to git"},
	{"--template", "copies hooks from a template directory"},
	{"--textconv", "runs the configured textconv program"},
	{"--upload-pack", "runs a program"},
	{"--work-tree", "points git at another work tree"},
}

// gitGlobal are the global options (before the subcommand) git may take.
var gitGlobal = &Options{
	Flags:   "-P --no-pager --no-optional-locks --literal-pathspecs --glob-pathspecs --noglob-pathspecs --icase-pathspecs --version",
	Valued:  "-C",
	Refused: Refusals{{"-c", "sets configuration (for example a pager or fsmonitor program)"}, {"-p", "runs a pager"}},
}

// Option sets shared by several subcommands.
const (
	gitDiffFlags = "-p -u -s --patch --no-patch --raw --patch-with-raw --patch-with-stat --numstat --shortstat " +
		"--summary --name-only --name-status --compact-summary --full-index --binary -R -a --text -w -b " +
		"--ignore-space-change --ignore-all-space --ignore-space-at-eol --ignore-blank-lines --ignore-cr-at-eol " +
		"--minimal --patience --histogram --no-color --color-words --no-renames --find-copies-harder -D " +
		"--irreversible-delete --check --exit-code --quiet --no-ext-diff --no-textconv --no-prefix --default-prefix " +
		"--no-relative -z --indent-heuristic --no-indent-heuristic --no-color-moved --function-context " +
		"-W --cumulative --pickaxe-all --pickaxe-regex --ita-invisible-in-index --ita-visible-in-index " +
		"--merge --combined-all-paths"
	gitDiffOptional = "-M -C -B --stat --dirstat --find-renames --find-copies --break-rewrites --color --color-moved " +
		"--word-diff --submodule --abbrev --ignore-submodules --relative --dirstat-by-file --ws-error-highlight"
	gitDiffValued = "-U -S -G -l -I --unified --inter-hunk-context --diff-filter --diff-algorithm --word-diff-regex " +
		"--src-prefix --dst-prefix --line-prefix --find-object --anchored --ignore-matching-lines --stat-width " +
		"--stat-name-width --stat-count --stat-graph-width --output-indicator-new --output-indicator-old " +
		"--output-indicator-context --color-moved-ws --rotate-to --skip-to --orderfile"
	gitDiffPatterns = "-S -G -I --word-diff-regex --ignore-matching-lines --anchored"

	gitRevFlags = "--oneline --graph --no-decorate --all --first-parent " +
		"--no-merges --merges --reverse --topo-order --date-order --author-date-order --abbrev-commit " +
		"--no-abbrev-commit --full-history --simplify-merges --simplify-by-decoration --ancestry-path --boundary " +
		"--left-right --cherry-pick --cherry-mark --cherry --left-only --right-only --follow --source --use-mailmap " +
		"--mailmap --no-mailmap --relative-date --parents --children --walk-reflogs -g --no-walk --do-walk " +
		"--not --invert-grep --all-match --regexp-ignore-case -i --basic-regexp --extended-regexp -E " +
		"--fixed-strings -F --perl-regexp -P --count --clear-decorations --no-notes --show-linear-break " +
		"--remove-empty --dense --sparse --in-commit-order --show-pulls --single-worktree --no-expand-tabs " +
		"--exclude-first-parent-only -m -c --cc --dd --no-diff-merges --log-size --root --no-min-parents " +
		"--no-max-parents --bisect --full-diff"
	gitRevValued = "-n --max-count --skip --since --after --until --before --author --committer --grep " +
		"--grep-reflog --date --decorate-refs --decorate-refs-exclude --exclude --min-parents --max-parents " +
		"--encoding -L --since-as-filter"
	gitRevOptional = "--pretty --format --notes --show-notes --expand-tabs --branches --tags --remotes --glob " +
		"--diff-merges --decorate --show-notes-by-default"
	gitRevPatterns = "--author --committer --grep --grep-reflog --pretty --format -L"
)

// gitSub is one subcommand's rule.
type gitSub struct {
	name string
	opts *Options
	// check applies the subcommand's own rules after option parsing.
	check func(c *ParsedArgs) *Refusal
	// inject are the options the rewrite adds right after the subcommand name, to turn off
	// configured drivers the subcommand would otherwise run.
	inject []string
	// patternOperand: operand i is a pattern (git grep PATTERN).
	patternOperand func(c *ParsedArgs, i int) bool
	// verbs, when set, are the words that select a sub-subcommand (stash list). git reads such
	// a word as the verb only right after the subcommand: `git stash -- show` stashes the file
	// show. A verb anywhere else is refused.
	verbs []string
	// inOrder: git reads options only up to the first operand (parse-options with
	// PARSE_OPT_STOP_AT_NON_OPTION); every later word is an operand, even one that looks like an
	// option. The tables parse GNU-style, so such a word is refused (gitOptionAfterOperand).
	inOrder bool
}

var noDrivers = []string{"--no-ext-diff", "--no-textconv"}

// The option tables of log, show and reflog (one table), and of stash and rev-list: revision
// walking plus diff output. Written as constant expressions so the compiler lays them out.
var (
	gitLogOptions = &Options{
		Flags:    gitRevFlags + " " + gitDiffFlags,
		Valued:   gitRevValued + " " + gitDiffValued,
		Optional: gitRevOptional + " " + gitDiffOptional,
		Patterns: gitRevPatterns + " " + gitDiffPatterns,
		Digits:   true,
	}
	gitStashOptions = &Options{
		Flags:    gitRevFlags + " " + gitDiffFlags + " --include-untracked --only-untracked",
		Valued:   gitRevValued + " " + gitDiffValued,
		Optional: gitRevOptional + " " + gitDiffOptional,
		Patterns: gitRevPatterns + " " + gitDiffPatterns,
		Digits:   true,
	}
	gitRevListOptions = &Options{
		Flags:    gitRevFlags + " " + gitDiffFlags + " --objects --objects-edge --no-object-names --timestamp --header --disk-usage",
		Valued:   gitRevValued + " " + gitDiffValued + " --filter",
		Optional: gitRevOptional + " " + gitDiffOptional,
		Patterns: gitRevPatterns + " " + gitDiffPatterns,
		Digits:   true,
	}
)

// gitSubcommands are the subcommands git may run, each with its rule. It is a slice, not a map,
// so that the compiler lays it out rather than the hook building it on every start; a linear
// search of thirty names costs less than that build (lookupGitSub). TestGitSubcommandsWellFormed
// checks that no name is listed twice.
var gitSubcommands = []gitSub{
	// status -v prints the staged diff with textconv forced on, and status takes no
	// --no-textconv to inject (measured on git 2.39: "unknown option"), so -v is refused;
	// git diff --cached shows the same diff with drivers off. Test: TestGitStatusVerbose
	// (git_test.go), TestGitStatusVerboseRealGit (hook).
	{name: "status", opts: &Options{
		Flags: "-s --short -b --branch --long -z --column --no-column --ahead-behind --no-ahead-behind " +
			"--renames --no-renames --show-stash --no-show-stash",
		Optional: "--porcelain -u --untracked-files --ignored --ignore-submodules --find-renames",
		Refused: Refusals{
			{"--verbose", "runs the repository's textconv drivers on the staged diff; use git diff --cached"},
			{"-v", "runs the repository's textconv drivers on the staged diff; use git diff --cached"},
		},
	}},
	{name: "log", opts: gitLogOptions, check: checkGitFormats, inject: noDrivers},
	{name: "show", opts: gitLogOptions, check: checkGitFormats, inject: noDrivers},
	{name: "shortlog", opts: &Options{
		Flags: "-n -s -e -c --numbered --summary --email --committer --all --no-merges --merges --first-parent " +
			"--reverse --use-mailmap --mailmap --no-mailmap",
		Valued:   "--group --since --after --until --before --author --grep --max-count --skip",
		Optional: "--format -w --branches --tags --remotes",
		Patterns: "--author --grep --format",
	}, check: checkGitFormats},
	{name: "diff", opts: &Options{
		Flags:    gitDiffFlags + " --cached --staged --merge-base --no-index",
		Valued:   gitDiffValued,
		Optional: gitDiffOptional,
		Patterns: gitDiffPatterns,
	}, inject: noDrivers},
	{name: "diff-tree", opts: &Options{
		Flags:    gitDiffFlags + " -r -t -m -c --cc --root --no-commit-id --always --merge-base --full-diff",
		Valued:   gitDiffValued,
		Optional: gitDiffOptional + " --pretty --format",
		Patterns: gitDiffPatterns + " --pretty --format",
	}, check: checkGitFormats, inject: noDrivers},
	{name: "grep", opts: &Options{
		Flags: "-n --line-number -i --ignore-case -w --word-regexp -v --invert-match -l --files-with-matches " +
			"--name-only -L --files-without-match -c --count -h -H --full-name -E --extended-regexp -G --basic-regexp " +
			"-F --fixed-strings -P --perl-regexp -I -a --text -o --only-matching -q --quiet --cached --untracked " +
			"--no-index --break --heading -p --show-function -W --function-context --all-match --column --null -z " +
			"--no-textconv --no-color --and --or --not --recurse-submodules --exclude-standard --no-exclude-standard " +
			"-r --recursive --no-recursive",
		Valued:   "-e -f -A -B -C -m --context --after-context --before-context --max-depth --max-count --threads",
		Optional: "--color",
		Patterns: "-e",
		Digits:   true,
		Refused:  Refusals{{"-O", "runs a pager on the matching files"}},
	}, inject: []string{"--no-textconv"}, inOrder: true, patternOperand: func(c *ParsedArgs, i int) bool {
		// The pattern is the first operand unless -e or -f gave it; boolean groups use quoted
		// ( and ) operands.
		v := c.Operands[i].Value
		return (i == 0 && !c.Has("-e", "-f")) || v == "(" || v == ")"
	}},
	{name: "blame", opts: &Options{
		Flags: "-l -t -p --porcelain --line-porcelain -c -s -e --show-email -f --show-name -n --show-number -w " +
			"--incremental --root --show-stats --score-debug --reverse --first-parent --color-lines --color-by-age " +
			"--no-progress --minimal --no-textconv",
		Valued:   "-L --date --abbrev --ignore-rev --ignore-revs-file --contents --encoding",
		Optional: "-M -C",
		Patterns: "-L",
		Refused:  Refusals{{"-S", "reads revisions from a file git then walks"}},
	}, inject: []string{"--no-textconv"}},
	{name: "rev-parse", opts: &Options{
		Flags: "--show-toplevel --show-prefix --show-cdup --git-dir --absolute-git-dir --git-common-dir " +
			"--is-inside-work-tree --is-inside-git-dir --is-bare-repository --is-shallow-repository --verify -q --quiet " +
			"--symbolic --symbolic-full-name --show-superproject-working-tree --show-object-format --all --branches " +
			"--tags --remotes --local-env-vars --shared-index-path --sq --not --revs-only --no-revs --flags --no-flags",
		Valued:   "--git-path --default --since --after --until --before --path-format --resolve-git-dir --prefix",
		Optional: "--short --abbrev-ref --disambiguate --glob",
	}},
	{name: "ls-files", opts: &Options{
		Flags: "-c --cached -d --deleted -m --modified -o --others -i --ignored -s --stage -u --unmerged -k --killed " +
			"-z -t -v -f --full-name --recurse-submodules --eol --deduplicate --directory --no-empty-directory " +
			"--exclude-standard --error-unmatch --sparse --resolve-undo",
		Valued:   "-x -X --exclude --exclude-from --exclude-per-directory --with-tree --format",
		Optional: "--abbrev",
		Patterns: "--format",
	}},
	{name: "ls-tree", opts: &Options{
		Flags:    "-r -t -d -z -l --long --name-only --name-status --object-only --full-name --full-tree",
		Valued:   "--format",
		Optional: "--abbrev",
		Patterns: "--format",
	}},
	{name: "merge-base", opts: &Options{Flags: "-a --all --octopus --independent --is-ancestor --fork-point"}},
	// describe --dirty refreshes the index and writes it back whatever the lock settings say
	// (measured on git 2.39 with --no-optional-locks), so it is refused; --broken asks a child
	// diff-index instead and writes nothing. Test: TestGitDescribeDirty (git_test.go),
	// TestGitFilterDriversRealGit (hook).
	{name: "describe", opts: &Options{
		Flags:    "--tags --all --long --always --exact-match --first-parent --contains --debug",
		Valued:   "--candidates --match --exclude",
		Optional: "--abbrev --broken",
		Refused:  Refusals{{"--dirty", "rewrites .git/index; use --broken"}},
	}},
	{name: "cat-file", opts: &Options{
		Flags:   "-p -t -s -e --allow-unknown-type --use-mailmap --mailmap --no-use-mailmap",
		Refused: Refusals{{"--path", "applies filters or textconv to a path"}},
	}, check: checkCatFile},
	{name: "branch", opts: &Options{
		Flags: "-a --all -r --remotes -v --verbose -l --list --show-current -i --ignore-case --no-color " +
			"--column --no-column --no-abbrev --omit-empty",
		Valued:         "--contains --no-contains --merged --no-merged --points-at --sort --format",
		LastArgDefault: "--contains --no-contains --merged --no-merged",
		DashValues:     "--sort", // --sort -committerdate: git takes the next word whatever it starts with
		Optional:       "--color --abbrev",
		Patterns:       "--format",
	}, check: func(c *ParsedArgs) *Refusal { return listingOnly(c, "branch", "creates a branch") }},
	{name: "tag", opts: &Options{
		Flags:          "-l --list -i --ignore-case --no-color --column --no-column --omit-empty",
		Valued:         "--contains --no-contains --merged --no-merged --points-at --sort --format",
		LastArgDefault: "--contains --no-contains --merged --no-merged",
		DashValues:     "--sort", // --sort -committerdate: git takes the next word whatever it starts with
		Optional:       "-n --color",
		Patterns:       "--format",
	}, check: func(c *ParsedArgs) *Refusal { return listingOnly(c, "tag", "creates a tag") }},
	{name: "worktree", opts: &Options{Flags: "--porcelain -v --verbose -z"}, check: func(c *ParsedArgs) *Refusal { return onlyVerbs(c, "worktree", "list") }, verbs: []string{"list"}},
	{name: "remote", opts: &Options{Flags: "-v --verbose --push --all"}, check: checkRemote,
		verbs: []string{"get-url", "show", "add", "remove", "rm", "rename", "set-url", "set-head", "set-branches", "prune", "update"}},
	{name: "reflog", opts: gitLogOptions, check: checkReflog, inject: noDrivers,
		verbs: []string{"show", "expire", "delete", "exists", "list", "drop", "write"}},
	{name: "stash", opts: gitStashOptions, check: checkStash, inject: noDrivers,
		verbs: []string{"list", "show"}},
	// rev-list parses the diff options (for -S, -G and path limiting) but never turns on
	// textconv or the external diff, and cherry hashes raw blobs for its patch ids: neither
	// ran a driver against a repository with both set (measured on git 2.39), so nothing is
	// injected.
	{name: "rev-list", opts: gitRevListOptions,
		check: checkGitFormats},
	{name: "for-each-ref", opts: &Options{
		Flags:      "--shell --perl --python --tcl --ignore-case --omit-empty",
		Valued:     "--format --sort --count --points-at --merged --no-merged --contains --no-contains --exclude",
		Patterns:   "--format",
		DashValues: "--sort",
	}, check: checkGitFormats},
	{name: "show-ref", opts: &Options{Flags: "--head --heads --tags --branches -d --dereference -s --verify -q --quiet --exists", Optional: "--hash --abbrev"}},
	{name: "count-objects", opts: &Options{Flags: "-v --verbose -H --human-readable"}, check: func(c *ParsedArgs) *Refusal { return noGitOperands(c, "count-objects") }},
	{name: "check-ignore", opts: &Options{Flags: "-q --quiet -v --verbose -n --non-matching --no-index -z"}},
	{name: "check-attr", opts: &Options{Flags: "-a --all --cached -z"}},
	{name: "name-rev", opts: &Options{Flags: "--name-only --tags --all --always --undefined --no-undefined", Valued: "--refs --exclude"}},
	{name: "cherry", opts: &Options{Flags: "-v", Optional: "--abbrev"}},
	{name: "config", opts: &Options{
		Flags: "--get --get-all --get-regexp --get-urlmatch -l --list --show-origin --show-scope --name-only -z --null " +
			"--local --global --system --worktree --bool --int --bool-or-int --path --expiry-date --includes --no-includes " +
			"--all --regexp",
		Valued: "--type --default",
	}, check: checkGitConfig, verbs: []string{"get", "list"}, inOrder: true, patternOperand: func(c *ParsedArgs, i int) bool {
		return i == 0 && c.Has("--get-regexp")
	}},
	{name: "version", opts: &Options{Flags: "--build-options"}, check: func(c *ParsedArgs) *Refusal { return noGitOperands(c, "version") }},
}

// lookupGitSub returns the rule for a git subcommand, or nil if git may not run it.
func lookupGitSub(name string) *gitSub {
	return lookupNamed(gitSubcommands, name, func(s *gitSub) string { return s.name })
}

func judgeGit(args []Arg) *Refusal {
	// Scan every word first: a dangerous option is refused wherever it stands, including after
	// `--` and as the value of another option, so that no disagreement between this parser and
	// git's can let one through.
	sub := -1
	if r := gitScanDangers(args); r != nil {
		return r
	}
	// Global options, up to the subcommand.
	i := 0
	for i < len(args) {
		v := args[i].Value
		if !strings.HasPrefix(v, "-") {
			sub = i
			break
		}
		if args[i].Var {
			sub = i // refused below: a loop variable may not be the subcommand
			break
		}
		if v == "-C" {
			// A loop variable over a literal list is judged once per word, so it is a plain
			// directory too: for d in hook lexer; do git -C "$d" status; done. The rewrite
			// skips -C and its value whatever they hold.
			if i+1 >= len(args) || strings.HasPrefix(args[i+1].Value, "-") || args[i+1].Pattern || args[i+1].Glob {
				return refuse("git", "`-C` needs a plain directory")
			}
			i += 2
			continue
		}
		if v == "--version" {
			if i+1 != len(args) {
				return refuse("git", "`--version` takes nothing after it")
			}
			return nil
		}
		if _, r := gitGlobal.Parse("git", args[i:i+1]); r != nil {
			return r
		}
		if args[i].Pattern {
			return refuse("git", "shell syntax in `%s` is not allowed", clip.Short(v))
		}
		i++
	}
	if sub < 0 {
		return &Refusal{Program: "git", What: "needs a subcommand", Hint: "e.g. git status, git log --oneline -20, git diff"}
	}
	if args[sub].Var {
		return refuse("git", "a loop variable may not be the subcommand")
	}
	name := args[sub].Value
	rule := lookupGitSub(name)
	if rule == nil || args[sub].Pattern {
		return &Refusal{Program: "git", What: "`git " + clip.Short(name) + "` is not a read-only subcommand", Hint: "read-only git: " + gitSubcommandList()}
	}
	rest := args[sub+1:]
	c, r := rule.opts.Parse("git "+name, rest)
	if r != nil {
		return r
	}

	if len(rule.verbs) > 0 && len(c.Operands) > 0 {
		first := c.Operands[0].Value
		isVerb := false
		for _, v := range rule.verbs {
			isVerb = isVerb || first == v
		}
		if isVerb && (sub+1 >= len(args) || args[sub+1].Value != first || c.AfterEnd == 0) {
			return refuse("git "+name, "`%s` must come right after `git %s`; anywhere else git reads it as a path", first, name)
		}
	}
	if c.AfterEnd >= 0 {
		for _, a := range c.Operands[c.AfterEnd:] {
			if strings.HasPrefix(a.Value, "-") {
				return refuse("git "+name, "a path after `--` may not start with `-`")
			}
		}
	}
	if rule.inOrder {
		if r := gitOptionAfterOperand(rule, rest); r != nil {
			return r
		}
	}
	for _, v := range c.Values("--submodule") {
		if v == "diff" {
			// git runs a child `git diff` in each changed submodule, and the child gets the
			// -c pins (GIT_CONFIG_PARAMETERS) but not --no-ext-diff or --no-textconv, so the
			// submodule's diff.external and textconv drivers run. Test:
			// TestGitSubmoduleDiff (git_test.go), TestGitSubmoduleDiffRealGit (hook).
			return refuse("git "+name, "`--submodule=diff` runs `git diff` inside each submodule with its own drivers; use --submodule=log")
		}
	}
	for i, a := range c.Operands {
		if strings.Contains(a.Value, "ext::") {
			return refuse("git "+name, "`ext::` remotes run commands")
		}
		pattern := rule.patternOperand != nil && rule.patternOperand(c, i)
		if a.Pattern && !pattern && !gitRevOrPathspec(a.Value) {
			return refuse("git "+name, "shell syntax in the argument `%s` is not allowed", clip.Short(a.Value))
		}
		if a.Var && pattern {
			return refuse("git "+name, "a loop variable may not be a pattern")
		}
	}
	if rule.check != nil {
		return rule.check(c)
	}
	return nil
}

// gitOptionAfterOperand refuses a word that starts with `-` after the first operand of a
// subcommand git parses in order: git reads it as an operand, while Options.Parse, which permutes,
// would read it as an option. For git config that turns a read into a write: `git config
// core.hooksPath --get` sets core.hooksPath to "--get". With no such word the two parses agree,
// so the permuting parse that follows judges exactly what git runs. A leading verb (config get)
// is skipped, since the verb's own options follow it; git grep keeps one `--` between its
// revisions and paths. Test: TestGitInOrder (git_test.go), TestGitInOrderRealGit (hook).
func gitOptionAfterOperand(rule *gitSub, args []Arg) *Refusal {
	first := gitFirstOperand(rule, args, 0)
	if first == 0 && first < len(args) && slices.Contains(rule.verbs, args[0].Value) {
		first = gitFirstOperand(rule, args, 1)
	}
	dashDash := rule.name == "grep"
	for _, a := range args[min(first+1, len(args)):] {
		if a.Value == "--" && dashDash {
			dashDash = false
			continue
		}
		if strings.HasPrefix(a.Value, "-") {
			return &Refusal{Program: "git " + rule.name,
				What: "git reads `" + clip.Short(a.Value) + "` after `" + clip.Short(args[first].Value) + "` as an operand, not an option",
				Hint: "put options before the first operand (git config NAME --get would set NAME)"}
		}
	}
	return nil
}

// gitFirstOperand returns the index of the first word at or after from that git's parse-options
// reads as an operand, skipping the values of valued options; len(args) if there is none, and
// the index after `--`, which ends options. git grep's `(` and `)` are options without a dash.
// It runs after Options.Parse accepted the words, so every option it meets is in the table.
func gitFirstOperand(rule *gitSub, args []Arg, from int) int {
	var bare func(string) bool
	if rule.name == "grep" {
		bare = func(v string) bool { return v == "(" || v == ")" }
	}
	return firstOperandFrom(rule.opts, values(args), from, bare)
}

// gitRevOrPathspec reports whether quoted text holding shell-operator characters is a plain git
// revision with a reflog suffix (HEAD@{1}, @{u}, main@{2.days.ago}) or a pathspec with exclude
// magic (:!vendor, :(exclude)vendor): the braces, ! and parentheses are git's, not the shell's.
func gitRevOrPathspec(v string) bool {
	if strings.HasPrefix(v, ":!") || strings.HasPrefix(v, ":(exclude)") || strings.HasPrefix(v, ":(top)") {
		rest := strings.TrimPrefix(strings.TrimPrefix(strings.TrimPrefix(v, ":!"), ":(exclude)"), ":(top)")
		return !strings.ContainsAny(rest, "<>&(){}#!|;$`\\'\"")
	}
	at := strings.Index(v, "@{")
	if at < 0 || !strings.HasSuffix(strings.TrimRight(v, "~^0123456789"), "}") {
		return false
	}
	inner := strings.TrimRight(v, "~^0123456789")
	inner = inner[at+2 : len(inner)-1]
	return !strings.ContainsAny(v[:at], "<>&(){}#!|;$`\\'\"") && !strings.ContainsAny(inner, "<>&(){}#!|;$`\\'\"@")
}

// gitScanDangers refuses any word that is, or abbreviates, or sets a value for, a dangerous
// long option.
func gitScanDangers(args []Arg) *Refusal {
	for i, a := range args {
		v := a.Value
		if strings.Contains(v, "ext::") {
			return refuse("git", "`ext::` remotes run commands")
		}
		if !strings.HasPrefix(v, "--") || len(v) < 3 {
			continue
		}
		name, _, _ := strings.Cut(v, "=")
		for _, d := range gitDangers {
			if name == d.Name {
				if d.Name == "--git-dir" && i > 0 && isRevParse(args[:i]) {
					continue // rev-parse --git-dir only prints the path
				}
				return &Refusal{Program: "git", What: "`" + d.Name + "` " + d.Why}
			}
			if strings.HasPrefix(d.Name, name) && len(name) > 2 && !gitExactAllowed(name) {
				return &Refusal{Program: "git", What: "`" + name + "` abbreviates `" + d.Name + "`, which " + d.Why}
			}
		}
	}
	return nil
}

// isRevParse reports whether the words before an argument select the rev-parse subcommand.
func isRevParse(before []Arg) bool {
	for i := 0; i < len(before); i++ {
		v := before[i].Value
		if v == "-C" {
			i++
			continue
		}
		if !strings.HasPrefix(v, "-") {
			return v == "rev-parse"
		}
	}
	return false
}

// gitExactOptions are the options some table allows that are also prefixes of a dangerous one:
// --text (of --textconv), --list of branch, tag and config (of --list-cmds), and rev-list's
// --filter (of --filters). git matches an exact name before it tries abbreviations, so these
// mean themselves. They are listed, not found by searching every table for the name, which
// would scan some twenty kilobytes on each such command (git branch --list);
// TestGitExactOptions keeps the list equal to what the tables allow.
const gitExactOptions = "--text --list --filter"

// gitExactAllowed reports whether name, a prefix of a dangerous option, is one that some table
// allows exactly, so that it is not mistaken for an abbreviation.
func gitExactAllowed(name string) bool { return wordlist.Has(gitExactOptions, name) }

// checkGitFormats refuses pretty formats that run gpg — the %G placeholders, with or without a
// +, - or space modifier, and %(signature…) — and named formats that could come from the
// repository's own configuration (pretty.<name>).
func checkGitFormats(c *ParsedArgs) *Refusal {
	for _, o := range c.Opts {
		if !o.HasValue {
			continue
		}
		switch o.Name {
		case "--pretty", "--format":
		case "--sort":
			if strings.Contains(o.Value, "signature") {
				return refuse("git", "sorting by signature runs gpg")
			}
			continue
		default:
			continue
		}
		v := o.Value
		if gitFormatRunsGPG(v) {
			return refuse("git", "the %%G format placeholders run gpg to check signatures")
		}
		if o.Name == "--pretty" && !strings.HasPrefix(v, "format:") && !strings.HasPrefix(v, "tformat:") && !strings.Contains(v, "%") {
			if !slices.Contains(gitBuiltinPretty, v) {
				return refuse("git", "`--pretty=%s` is not a built-in format; use --format='…'", clip.Short(v))
			}
		}
		if o.Name == "--format" && !strings.Contains(v, "%") && !slices.Contains(gitBuiltinPretty, v) {
			return refuse("git", "`--format=%s` is not a built-in format", clip.Short(v))
		}
	}
	return nil
}

// gitFormatRunsGPG reports whether a format uses a placeholder that checks a signature: %G…
// after an optional +, - or space modifier, or %(signature…).
func gitFormatRunsGPG(v string) bool {
	for i := 0; i < len(v); i++ {
		if v[i] != '%' {
			continue
		}
		j := i + 1
		if j < len(v) && v[j] == '%' {
			i = j // a literal %
			continue
		}
		if j < len(v) && (v[j] == '+' || v[j] == '-' || v[j] == ' ') {
			j++
		}
		if j < len(v) && v[j] == 'G' || strings.HasPrefix(v[j:], "(signature") {
			return true
		}
	}
	return false
}

// gitBuiltinPretty are git's built-in pretty formats; "" is the default one.
var gitBuiltinPretty = []string{"oneline", "short", "medium", "full", "fuller", "reference", "email", "mboxrd", "raw", ""}

func checkCatFile(c *ParsedArgs) *Refusal {
	modes := 0
	for _, o := range c.Opts {
		switch o.Name {
		case "-p", "-t", "-s", "-e":
			modes++
		}
	}
	switch {
	case modes == 1 && len(c.Operands) == 1:
		return nil
	case modes == 0 && len(c.Operands) == 2 && slices.Contains(gitObjectTypes, c.Operands[0].Value):
		return nil
	}
	return refuse("git cat-file", "use one of -p, -t, -s, -e with one object, or TYPE OBJECT")
}

var gitObjectTypes = []string{"blob", "tree", "commit", "tag"}

// listingOnly refuses operands unless the listing mode is explicit: without -l/--list, git
// branch NAME and git tag NAME create. It and the checks below take the subcommand as an
// argument, from a function literal in the table, rather than returning a closure: a closure
// over its arguments is allocated when the package starts, in every hook process.
func listingOnly(c *ParsedArgs, sub, creates string) *Refusal {
	if len(c.Operands) > 0 && !c.Has("-l", "--list") {
		return &Refusal{Program: "git " + sub, What: "`git " + sub + " NAME` " + creates, Hint: "to list matching names use git " + sub + " --list PATTERN"}
	}
	return checkGitFormats(c)
}

func onlyVerbs(c *ParsedArgs, sub string, verbs ...string) *Refusal {
	if len(c.Operands) != 1 {
		return refuse("git "+sub, "only `git %s %s` is allowed", sub, strings.Join(verbs, "|"))
	}
	for _, v := range verbs {
		if c.Operands[0].Value == v {
			return nil
		}
	}
	return refuse("git "+sub, "only `git %s %s` is allowed", sub, strings.Join(verbs, "|"))
}

func noGitOperands(c *ParsedArgs, sub string) *Refusal {
	if len(c.Operands) > 0 {
		return refuse("git "+sub, "takes no operands")
	}
	return nil
}

// checkRemote allows `git remote`, `git remote -v` and `git remote get-url NAME`. `git remote
// show` contacts the remote; add, remove, rename and set-url write.
func checkRemote(c *ParsedArgs) *Refusal {
	ops := c.Operands
	switch {
	case len(ops) == 0 && !c.Has("--push", "--all"):
		return nil
	case len(ops) == 2 && ops[0].Value == "get-url":
		return nil
	}
	return refuse("git remote", "only `git remote -v` and `git remote get-url NAME` are allowed")
}

// checkReflog allows `git reflog [show] [REF]`; expire and delete write.
func checkReflog(c *ParsedArgs) *Refusal {
	ops := c.Operands
	if len(ops) > 0 && ops[0].Value == "show" {
		ops = ops[1:]
	}
	for _, o := range ops {
		switch o.Value {
		case "expire", "delete", "drop", "write", "exists", "list":
			return refuse("git reflog", "only `git reflog [show] [REF]` is allowed")
		}
	}
	if len(ops) > 1 {
		return refuse("git reflog", "takes at most one ref")
	}
	return checkGitFormats(c)
}

// checkStash allows `git stash list` and `git stash show [STASH]`; plain `git stash` saves and
// resets the work tree.
func checkStash(c *ParsedArgs) *Refusal {
	ops := c.Operands
	switch {
	case len(ops) == 1 && ops[0].Value == "list":
		return checkGitFormats(c)
	case len(ops) >= 1 && len(ops) <= 2 && ops[0].Value == "show" && !c.Has("--include-untracked", "--only-untracked"):
		return checkGitFormats(c)
	}
	return &Refusal{Program: "git stash", What: "only `git stash list` and `git stash show` are allowed", Hint: "plain `git stash` changes the work tree"}
}

// checkGitConfig allows the reading forms only: --get, --get-all, --get-regexp, --get-urlmatch,
// --list, `git config NAME` (and the git 2.46 `config get` and `config list` verbs). `git
// config NAME VALUE` writes, and so do --add, --unset, --edit and the rest. git config parses
// in order (inOrder), so by here no operand looks like an option: `git config NAME --get` was
// refused before it could be counted as --get plus NAME.
func checkGitConfig(c *ParsedArgs) *Refusal {
	ops := c.Operands
	actions := 0
	for _, o := range c.Opts {
		switch o.Name {
		case "--get", "--get-all", "--get-regexp", "--get-urlmatch", "-l", "--list":
			actions++
		}
	}
	if actions == 0 && len(ops) > 0 && (ops[0].Value == "get" || ops[0].Value == "list") {
		verb := ops[0].Value
		ops = ops[1:]
		if verb == "list" && len(ops) == 0 || verb == "get" && len(ops) == 1 {
			return nil
		}
		return refuse("git config", "use `git config get NAME` or `git config list`")
	}
	if c.Has("--all", "--regexp") {
		return refuse("git config", "--all and --regexp belong to `git config get`")
	}
	switch {
	case actions == 0 && len(ops) == 1 && strings.Contains(ops[0].Value, ".") && !strings.Contains(ops[0].Value, "="):
		// git config SECTION.KEY reads; a second operand would write. A name without a dot
		// is a verb in git 2.46 (edit opens an editor, set writes).
		return nil
	case actions != 1:
	case c.Has("-l", "--list") && len(ops) == 0:
		return nil
	case !c.Has("-l", "--list") && len(ops) >= 1 && len(ops) <= 2:
		return nil
	}
	return &Refusal{Program: "git config", What: "only reading forms are allowed", Hint: "git config --get NAME, git config --list"}
}

// gitRewrite returns what the hook runs instead of the agent's git command: the same command,
// with configuration that could run code pinned off. The hook adds this prefix itself; the agent
// can never pass -c.
//
//   - GIT_CONFIG_NOSYSTEM=1: ignore /etc/gitconfig.
//   - --no-pager, core.pager=cat: never start a pager.
//   - --no-optional-locks: git status must not rewrite the index in read-only mode.
//   - core.fsmonitor=false: a repository's fsmonitor hook runs on status and diff.
//   - core.hooksPath=/dev/null: no hook of the repository's runs.
//   - safe.bareRepository=explicit: refuse bare repositories found by walking up from the
//     directory (a bare repository committed inside a project carries its own config).
//   - log.showSignature=false and every gpg program set to false: signature checks run gpg.
//   - GIT_ALLOW_PROTOCOL= (empty) and GIT_NO_LAZY_FETCH=1: no transport at all. A partial
//     clone fetches missing objects from its promisor remote on plain reads (show, log -p,
//     cat-file, blame, grep), and the repository's own protocol.ext.allow=always beats the
//     -c protocol.allow=never pin (measured on git 2.39: the ext:: command ran). An empty
//     GIT_ALLOW_PROTOCOL allows only the empty-named protocol, overriding all configuration, so
//     ext::, file (with its remote.*.uploadpack program) and ssh (core.sshCommand) are all
//     refused; GIT_NO_LAZY_FETCH (documented from 2.44, honoured by 2.39) stops the fetch
//     before a transport is chosen. Both are environment, so they reach every child git.
//     protocol.allow=never stays for a git that ignores both. Test: TestGitLazyFetchRealGit.
//   - diff.submodule=short: a repository's diff.submodule=diff makes diff, log -p and show run
//     a child git diff in each submodule without --no-ext-diff (the agent's --submodule=diff is
//     refused by judgeGit). Test: TestGitSubmoduleDiffRealGit.
//   - status.submoduleSummary=false: no child summary walk in each submodule.
//   - diff.autoRefreshIndex=false: git diff rewrites .git/index to refresh stat data even with
//     --no-optional-locks (measured on 2.39), in the repository, a submodule or a nested one.
//   - core.untrackedCache=false: a repository that asks for an untracked cache gets one written
//     into .git/index by any command that writes the index; --no-optional-locks already stops
//     status writing, so this is depth for any path that still does. Test:
//     TestGitFilterDriversRealGit.
//   - --no-ext-diff --no-textconv after diff-producing subcommands: configured diff drivers.
//
// The -c pins travel to child gits, submodules included, in GIT_CONFIG_PARAMETERS (measured:
// a submodule's child diff used the pinned diff.external); command-line switches such as
// --no-ext-diff do not, which is why the submodule forms above are pinned by configuration.
//
// Not closed here: filter drivers (filter.<name>.clean and .process) run whenever git hashes a
// work-tree file (status, diff, blame FILE, ls-files -m, diff --no-index, describe --broken), in
// the main repository, its submodules and nested repositories. git has no switch that turns
// off every filter, and -c filter.<name>.clean= needs the name, which only the repository's
// attributes know; the policy does no I/O. The read-only sandbox contains them (no writes, no
// network); on a machine with the policy alone they run. docs/residual-risks.md;
// TestGitKnownGaps (hook) shows them running.
func gitRewrite(args []string) (env, out []string) {
	out = append(out, gitPinned...)
	i := 0
	for i < len(args) && strings.HasPrefix(args[i], "-") {
		if args[i] == "-C" {
			i++
		}
		i++
	}
	if i > len(args) {
		i = len(args)
	}
	out = append(out, args[:i]...)
	if i < len(args) {
		s := lookupGitSub(args[i])
		out = append(out, args[i])
		i++
		// A verb (stash show, reflog show) must stay right after the subcommand: git stash
		// reads a leading option as `stash push`.
		if s != nil && i < len(args) && slices.Contains(s.verbs, args[i]) {
			out = append(out, args[i])
			i++
		}
		if s != nil {
			out = append(out, s.inject...)
		}
		out = append(out, args[i:]...)
		if gitExcludable(args) {
			// Secret files stay out of git grep's and git diff's output (issue 23, item 6:
			// `git grep --untracked` and `--no-index` had no exclusions, and a tracked .env
			// was printed whole).
			if !slices.Contains(args[i:], "--") {
				out = append(out, "--")
			}
			out = append(out, gitExclusions()...)
		}
	}
	return gitEnv, out
}

// GitPins are the environment and the options (before the subcommand) with which hookctl runs
// git on a repository it does not trust (gitRewrite), for hookctl's own reads of one (hookctl
// run's preflight).
func GitPins() (env, args []string) { return slices.Clone(gitEnv), slices.Clone(gitPinned) }

// gitEnv are the environment pins of every git command the hook runs (gitRewrite).
var gitEnv = []string{"GIT_CONFIG_NOSYSTEM=1", "GIT_ALLOW_PROTOCOL=", "GIT_NO_LAZY_FETCH=1"}

var gitPinned = []string{
	"--no-pager", "--no-optional-locks",
	"-c", "core.fsmonitor=false",
	"-c", "core.hooksPath=/dev/null",
	"-c", "core.pager=cat",
	"-c", "safe.bareRepository=explicit",
	"-c", "log.showSignature=false",
	"-c", "gpg.program=false",
	"-c", "gpg.openpgp.program=false",
	"-c", "gpg.x509.program=false",
	"-c", "gpg.ssh.program=false",
	"-c", "protocol.allow=never",
	"-c", "diff.submodule=short",
	"-c", "status.submoduleSummary=false",
	"-c", "diff.autoRefreshIndex=false",
	"-c", "core.untrackedCache=false",
}

func gitSubcommandList() string {
	names := make([]string, 0, len(gitSubcommands))
	for _, s := range gitSubcommands {
		names = append(names, s.name)
	}
	sortStrings(names)
	return strings.Join(names, ", ")
}
