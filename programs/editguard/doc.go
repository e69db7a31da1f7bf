// Package editguard is edit mode's accident guard: the judge of every shell command an agent
// runs in a session that may edit files. It runs in the hook process, beside the read-only
// allowlist (package programs).
//
// In edit mode the agent writes files and runs builds, tests and most other commands. The edit
// guard refuses a short exclude list of commands that destroy work or cannot be undone: a
// recursive rm that reaches outside the project and the temporary directories, force pushes and
// the git commands that discard uncommitted work or its recovery records, privilege escalation
// (but the sudo commands the user's config names), disk formatting and LVM/ZFS destroys, a
// download or decoded text piped into a shell, destructive calls in interpreter one-liners, fork
// bombs, writes to the files that configure hookctl, Claude Code and the user's shell, to the
// user's credential files and to the kernel's control files; data destroyed outside the project
// (rsync --delete, rclone, cloud, containers, clusters, infrastructure, databases: Families, which
// the user's config may turn off); network
// use anywhere but a plain read standing alone, which the hook hands to hookctl's quarantined
// retriever (route.RouteNetwork); and what would switch the guard off: hookctl and claude
// invocations (by any name, through any wrapper, named in an interpreter's code), copies of
// hookctl's binary, and the variables that move hookctl's or Claude Code's configuration.
//
// Threat model: this is an ACCIDENT GUARD, NOT A SECURITY BOUNDARY. It catches the command typed
// in haste or hallucinated, and names the rule so that the agent can ask the user instead. An
// agent that means harm has many ways round it that are out of scope here, left to edit mode's
// OS sandbox (package sandbox's edit profile): a script it wrote and then runs, a sourced file, a Makefile or package.json
// script, code that builds a name at run time ('hook' + 'ctl'), a git alias or hook in the
// repository's own config, a symbolic link made earlier that makes a path inside the project
// point outside it (the guard refuses making one to a protected file, and the hook resolves the
// file tools' targets, but the shell judge reads text), what a patch, stash, branch or archive
// holds, `go run` of a program that does the same thing. TestKnownGaps lists them as allowed rows,
// so that they stay visible. Code written out on the command line is read: shell code is judged,
// other languages are scanned for what they name (codeRule, scanCode).
//
// How a command is judged: it is parsed as bash by mvdan.cc/sh (a command that does not parse is
// refused), and every command the script can run is judged, in order, with what is known at that
// point: the working directory (literal `cd DIR` is followed; after a cd that cannot be resolved
// the directory is unknown), and the variables assigned literal values earlier in the script.
// Commands inside $(…), backticks, <(…), >(…), eval and `sh -c` strings, function bodies,
// here-documents fed to a shell, and the commands that wrappers run are judged too; how each
// wrapper (env, timeout, flock, script, tmux, xargs, find -exec, …) parses its arguments is
// the shell's wrapper table (lexer/nested), and where the table cannot place a wrapper's
// command, every later word is judged as one. Nothing is opened or run: the judgement is a pure
// function of the text and the Context.
//
// What "outside the project" means: the path, cleaned lexically after resolving `~`, `$HOME` and
// the working directory, is not strictly inside Context.Project. The project itself, and the
// directories that hold it, count as outside for a recursive delete.
package editguard
