//go:build linux && !amd64 && !arm64

package sandbox

import "github.com/hookctl/hookctl/internal/seccomp"

// readOnlyPrograms is empty here: the tables are written by a test on amd64 and arm64
// (filter_program.go), and this architecture assembles its program at every launch.
var readOnlyPrograms [2][]seccomp.Instruction
