// Package session is hookctl's session store: each session's mode and its history, what the
// model was last told of it, the calls two hook processes both saw (claims), the clients a
// session runs under, and the record of a project's git remotes. A state file is read whole
// and replaced whole under a lock, sealed so that a damaged or torn one reads as read-only.
package session
