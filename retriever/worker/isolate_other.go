//go:build !linux

package worker

// IsolationPaths is what the retriever process may touch once isolated.
type IsolationPaths struct {
	Read, Write, Execute []string
}

// DefaultIsolationPaths: see isolate_linux.go.
func DefaultIsolationPaths(tmp string) IsolationPaths { return IsolationPaths{Write: []string{tmp}} }

// Isolate: Landlock exists only on Linux. The retriever still runs with a scrubbed environment
// in an empty directory, and the audit records "none".
func Isolate(IsolationPaths) (string, error) { return "none: Landlock is Linux-only", nil }
