// Package gate is what the hook process decides and all it reads to decide: the tool call, the
// session's start, the user's mode command, a prompt, the session's end and the retrieval hook
// (Gate); the policy (read-only mode, read-only agent types, the network quarantine, edit mode's
// guard), the read-only shell judge, configuration, session state and the decision log.
//
// It runs in the hook process, which can read the user's files; it links no network code (a test
// in internal/buildcheck keeps it so). Nothing here knows any client: the protocol it decides in
// is package hook's.
package gate
