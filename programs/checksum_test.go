package programs

import "testing"

// TestChecksumRules: the digest programs print digests or check them; no option writes. -c only
// reads the list and the files it names and prints verdicts.
func TestChecksumRules(t *testing.T) {
	check(t, true,
		r("sha256sum", "go.sum"),
		r("sha256sum", "-b", "a", "b"),
		r("sha256sum", "--tag", "bin/hookctl"),
		r("sha256sum", "-c", "SHA256SUMS"),
		r("sha256sum", "--check", "--quiet", "--ignore-missing", "SHA256SUMS"),
		r("md5sum", "go.mod"),
		r("sha1sum", "-z", "f"),
		r("sha512sum", "f"),
		r("b2sum", "-l", "256", "f"),
		r("b2sum", "--length=128", "f"),
		r("cksum", "f"),
		r("cksum", "-a", "sha256", "f"),
		r("cksum", "--algorithm=blake2b", "-l", "256", "f"),
		r("sha256sum", loopVar("a.go")),
		r("sha256sum", "-"),
	)
	check(t, false,
		r("sha256sum", "-o", "out").because("not on the read-only allowlist"),               // no output option exists; refused, not guessed
		r("sha256sum", "--che", "SUMS").because("not on the read-only allowlist"),           // abbreviations are not matched
		r("cksum", "-a", loopVar("md5"), "f").because("loop variable"),                      // the loop variable as a value
		r("md5sum", pat("a|b")).because("shell syntax"),                                     // pattern text is a file name
		r("b2sum", "-l", "-1", "f").because("may not start with `-`"),                       // a separate value that looks like an option
		r("cksum", "--debug=x", "f").because("takes no value"),                              // a flag with a value
		r("sha512sum", "--algorithm", "md5", "f").because("not on the read-only allowlist"), // cksum's option is not sha512sum's
	)
}

// TestChecksumBSDReadings: FreeBSD's md5(1) in GNU mode and BSD cksum stop at the first operand;
// every later word is a file to hash, which is a read.
func TestChecksumBSDReadings(t *testing.T) {
	check(t, true,
		r("sha256sum", "f", "-c"), // BSD: files f and -c
		r("cksum", "f", "-a", "md5"),
		r("cksum", "-a", "md5", "f"), // BSD: -a is a usage error
	)
}
