package programs

// grep searches files for a regular expression. GNU grep has no option that writes or runs
// anything; its patterns are pattern slots.
//
// Refuses: every option not listed. Test: TestGrepRules (grep_test.go).
var grepRule = &Program{
	Name: "grep", Summary: "search files for a pattern", Files: true, Filter: true,
	BSD: &BSD{Getopt: "0123456789A:B:C:D:EFGHIJLMOPSRUVXZabcd:e:f:hilm:nopqrsuvwxyz", Lacks: "T", Long: true, Permute: true, Note: "getopt_long without `+`: permutes like GNU, and stops at the first operand under POSIXLY_CORRECT; -Z, -J, -X, -M decompress in the process; no option writes or runs a program"},
	Opts: &Options{
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
	},
	PatternOperand: func(c *ParsedArgs, i int) bool { return firstOperandUnless(c, i, "-e", "--regexp", "-f", "--file") },
}

// rg (ripgrep) searches files. It can run programs three ways, all refused: --pre runs a
// preprocessor on every file searched, --hostname-bin runs a program to find the host name, and
// -z/--search-zip runs decompressors. Its config file (RIPGREP_CONFIG_PATH) could add any of
// them, so the rewrite resets that variable and passes --no-config.
//
// Refuses: --pre, --pre-glob, --hostname-bin, -z/--search-zip, and their abbreviations (rg
// matches long names exactly, and so does this table). Test: TestRgRefusesExec (grep_test.go),
// TestRewritePinsConfig (hook).
var rgRule = &Program{
	Name: "rg", Summary: "search files for a pattern (no --pre, -z, --hostname-bin)", Files: true, Filter: true,
	BSD: &BSD{Same: true, Note: "the same program (ripgrep) everywhere, with its own parser"},
	Opts: &Options{
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
	},
	PatternOperand: func(c *ParsedArgs, i int) bool {
		return firstOperandUnless(c, i, "-e", "--regexp", "-f", "--file", "--files", "--type-list")
	},
	Rewrite: func(args []string) ([]string, []string) {
		return []string{"RIPGREP_CONFIG_PATH="}, append([]string{"--no-config"}, args...)
	},
}
