package programs

// The programs in this file read files or file metadata and print to standard output. None of
// them has an option that writes, except where the rule's comment names it.

// cat prints files. GNU cat has no option that writes or runs anything.
//
// Refuses: every option not listed. Test: TestFilesRules (files_test.go).
var catRule = &Program{
	Name: "cat", Summary: "print files", Files: true, Filter: true,
	BSD: &BSD{Getopt: "belnstuv", Lacks: "AET", Note: "getopt(3) `belnstuv`: options end at the first operand; later words are files to print"},
	Opts: &Options{
		Flags: "-A -b -e -E -n -s -t -T -u -v --show-all --number-nonblank --number --squeeze-blank --show-ends --show-tabs --show-nonprinting",
	},
}

// head prints the first lines of files.
//
// Refuses: every option not listed. Test: TestFilesRules.
var headRule = &Program{
	Name: "head", Summary: "print the first lines of files", Files: true, Filter: true,
	BSD: &BSD{Getopt: "n:c:qv", Lacks: "z", Long: true, Note: "getopt_long `+n:c:` (FreeBSD adds -q -v) and -NUM: options end at the first operand; later words are files to print"},
	Opts: &Options{
		Flags:  "-q -v -z --quiet --silent --verbose --zero-terminated",
		Valued: "-n -c --lines --bytes",
		Digits: true,
	},
}

// tail prints the last lines of files, and must never follow one: `tail -f` never exits, so the
// agent's call would hang until the client times it out.
//
// Refuses: -f, -F, --follow, --retry, -s/--sleep-interval, --pid, the obsolete -5f form, and an
// operand starting with + (GNU reads `tail +5f FILE` as the obsolete form: it follows).
// Test: TestTailNeverFollows (files_test.go).
var tailRule = &Program{
	Name: "tail", Summary: "print the last lines of files (never follow)", Files: true, Filter: true,
	BSD: &BSD{Getopt: "Fb:c:fn:qrv", Lacks: "z", Long: true, Note: "getopt_long `+Fb:c:fn:qrv`: options end at the first operand, so a later -f is a file name; a leading +N or -N (with f it follows) is rewritten first, which the + operand rule covers"},
	Opts: &Options{
		Flags:   "-q -v -z --quiet --silent --verbose --zero-terminated",
		Valued:  "-n -c --lines --bytes",
		Digits:  true,
		Refused: Refusals{{"-f", "follows the file and never exits"}, {"-F", "follows the file and never exits"}, {"--follow", "follows the file and never exits"}, {"--retry", "keeps retrying the file"}, {"-s", "only matters when following"}, {"--sleep-interval", "only matters when following"}, {"--pid", "only matters when following"}},
	},
	Check: func(c *ParsedArgs) *Refusal {
		return refusePrefixed(c, c.Operands, "+", "is the obsolete +N form (with f it follows); write -n +N")
	},
}

// wc counts lines, words and bytes.
//
// Refuses: every option not listed. Test: TestFilesRules.
var wcRule = &Program{
	Name: "wc", Summary: "count lines, words and bytes", Files: true, Filter: true, FileLists: "--files0-from",
	BSD: &BSD{Getopt: "clmwL", Note: "getopt(3) `clmwL`: options end at the first operand; later words are files to count"},
	Opts: &Options{
		Flags:  "-c -m -l -L -w --bytes --chars --lines --max-line-length --words",
		Valued: "--files0-from --total",
	},
}

// ls lists directories. GNU ls has no writing option.
//
// Refuses: every option not listed. Test: TestFilesRules.
var lsRule = &Program{
	Name: "ls", Summary: "list directories", NamesOnly: true, Files: true,
	BSD: &BSD{Getopt: "@1ABCD:FGHILOPRSTUWXZabcdefghiklmnopqrstuvwxy%,", Lacks: "NQ", Long: true, Note: "getopt_long `+@1ABCD:…`: options end at the first operand (`ls dir -la` lists dir and a file named -la); -I, -T and -w are flags there, -D takes a format; none writes"},
	Opts: &Options{
		Flags: "-a -A -b -B -c -C -d -f -g -G -h -H -i -k -l -L -m -n -N -o -p -q -Q -r -R -s -S -t -u -U -v -x -X -Z -1 -F " +
			"--all --almost-all --escape --ignore-backups --directory --file-type --human-readable --si --dereference " +
			"--dereference-command-line --inode --numeric-uid-gid --literal --hide-control-chars --show-control-chars " +
			"--quote-name --reverse --recursive --size --full-time --group-directories-first --no-group --context --author",
		Valued:   "-I -w -T --ignore --hide --sort --time --time-style --block-size --width --tabsize --format --quoting-style --indicator-style",
		Optional: "--color --hyperlink --classify",
	},
}

// tree lists a directory tree. Its parser gives each valued letter of a cluster the next word
// (-Lo 1 OUT is -L 1 -o OUT), which the table models, so -o cannot hide in a cluster.
//
// Refuses: -o (writes the listing to a file), -R (with -H, writes an HTML file into every
// directory), in clusters too. Test: TestTreeRefusesWrites (files_test.go).
var treeRule = &Program{
	Name: "tree", Summary: "list a directory tree (no -o, no -R)", NamesOnly: true, Files: true,
	BSD: &BSD{Same: true, Note: "the same program on macOS (Homebrew) and Linux, with its own parser"},
	Opts: &Options{
		Flags: "-a -d -l -f -x -i -q -N -Q -p -u -g -s -h -D -F -v -t -c -U -r -C -n -A -S -J -X " +
			"--noreport --dirsfirst --filesfirst --du --si --prune --gitignore --inodes --device --matchdirs --ignore-case --metafirst",
		Valued:         "-L -P -I --filelimit --charset --sort --timefmt",
		Patterns:       "-P -I",
		SeparateValues: true,
		Refused:        Refusals{{"-o", "writes the listing to a file"}, {"-R", "writes an HTML file into every directory"}},
	},
}

// stat prints file metadata.
//
// Refuses: every option not listed. Test: TestFilesRules.
var statRule = &Program{
	Name: "stat", Summary: "print file metadata", NamesOnly: true, Files: true,
	BSD: &BSD{Getopt: "f:FHlLnqrst:x", Lacks: "c", Note: "getopt(3) `f:FHlLnqrst:x`: options end at the first operand; -f takes a format and -t a time format (GNU: flags), -c is unknown (usage)"},
	Opts: &Options{
		Flags:    "-L -f -t --dereference --file-system --terse",
		Valued:   "-c --format --printf",
		Patterns: "-c --format --printf",
	},
}

// file guesses file types.
//
// Refuses: -C/--compile (writes a compiled magic file), -z/-Z/--uncompress (run decompressors),
// -p/--preserve-date (changes file times). Test: TestFileRefusesWrites (files_test.go).
var fileRule = &Program{
	Name: "file", Summary: "guess file types (no -C, -z)", Files: true, NameLists: "-f --files-from",
	BSD: &BSD{Same: true, Note: "the same program (Christos Zoulas' file) on macOS, FreeBSD and Linux"},
	Opts: &Options{
		Flags: "-b -i -k -l -L -h -N -n -r -s -0 -E --brief --mime --mime-type --mime-encoding --keep-going " +
			"--dereference --no-dereference --no-pad --no-buffer --special-files --extension --apple --print0 --raw",
		Valued:  "-m -e -F -f -P --magic-file --exclude --separator --files-from --parameter",
		Refused: Refusals{{"-C", "writes a compiled magic file"}, {"--compile", "writes a compiled magic file"}, {"-z", "runs decompression programs"}, {"-Z", "runs decompression programs"}, {"--uncompress", "runs decompression programs"}, {"--uncompress-noreport", "runs decompression programs"}, {"-p", "changes file access times"}, {"--preserve-date", "changes file access times"}},
	},
}

// du reports disk usage.
//
// Refuses: every option not listed. Test: TestFilesRules.
var duRule = &Program{
	Name: "du", Summary: "report disk usage", NamesOnly: true, ContentValues: "-X --exclude-from --files0-from", Files: true,
	BSD: &BSD{Getopt: "AB:HI:LPasd:cghklmnrt:x", Lacks: "bS0X", Long: true, Note: "getopt_long `+AB:HI:LPasd:cghklmnrt:x`: options end at the first operand; later words are paths to measure"},
	Opts: &Options{
		Flags: "-a -b -c -h -H -k -L -l -m -P -s -S -x -0 --all --apparent-size --bytes --total --human-readable --si " +
			"--summarize --separate-dirs --one-file-system --count-links --dereference --dereference-args --no-dereference --null --inodes",
		Valued:   "-d -B -t -X --max-depth --block-size --threshold --exclude --exclude-from --files0-from --time-style",
		Optional: "--time",
	},
}

// df reports file system usage. (--output here selects columns, not a file.)
//
// Refuses: every option not listed, including --sync. Test: TestFilesRules.
var dfRule = &Program{
	Name: "df", Summary: "report file system usage", NamesOnly: true, Files: true,
	BSD: &BSD{Getopt: "abcgHhIiklmnPt:T:Y,", Lacks: "Bx", Long: true, Note: "getopt_long `+abcgHhIiklmnPt:T:Y,`: options end at the first operand; -T takes a type list (GNU: a flag); macOS in UNIX 2003 mode reads -t as a flag, a read either way"},
	Opts: &Options{
		Flags:    "-a -h -H -i -k -l -P -T --all --human-readable --si --inodes --local --portability --print-type --total --no-sync",
		Valued:   "-B -t -x --block-size --type --exclude-type",
		Optional: "--output",
	},
}

// basename strips directories from names. It reads nothing, so it may take any argument
// (AnyArgument: basename "$PWD").
//
// Test: TestFilesRules.
var basenameRule = &Program{
	Name: "basename", Summary: "strip directories from names", NamesOnly: true, AnyArgument: true,
	BSD:  &BSD{Getopt: "as:", Lacks: "z", Note: "getopt(3) `as:`: options end at the first operand; it reads no file"},
	Opts: &Options{Flags: "-a -z --multiple --zero", Valued: "-s --suffix"},
}

// dirname strips the last component from names. It reads nothing, so it may take any argument
// (AnyArgument).
//
// Test: TestFilesRules.
var dirnameRule = &Program{
	Name: "dirname", Summary: "strip the last part of names", NamesOnly: true, AnyArgument: true,
	BSD:  &BSD{Getopt: "", Lacks: "z", Note: "getopt(3) with no options: any option is a usage error; it reads no file"},
	Opts: &Options{Flags: "-z --zero"},
}

// realpath resolves names to absolute paths.
//
// Test: TestFilesRules.
var realpathRule = &Program{
	Name: "realpath", Summary: "resolve paths", NamesOnly: true, Files: true,
	BSD: &BSD{Getopt: "q", Lacks: "emLPsz", Note: "getopt(3) `q`: options end at the first operand; other options are a usage error"},
	Opts: &Options{
		Flags: "-e -m -L -P -q -s -z --canonicalize-existing --canonicalize-missing --logical --physical --quiet " +
			"--strip --no-symlinks --zero",
		Valued: "--relative-to --relative-base",
	},
}

// readlink prints symbolic link targets.
//
// Test: TestFilesRules.
var readlinkRule = &Program{
	Name: "readlink", Summary: "print link targets", NamesOnly: true, Files: true,
	BSD: &BSD{Getopt: "fn", Lacks: "emqsvz", Note: "stat(1) as readlink, getopt(3) `fn`: options end at the first operand"},
	Opts: &Options{
		Flags: "-f -e -m -n -q -s -v -z --canonicalize --canonicalize-existing --canonicalize-missing " +
			"--no-newline --quiet --silent --verbose --zero",
	},
}
