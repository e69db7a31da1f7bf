package programs

import "testing"

func TestHookctlRule(t *testing.T) {
	check(t, true,
		r("hookctl", "check", "--", pat("sed -i s/a/b/ f > x")),
		r("hookctl", "check", "--json", "--", "ls"),
		r("hookctl", "check", "--payload", "p.json"),
		r("hookctl", "readonly", "status"),
		r("hookctl", "readonly", "status", "--session", "abc"),
		r("hookctl", "readonly", "status", "--all"),
		r("hookctl", "version"),
		r("hookctl", "--help"),
	)
	check(t, false,
		r("hookctl", "readonly", "off").because("only the user may change"),                   // leaving read-only is the human's act
		r("hookctl", "readonly", "on").because("only the user may change"),                    // so is entering it
		r("hookctl", "readonly", "toggle").because("only the user may change"),                // and toggling
		r("hookctl", "readonly", "--session", "x", "off").because("only the user may change"), // verb after an option
		r("hookctl", "readonly", "status", "off").because("only the user may change"),         // a second verb
		r("hookctl", "install").because("is the user's to run"),                               // re-registers hooks
		r("hookctl", "uninstall").because("is the user's to run"),                             // unregisters the gate
		r("hookctl", "hook").because("is the user's to run"),                                  // pointless, and takes stdin
		r("hookctl", "doctor").because("is the user's to run"),                                // runs claude
		r("hookctl", "statusline").because("is the user's to run"),                            // reads stdin
		r("hookctl").because("needs a verb"),                                                  // nothing to judge
		r("hookctl", loopVar("off")).because("written out"),                                   // a loop word as the verb
		r("hookctl", "readonly", loopVar("off")).because("only the user may change"),          // a loop word as readonly's verb
	)
}
