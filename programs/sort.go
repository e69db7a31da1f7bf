package programs

// sort sorts lines. It has three ways to touch more than standard output, all refused: it can
// write its result to a file, write temporary files, and run a compression program on them.
// GNU sort accepts unique abbreviations of long options (--out, --compress-prog), which the
// table refuses because it matches long names exactly.
//
// Refuses: -o/--output, -T/--temporary-directory, --compress-program, and every abbreviation
// of them. Test: TestSortRefusesWrites (sort_test.go).
var sortRule = &Program{
	Name: "sort", Summary: "sort lines (no -o, -T, --compress-program)", Files: true, Filter: true, FileLists: "--files0-from",
	BSD: &BSD{Getopt: "bcCdfghik:Mmno:RrsS:t:T:uVz", Long: true, Permute: true, Note: "getopt_long without `+`: permutes like GNU (stops at the first operand under POSIXLY_CORRECT); -o, -T and --compress-program are the same writes as GNU's"},
	Opts: &Options{
		Flags: "-b -d -f -g -i -M -h -n -R -r -V -c -C -m -s -u -z " +
			"--ignore-leading-blanks --dictionary-order --ignore-case --general-numeric-sort --ignore-nonprinting " +
			"--month-sort --human-numeric-sort --numeric-sort --random-sort --reverse --version-sort --merge " +
			"--stable --unique --zero-terminated --debug",
		Valued:   "-k -t -S --key --field-separator --buffer-size --parallel --batch-size --files0-from --random-source",
		Optional: "--sort --check",
		Patterns: "-t --field-separator",
		Refused:  Refusals{{"-o", "writes the result to a file"}, {"--output", "writes the result to a file"}, {"-T", "writes temporary files"}, {"--temporary-directory", "writes temporary files"}, {"--compress-program", "runs a program"}},
	},
}
