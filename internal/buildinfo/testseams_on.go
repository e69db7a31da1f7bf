//go:build hookctl_testseams

package buildinfo

// TestSeams: this is a test build (see testseams_off.go).
const TestSeams = true
