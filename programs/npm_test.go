package programs

import "testing"

// TestNpmRules: npm --version alone and npm ls with its printing options; every other command,
// option (each of which sets configuration) and spelling npm reads two ways is refused.
func TestNpmRules(t *testing.T) {
	check(t, true,
		r("npm", "--version"),
		r("npm", "-v"),
		r("npm", "ls"),
		r("npm", "ls", "--depth=0"),
		r("npm", "ls", "--depth", "1"),
		r("npm", "ls", "--all", "--json"),
		r("npm", "ls", "-a", "-l"),
		r("npm", "ls", "--parseable", "--omit=dev"),
		r("npm", "ls", "-g", "--depth=0"),
		r("npm", "ls", "react", "react-dom"),
		r("npm", "ls", "@types/node"),
		r("npm", "list", "--depth=0"),
		r("npm", "ls", "--workspace", "web", "--package-lock-only"),
	)
	check(t, false,
		r("npm").because("needs --version or ls"),
		r("npm", "install").because("is not a read"),
		r("npm", "i", "left-pad").because("is not a read"),
		r("npm", "ci").because("is not a read"),
		r("npm", "run", "build").because("is not a read"),
		r("npm", "test").because("is not a read"),
		r("npm", "start").because("is not a read"),
		r("npm", "exec", "x").because("is not a read"),
		r("npm", "x", "x").because("is not a read"),
		r("npm", "version", "patch").because("is not a read"),
		r("npm", "version").because("is not a read"), // with an argument it bumps and tags
		r("npm", "config", "set", "script-shell", "./evil").because("is not a read"),
		r("npm", "pkg", "set", "scripts.test=./evil").because("is not a read"),
		r("npm", "la").because("is not a read"),
		r("npm", "--json", "ls").because("is not a read"), // npm permutes; refused all the same
		r("npm", "--version", "--foo").because("takes nothing after it"),
		r("npm", "--version", "ls").because("takes nothing after it"),
		r("npm", "-v", "install").because("takes nothing after it"),
		r("npm", "--versions").because("is not a read"),
		r("npm", loopVar("ls")).because("needs --version or ls"),
		r("npm", "ls", "--script-shell=./evil").because("sets the shell"),
		r("npm", "ls", "--node-options=--require=./evil.js").because("sets node's options"),
		r("npm", "ls", "--userconfig", "/tmp/rc").because("reads another configuration file"),
		r("npm", "ls", "--globalconfig=/tmp/rc").because("not on the read-only allowlist"),
		r("npm", "ls", "--prefix", "/tmp/x").because("reads another project"),
		r("npm", "ls", "--cache=/tmp/c").because("moves where npm writes"),
		r("npm", "ls", "--logs-dir=.").because("moves where npm writes"),
		r("npm", "ls", "--logs-max=0").because("not on the read-only allowlist"), // deletes every old log
		r("npm", "ls", "--dep=0").because("not on the read-only allowlist"),      // npm expands abbreviations
		r("npm", "ls", "-depth=0").because("separate options"),                   // npm reads it as --depth
		r("npm", "ls", "-al").because("separate options"),
		r("npm", "ls", "-wweb").because("separate options"),
		r("npm", "ls", "--", "react").because("is not needed"),
		r("npm", "ls", "--depth", "-1").because("may not start with `-`"),
		r("npm", "ls", pat("a|b")).because("not a package name"),
		r("npm", "ls", "-C", "/tmp").because("not on the read-only allowlist"), // -C is --prefix
	)
}
