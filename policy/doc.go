// Package policy is the decision, and nothing else: given a tool call, the config, the
// session's state and the answers of its ports (World, and the func fields of Policy: the
// sandbox, path resolution, walks, protection, gh, the project's git facts, the client's own
// rules), it says allow, deny, ask or pass, and why. It holds the read-only judge (bash.go,
// explain.go: what the read-only shell accepts, with the programs' rules), the sensitive-file
// rule (secrets.go), the containment rewrite (sandbox.go), review mode's publishes (review.go),
// the read-only runners (runners.go) and the network quarantine's routing (policy.go).
//
// It does no I/O: it imports no os, io/fs or os/exec, and uses path/filepath on names only (a
// test in internal/buildcheck keeps it so), so that no I/O failure can turn into an allow. gate
// asks the machine on its behalf and constructs it (Gate.NewPolicy).
package policy
