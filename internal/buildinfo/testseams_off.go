//go:build !hookctl_testseams

package buildinfo

// TestSeams is set only in a build with the hookctl_testseams tag, which tests use to let the
// worker fetch from a fixture server on loopback. No environment variable or config can set
// it: a shipped binary has no switch that relaxes a rule.
const TestSeams = false
