package programs

// The checksum programs read files and print a digest of each. None of them has an option
// that writes or runs anything; -c/--check reads a list of names and digests and then the
// files it names, printing only each name and whether it matched, never a file's content, so it
// is allowed too (the sensitive-file rule still sees the list's own name, not the names inside
// it: docs/threat-model.md).
//
// Refuses: every option not listed. Test: TestChecksumRules, TestChecksumBSDReadings
// (checksum_test.go); the write and exec forms are the options no table lists.

// sumOpts are the options of GNU md5sum, sha1sum, sha256sum and sha512sum (coreutils 9.1).
var sumOpts = &Options{
	Flags: "-b -c -t -z -w --binary --check --tag --text --zero --ignore-missing --quiet --status --strict --warn",
}

// sumBSD is FreeBSD's md5(1) run as md5sum, sha1sum, sha256sum or sha512sum: its GNU-compatible
// mode, getopt_long with `+`, so options end at the first operand. macOS ships none of these
// names (it has md5 and shasum), so there the call fails before reading anything.
var sumBSD = &BSD{Getopt: "bctwz", Long: true, Note: "FreeBSD md5(1) in its GNU mode, getopt_long `+bctwz`: options end at the first operand; later words are files to hash; macOS has no such program"}

var (
	md5sumRule    = &Program{Name: "md5sum", Summary: "print or check MD5 digests", Filter: true, Opts: sumOpts, BSD: sumBSD}
	sha1sumRule   = &Program{Name: "sha1sum", Summary: "print or check SHA-1 digests", Filter: true, Opts: sumOpts, BSD: sumBSD}
	sha256sumRule = &Program{Name: "sha256sum", Summary: "print or check SHA-256 digests", Filter: true, Opts: sumOpts, BSD: sumBSD}
	sha512sumRule = &Program{Name: "sha512sum", Summary: "print or check SHA-512 digests", Filter: true, Opts: sumOpts, BSD: sumBSD}
)

// b2sum is GNU's BLAKE2 digest, with a digest length. FreeBSD's md5(1) has no b2sum name.
var b2sumRule = &Program{
	Name: "b2sum", Summary: "print or check BLAKE2 digests", Filter: true,
	BSD: &BSD{Getopt: "bcl:twz", Long: true, Note: "no BSD build ships it; read as GNU's with options ending at the first operand"},
	Opts: &Options{
		Flags:  "-b -c -t -z -w --binary --check --tag --text --zero --ignore-missing --quiet --status --strict --warn",
		Valued: "-l --length",
	},
}

// cksum prints a CRC or, with -a, any of the digests above (GNU coreutils 9.1). BSD cksum
// (macOS, FreeBSD) takes only -o ALGORITHM, which the table does not allow.
var cksumRule = &Program{
	Name: "cksum", Summary: "print or check checksums", Filter: true,
	BSD: &BSD{Getopt: "o:", Lacks: "aclzw", Note: "getopt(3) `o:`: every option of the table is a usage error there; options end at the first operand"},
	Opts: &Options{
		Flags:  "-c -z -w --check --tag --untagged --zero --ignore-missing --quiet --status --strict --warn --debug --base64 --raw",
		Valued: "-a -l --algorithm --length",
	},
}
