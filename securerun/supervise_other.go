//go:build !linux

package securerun

// Supervise: the secure-read-only profile is Linux only; nothing runs.
func Supervise(l Launch) Outcome {
	return Outcome{NotStarted: "the " + Profile + " profile is Linux only so far"}
}
