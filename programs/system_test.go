package programs

import "testing"

// TestDateNeverSets: date -s/--set (and abbreviations) and any operand other than one +FORMAT
// set the system clock, and are refused.
func TestDateNeverSets(t *testing.T) {
	check(t, true,
		r("date"),
		r("date", "-u"),
		r("date", "+%Y-%m-%d"),
		r("date", "+%H:%M"),
		r("date", "-d", "yesterday", "+%F"),
		r("date", "-r", "go.mod"),
		r("date", "-I"),
		r("date", "-Iseconds"),
		r("date", "--iso-8601=seconds"),
		r("date", "-R"),
		r("date", "--rfc-3339=seconds"),
		r("date", "-u", "+%s"),
		r("date", "--date=@0"),
	)
	check(t, false,
		r("date", "-s", "2020-01-01").because("sets the system clock"),   // -s DATE
		r("date", "--set=2020-01-01").because("sets the system clock"),   // --set=DATE
		r("date", "--set", "tomorrow").because("sets the system clock"),  // --set DATE
		r("date", "--se=x").because("abbreviates `--set`"),               // GNU abbreviation
		r("date", "-us", "x").because("sets the system clock"),           // -s hidden in a cluster
		r("date", "0101000020").because("sets the system clock"),         // MMDDhhmm[[CC]YY]
		r("date", "1200").because("sets the system clock"),               // hhmm (BSD)
		r("date", "-u", "010203042020").because("sets the system clock"), // after an option
		r("date", "+%s", "0101").because("sets the system clock"),        // a second operand (BSD takes either order)
		r("date", "+%s", "+%F").because("sets the system clock"),         // two formats: not one +FORMAT
		r("date", loopVar("0101")).because("sets the system clock"),      // a loop word that is a date
		r("date", "-d", loopGlob("now")).because("glob"),                 // the loop variable as an option value
		r("date", "-d", "-1day").because("may not start with `-`"),       // a separate value that looks like an option
	)
}

// TestDateBSDReading: BSD date (macOS) stops reading options at the first operand, and after a
// +FORMAT takes the next operand as the time to set; its -f parses that operand, its -r takes
// seconds, and it has no -d (a usage error, which reads nothing).
func TestDateBSDReading(t *testing.T) {
	check(t, true,
		r("date", "-r", "1700000000"),        // BSD: print that time; GNU: a reference file of that name
		r("date", "-f", "%s", "+%Y"),         // BSD: -f without a time operand is a usage error; GNU: read dates from file %s
		r("date", "-u", "-R"),                // options before any operand mean the same in both
		r("date", "-j", "-u", "-R"),          // BSD: -j never sets the clock; GNU: no -j, a usage error (trusty-mpm's row)
		r("date", "-d", "@1700000000", "-u"), // BSD: -d is unknown, usage; GNU: both options
	)
	check(t, false,
		r("date", "+%s", "-u").because("sets the system clock"),         // BSD: -u after +FORMAT is the time to set
		r("date", "+%s", "-s", "0101").because("sets the system clock"), // GNU refuses -s; BSD reads -s and 0101 as operands
		r("date", "+%F", "--", "0101").because("sets the system clock"), // after the first operand -- is an operand too
		r("date", "-j", "0101").because("sets the system clock"),        // BSD -j (do not set) with a time: the operand rule holds in every reading
	)
}

// TestSystemRules: echo, pwd, true, false, whoami, nproc, uname, id and which print facts; they
// take the listed options and, where the rule says so, no operands.
func TestSystemRules(t *testing.T) {
	check(t, true,
		r("echo"),
		r("echo", "hello", "world"),
		r("echo", "-n", "x"),
		r("echo", loopVar("a.go")),
		r("echo", "--", "x"),
		r("echo", "a b"),
		r("pwd"),
		r("pwd", "-P"),
		r("true"),
		r("false"),
		r("whoami"),
		r("nproc"),
		r("nproc", "--all"),
		r("nproc", "--ignore=1"),
		r("uname", "-a"),
		r("uname", "-srm"),
		r("uname", "--kernel-release"),
		r("id"),
		r("id", "-u"),
		r("id", "-un"),
		r("id", "root"),
		r("which", "go"),
		r("which", "-a", "go", "git"),
		// echo prints quoted shell syntax as text: the parsers agreed it is one quoted word.
		r("echo", pat("$HOME")),
		r("echo", pat("a;b")),
		r("echo", pat("Done: $(date)")),
		r("echo", Arg{Value: "./*.go", Glob: true}),
		// Over a literal list the loop variable is each word in turn: a pattern, a value.
		r("grep", loopVar("foo"), "f"),
		r("sed", "-n", loopVar("1p"), "f"),
		r("cut", "-d", loopVar(","), "-f1"),
		r("git", "-C", loopVar("hook"), "status"),
	)
	check(t, false,
		r("pwd", "x").because("takes no operands"),                                 // an operand
		r("pwd", "--help").because("not on the read-only allowlist"),               // an option not in the table
		r("true", "x").because("takes no operands"),                                // an operand
		r("false", "--version").because("not on the read-only allowlist"),          // an option not in the table
		r("whoami", "x").because("takes no operands"),                              // an operand
		r("nproc", "2").because("takes no operands"),                               // an operand
		r("nproc", "--ignore", "-1").because("may not start with `-`"),             // a separate value that looks like an option
		r("uname", "x").because("takes no operands"),                               // an operand
		r("uname", "-x").because("not on the read-only allowlist"),                 // an option not in the table
		r("id", "a", "b").because("at most one user"),                              // two users
		r("id", pat("a|b")).because("shell syntax"),                                // pattern text as a user
		r("which", "-x", "go").because("not on the read-only allowlist"),           // an option not in the table
		r("which", pat("go;x")).because("shell syntax"),                            // pattern text as a name
		r("which", "--skip-alias", "go").because("not on the read-only allowlist"), // GNU which option not in the table
	)
}

// TestSystemBSDReadings: id, which, uname, pwd and nproc's BSD builds stop reading options at
// the first operand or know none (a usage error); echo takes only a leading -n.
func TestSystemBSDReadings(t *testing.T) {
	check(t, true,
		r("id", "-u", "root"),      // options first: the same in both
		r("which", "go", "-a"),     // BSD: looks up go and a program named -a
		r("uname", "--all"),        // BSD: a usage error
		r("pwd", "-P"),             // the same in both
		r("nproc", "--all"),        // FreeBSD nproc takes --all too
		r("echo", "-n", "x", "-e"), // text to print, everywhere
	)
	check(t, false,
		r("id", "root", "-u").because("at most one user"), // BSD reads -u as a second user
	)
}

// TestMachineRules: hostname, uptime, free and locale print the machine's state. hostname's
// operand, -b and -F set the host name; free's -s and -c repeat; locale's operands are names.
func TestMachineRules(t *testing.T) {
	check(t, true,
		r("hostname"),
		r("hostname", "-s"),
		r("hostname", "-f"),
		r("hostname", "--fqdn"),
		r("hostname", "-I"),
		r("uptime"),
		r("uptime", "-p"),
		r("uptime", "--since"),
		r("free"),
		r("free", "-h"),
		r("free", "-m", "-t"),
		r("free", "--wide", "--si"),
		r("locale"),
		r("locale", "-a"),
		r("locale", "-m"),
		r("locale", "LC_CTYPE"),
		r("locale", "-k", "decimal_point", "charmap"),
		r("locale", "-ck", "LC_TIME"),
	)
	check(t, false,
		r("hostname", "newname").because("sets the host name"),            // an operand sets it
		r("hostname", "-s", "newname").because("sets the host name"),      // after an option (GNU permutes)
		r("hostname", "-b", "x").because("sets the host name"),            // --boot
		r("hostname", "--boot").because("sets the host name"),             // the long form
		r("hostname", "-F", "/etc/hostname").because("from a file"),       // sets it from a file
		r("hostname", "--file=x").because("from a file"),                  // the long form
		r("hostname", "--fi=x").because("abbreviates `--file`"),           // an abbreviation
		r("hostname", loopVar("h1")).because("sets the host name"),        // a loop word
		r("hostname", "-y").because("not on the read-only allowlist"),     // NIS domain: sets it given an operand
		r("hostname", "--", "-s").because("sets the host name"),           // after --, an operand
		r("uptime", "x").because("takes no operands"),                     // an operand
		r("uptime", "-V", "-x").because("not on the read-only allowlist"), // an option not in the table
		r("free", "-s", "1").because("until killed"),                      // repeats forever
		r("free", "--seconds=1").because("until killed"),                  // the long form
		r("free", "-hs1").because("until killed"),                         // -s in a cluster
		r("free", "-c", "3").because("repeats N times"),                   // repeats
		r("free", "--count", "3").because("repeats N times"),              // the long form
		r("free", "x").because("takes no operands"),                       // an operand
		r("locale", pat("a;b")).because("shell syntax"),                   // pattern text
		r("locale", "../x").because("not a category or keyword name"),     // not a name
		r("locale", "-f", "x").because("not on the read-only allowlist"),  // an option not in the table
	)
}

// TestMachineBSDReadings: BSD hostname and locale stop reading options at the first operand, and
// hostname's operand sets the name there too; BSD uptime takes no options.
func TestMachineBSDReadings(t *testing.T) {
	check(t, true,
		r("hostname", "-i"),          // BSD has no -i: a usage error
		r("uptime", "-p"),            // BSD uptime takes no options: a usage error
		r("locale", "charmap", "-k"), // BSD: keyword names charmap and -k (an unknown keyword)
	)
	check(t, false,
		r("hostname", "-f", "x").because("sets the host name"), // BSD: -f, then x sets the name
	)
}
