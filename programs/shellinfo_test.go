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
		r("printenv").because("whole environment"),
		r("printenv", "-0").because("whole environment"),
		r("printenv", "GITHUB_TOKEN").because("named like a secret"),
		r("printenv", "HOME", "AWS_SECRET_ACCESS_KEY").because("named like a secret"),
		r("printenv", "npm_config__authToken").because("named like a secret"),
		r("printf", "-v", "x", "y").because("assigns"),
		r("printf", "-vx", "y").because("assigns"),
		r("printf").because("needs a format"),
		r("printf", pat("%s"), Arg{Value: "./*", Glob: true}).because("glob"),
	)
}
