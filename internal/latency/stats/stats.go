// Package stats holds the few figures the latency commands report: percentiles of run times,
// in milliseconds.
package stats

import (
	"slices"
	"time"
)

// Pct is the p-th percentile of ds (nearest rank, from below); ds is left as it was.
func Pct(ds []time.Duration, p int) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[min(len(s)-1, len(s)*p/100)]
}

// Ms is d in milliseconds.
func Ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
