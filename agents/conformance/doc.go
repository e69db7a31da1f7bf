// Package conformance holds the behaviours every client must show under hookctl, run against
// each real client through one harness (agents/agenttest), as one table: rows are behaviours,
// columns are clients, and where a client differs (it takes no rewrite, a richer test of its own
// package holds the behaviour, no real client runs here) the difference is a field of the client
// or a cell of the table, not another copy of the test. It has tests only.
package conformance
