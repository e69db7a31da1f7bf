package programs

import "testing"

// TestShellInfoRules: command -v/-V, type, printenv NAME and printf print; every other form runs
// what it names, prints secrets or writes. (go version and go env are not here: they write the
// build cache and telemetry counters under the home, so they run only in the sandbox,
// golang_test.go.)
func TestShellInfoRules(t *testing.T) {
	check(t, true,
		r("command", "-v", "git"),
		r("command", "-V", "ls", "cat"),
		r("type", "ls"),
		r("type", "-a", "git"),
		r("type", "-t", "cd"),
		r("printenv", "HOME"),
		r("printenv", "PATH", "SHELL"),
		r("printenv", "-0", "HOME"),
		// The whole environment: the rule admits it; the hook runs it only through its launcher,
		// whose environment holds no secret (LauncherOnly: TestLauncherOnly).
		r("printenv"),
		r("printenv", "-0"),
		r("env"),
		r("env", "-0"),
		r("printf", pat("%s\\n"), "a", "b"),
		r("printf", pat("%-10s %s\\n"), "name", "value"),
	)
	check(t, false,
		r("command", "ls").because("runs the command it names"),
		r("command", "rm", "-rf", "x").because("runs the command it names"),
		r("command", "-p", "rm", "x").because("not on the read-only allowlist"),
		r("command", "-v").because("needs a name"),
		r("command", "-v", "-p").because("not on the read-only allowlist"),
		r("command", "-v", loopGlob("./*")).because("glob"),
		r("command", "-v", pat("a;b")).because("not a plain name"),
		r("type", "-x", "ls").because("not on the read-only allowlist"),
		r("type").because("needs a name"),
		r("env", "X=1", "ls").because("runs a program"),
		r("env", "-i", "ls").because("runs a program"),
		r("printenv", "GITHUB_TOKEN").because("named like a secret"),
		r("printenv", "HOME", "AWS_SECRET_ACCESS_KEY").because("named like a secret"),
		r("printenv", "npm_config__authToken").because("named like a secret"),
		r("printf", "-v", "x", "y").because("assigns"),
		r("printf", "-vx", "y").because("assigns"),
		r("printf").because("needs a format"),
		r("printf", pat("%s"), Arg{Value: "./*", Glob: true}).because("glob"),
	)
}

// TestUlimitOnlyPrints: ulimit with options alone prints limits; an operand, or a letter after a
// resource letter (bash takes it as the value: `ulimit -n1` sets the limit to 1), sets one.
func TestUlimitOnlyPrints(t *testing.T) {
	check(t, true,
		r("ulimit"),
		r("ulimit", "-a"),
		r("ulimit", "-n"),
		r("ulimit", "-Hn"),
		r("ulimit", "-Sa"),
		r("ulimit", "-H", "-a"),
		r("ulimit", "-n", "-u"), // bash takes no value starting with -: prints both
	)
	check(t, false,
		r("ulimit", "-n", "1").because("sets a limit"),               // sets the open-files limit
		r("ulimit", "1024").because("sets a limit"),                  // sets the file-size limit
		r("ulimit", "unlimited").because("sets a limit"),             // the same
		r("ulimit", "-n1").because("its value"),                      // bash: the attached value sets it
		r("ulimit", "-nu").because("its value"),                      // bash: u is -n's value
		r("ulimit", "-nH").because("not a printing form"),            // the same
		r("ulimit", "-N", "3").because("not a printing form"),        // zsh's -N takes a resource number
		r("ulimit", "-a", loopVar("1")).because("sets a limit"),      // a loop word as the value
		r("ulimit", "-Q").because("not a printing form"),             // not a resource letter
		r("ulimit", "-c", "unlimited").because("sets a limit"),       // core dumps on
		r("ulimit", "-").because("sets a limit"),                     // a lone dash is no option
		r("ulimit", "-H", "-n", "4096").because("sets a limit"),      // the hard limit
		r("ulimit", "--", "-n").because("not a printing form"),       // -- is no resource letter
		r("ulimit", loopVar("-n")).because("sets a limit"),           // a loop variable as an option
		r("ulimit", pat("-n;touch x")).because("sets a limit"),       // quoted shell syntax
		r("ulimit", "-v", "100000").because("sets a limit"),          // virtual memory
		r("ulimit", "-s", "8192", "-n", "1").because("sets a limit"), // two settings
	)
}

// TestLauncherOnly: printenv and env print the whole environment only through hookctl's
// launcher, and say so; printenv NAME needs no launcher.
func TestLauncherOnly(t *testing.T) {
	for _, c := range []struct {
		prog *Program
		args []Arg
		want bool
	}{
		{printenvRule, nil, true},
		{printenvRule, []Arg{{Value: "-0"}}, true},
		{printenvRule, []Arg{{Value: "HOME"}}, false},
		{envRule, nil, true},
		{envRule, []Arg{{Value: "--null"}}, true},
	} {
		if got := c.prog.LauncherOnly(c.args) != ""; got != c.want {
			t.Errorf("%s %v: launcher only %v, want %v", c.prog.Name, c.args, got, c.want)
		}
	}
}
