package programs

import "testing"

func TestHookctlRule(t *testing.T) {
	check(t, true,
		r("hookctl", "check", "--", pat("sed -i s/a/b/ f > x")),
		r("hookctl", "check", "--json", "--", "ls"),
		r("hookctl", "check", "--payload", "p.json"),
		r("hookctl", "readonly", "status"),
		r("hookctl", "readonly"), // bare: the status, as the user's bare /readonly
		r("hookctl", "readonly", "status", "--session", "abc"),
		r("hookctl", "readonly", "status", "--all"),
		r("hookctl", "version"),
		r("hookctl", "--help"),
		// The command every refused web read points the agent to (issue 7: it was refused).
		r("hookctl", "retrieve", "fetch", "https://go.dev/doc/", "--need", "What changed?"),
		r("hookctl", "retrieve", "fetch", pat("https://example.com/?a=1&b=2"), "--need", pat("the list; in order (all of it)")),
		r("hookctl", "retrieve", "search", "mvdan sh", "--need=Is zsh supported?"),
		r("hookctl", "retrieve", "github", "file", "cli/cli", "README.md", "--ref", "trunk", "--need", "x"),
		r("hookctl", "retrieve", "fetch", loopVar("https://a.example/"), "--need", "x"), // a loop over URLs
	)
	check(t, false,
		r("hookctl", "readonly", "off").because("only the user may change"),                                     // leaving read-only is the human's act
		r("hookctl", "readonly", "on").because("only the user may change"),                                      // so is entering it
		r("hookctl", "readonly", "toggle").because("only the user may change"),                                  // and toggling
		r("hookctl", "readonly", "--session", "x", "off").because("only the user may change"),                   // verb after an option
		r("hookctl", "readonly", "status", "off").because("only the user may change"),                           // a second verb
		r("hookctl", "install").because("is the user's to run"),                                                 // re-registers hooks
		r("hookctl", "uninstall").because("is the user's to run"),                                               // unregisters the gate
		r("hookctl", "remotes", "add", "evil.example").because("is the user's to run"),                          // opens a host to edit mode (issue 24)
		r("hookctl", "hook").because("is the user's to run"),                                                    // pointless, and takes stdin
		r("hookctl", "doctor").because("is the user's to run"),                                                  // runs claude
		r("hookctl", "statusline").because("is the user's to run"),                                              // reads stdin
		r("hookctl", "audit").because("is the user's to run"),                                                   // shows what servers sent
		r("hookctl", "retrieve", "fetch", "https://x.example/").because("needs one --need"),                     // the need is the point
		r("hookctl", "retrieve", "--session", "victim", "fetch", "u", "--need", "x").because("hookctl sets it"), // forged attribution
		r("hookctl", "retrieve", "fetch", "u", "--need", "x", "--tool=WebFetch").because("hookctl sets it"),
		r("hookctl", "retrieve", "fetch", "u", "--nee", "x").because("not on the read-only allowlist"), // no abbreviations
		r("hookctl", "retrieve", "delete", "u", "--need", "x").because("takes fetch URL"),              // no such retrieval
		r("hookctl", "retrieve", "fetch", "u", "--need", "x", "--ref", pat("a;b")).because("shell syntax"),
		r("hookctl").because("needs a verb"),                                         // nothing to judge
		r("hookctl", loopVar("off")).because("written out"),                          // a loop word as the verb
		r("hookctl", "readonly", loopVar("off")).because("only the user may change"), // a loop word as readonly's verb
	)
}
