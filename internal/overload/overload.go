// Package overload lets a hook process step back in a burst of hooks, so that the human's
// toggle, which competes with the burst for the CPU, lands first. It runs in the hook process.
//
// A burst of hundreds of hook calls (parallel agents and subagents) makes every process on
// the machine wait its turn for a CPU, and the human's `hookctl readonly on`, one process among
// them, waits as long as the average hook. So each hook takes one of a few slots as it starts
// (a lock on one byte of a file, which dies with the process); a hook that finds every slot
// taken is one of a burst, and lowers its own CPU priority. The scheduler then runs the toggle,
// the user's shell and the first hooks of the burst ahead of the rest, and the rest share the
// CPU among themselves as before. A machine that is merely busy (a build) leaves every hook its
// priority: only hooks count.
package overload

import "runtime"

// Nice is the priority a hook takes in a burst: the scheduler gives a nice-0 process about ten
// times the CPU of one at 10.
const Nice = 10

// Slots is how many hooks run at their full priority at once.
func Slots() int { return max(4, 4*runtime.NumCPU()) }
