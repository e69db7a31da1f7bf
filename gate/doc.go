// Package gate is the hook process's deciders and all their I/O: the tool call, the session's
// start, the user's mode command, a prompt, the session's end and the retrieval hook (Gate), and
// what the policy asks of the machine: path resolution and hard links (resolve.go), walks of
// recursive readers (walk.go), globs and home (internal/shellglob.World, the policy's World on this machine), auto-run files
// (autorun.go), git filters (gitfilters.go). Gate.NewPolicy is the one constructor of the policy,
// which the hook and `hookctl check` both use; LoadConfig is the config with the judges' checks.
//
// It runs in the hook process, which can read the user's files; it links no network code (a test
// in internal/buildcheck keeps it so). Nothing here knows any client: the protocol it decides in
// is package hook's.
package gate
