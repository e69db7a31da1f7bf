// Package buildcheck holds the tests that keep the module's shape: which processes link network
// code (the hook process none, the dashboard only a listener), that no import climbs back up a
// floor (docs/decisions/0014), that the protocol imports nothing above it and the dashboard no
// judge, that the policy does no I/O, that test fixtures stay in tests, that the Makefile fuzzes
// every fuzz target, and that no package of hookctl allocates at start-up. It has tests only.
package buildcheck
