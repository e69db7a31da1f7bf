package programs

import (
	"strings"

	"github.com/hookctl/hookctl/internal/clip"
)

// npm is allowed for `npm --version` and `npm ls`, which print npm's version and the installed
// dependency tree. Neither runs a script: measured with npm 11.19, a project .npmrc naming a trap
// as script-shell, node-options (--require), git, shell, editor and browser, and package.json
// scripts for ls, prels and preinstall, ran nothing for either (no process but node itself).
// Both read the project's .npmrc, the user's and the global one; `--version` prints before it
// creates any cache or log, but `ls` writes on every run: it makes the cache directory, writes a
// debug log into it and deletes all but the newest ten (a project .npmrc moves both, with cache
// and logs-dir, into the project), and starts an update check that fetches the registry and
// writes its timestamp. No option turns all of that off (--logs-max=0 deletes every old log), so
// npm runs only in the OS sandbox (SandboxOnly), where npm_config_cache is the session's
// scratch directory, other writes are refused and the network is closed.
//
// What: `npm --version` or `npm -v`, alone; `npm ls|list` with the options below and package
// names. Options are matched whole: npm's parser expands unique abbreviations (--dep is
// --depth), and every other option sets configuration (--script-shell=…), so neither is
// admitted.
//
// Test: TestNpmRules (npm_test.go); TestNpmRunsNothing (hook) runs both against the hostile
// .npmrc and scripts, with the sandbox and without; deny/toolchains.txt (install, run, exec,
// test, version, config, npx).
var npmRule = &Program{
	Name: "npm", Summary: "print npm's version or the installed dependency tree (npm --version, npm ls; in the sandbox only)",
	BSD:         &BSD{Same: true, Note: "the same program everywhere, with its own parser"},
	Custom:      judgeNpm,
	SandboxOnly: "npm ls writes its cache, debug logs and update check under your home or where the project's .npmrc says",
}

// npmLsOpts are npm ls's options: what to list and how to print it.
var npmLsOpts = &Options{
	Flags: "--all -a --json --long -l --parseable -p --global -g --link --package-lock-only --unicode " +
		"--workspaces --include-workspace-root",
	Valued: "--depth --omit --include --workspace -w",
	Refused: Refusals{
		{"--prefix", "reads another project"},
		{"--userconfig", "reads another configuration file"},
		{"--cache", "moves where npm writes"},
		{"--logs-dir", "moves where npm writes"},
		{"--script-shell", "sets the shell npm runs scripts with"},
		{"--node-options", "sets node's options for the programs npm runs"},
	},
}

func judgeNpm(args []Arg) *Refusal {
	if len(args) == 0 {
		return refuse("npm", "needs --version or ls")
	}
	first := args[0]
	if first.Pattern || first.Var {
		return refuse("npm", "needs --version or ls")
	}
	switch first.Value {
	case "--version", "-v":
		if len(args) > 1 {
			return refuse("npm "+first.Value, "takes nothing after it (npm reads any other word as a command or configuration)")
		}
		return nil
	case "ls", "list":
	default:
		return &Refusal{Program: "npm", What: "`npm " + clip.Short(first.Value) + "` is not a read: only --version and ls are allowed (the others install, run scripts or change files)",
			Hint: "npm ls --depth=0; or read package.json and package-lock.json with cat or jq"}
	}
	for _, a := range args[1:] {
		// npm reads a single-dash word that is not one shorthand as letters that each are
		// one (-al), or else as a configuration name (-depth=0 sets depth): only exact
		// shorthands are admitted, so that no word is read two ways.
		if v := a.Value; strings.HasPrefix(v, "-") && !strings.HasPrefix(v, "--") && len(v) != 2 {
			return refuse("npm "+first.Value, "write `%s` as separate options, each in full", clip.Short(v))
		}
	}
	c, r := npmLsOpts.Parse("npm "+first.Value, args[1:])
	if r != nil {
		return r
	}
	if c.AfterEnd >= 0 {
		return refuse("npm "+first.Value, "`--` is not needed here")
	}
	for _, a := range c.Operands {
		if a.Pattern || strings.HasPrefix(a.Value, "-") {
			return refuse("npm "+first.Value, "`%s` is not a package name", clip.Short(a.Value))
		}
	}
	return nil
}
