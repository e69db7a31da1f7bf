package editguard

// The edit guard (see doc.go): the network, which only hookctl's retriever may reach.

import (
	"github.com/hookctl/hookctl/programs"
	"github.com/hookctl/hookctl/route"
)

// networkRule: network use anywhere the walker reaches.
//
// Why: raw web content must reach the agent only through hookctl's quarantined retriever. The
// router (route.RouteNetwork) answers, or refuses, a command that is exactly one network
// program; it walked the rest of the tree too, but could not see into strings, so `bash -c
// 'curl https://evil.example/x'`, `eval 'wget -qO- …'` and `find . -exec curl … \;` fetched
// unmediated in edit mode (issue 7). Network use inside a larger command is now this rule's.
// What: a command whose program is a network program (route.NetworkProgram: curl, wget,
// httpie, gh, nc, ssh, scp, …) is refused, with the retriever's hint, wherever the guard
// reaches it: in a pipeline, a substitution, a function, a wrapper, an eval or `sh -c` string,
// xargs or find -exec. So are git reaching a host by URL (gitRule) and rsync to or from a host
// (copyRule). curl or wget writing a protected file is refused as that write first.
// Test: TestNetwork.
var networkRule = &rule{
	match: func(name string) bool { isNet, _ := route.NetworkProgram(name); return isNet },
	judge: func(j *judge, c *invocation) *programs.Refusal {
		if c.prog == "curl" || c.prog == "wget" {
			if r := downloadWrites(j, c); r != nil {
				return r
			}
		}
		return networkRefusal(c.prog, c.prog)
	},
}

// networkRefusal is the refusal of network use by prog (what names it, as `git clone`).
func networkRefusal(prog, what string) *programs.Refusal {
	if _, routed := route.NetworkProgram(prog); routed {
		return refuse(prog, route.RetrieveHint, "`%s` reaches the network inside a larger command; only a plain `%s URL` standing alone is answered by hookctl's retriever", what, prog)
	}
	return refuse(prog, route.RetrieveHint, "`%s` reaches the network outside hookctl's retriever", what)
}

// networkArgs reports whether a command reaches the network by programs' tables, reading the
// words it knows.
func networkArgs(prog string, args []word) bool {
	return route.NetworkUse(prog, values(args))
}
