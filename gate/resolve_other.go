//go:build !unix

package gate

import "io/fs"

// linkCount is 0 (unknown) where the system does not say, so every target is compared.
func linkCount(fs.FileInfo) uint64 { return 0 }

// device is unknown where the system does not say, so every directory is searched.
func device(fs.FileInfo) (uint64, bool) { return 0, false }

// fileID is unknown where the system does not say: every directory is entered.
func fileID(fs.FileInfo) ([2]uint64, bool) { return [2]uint64{}, false }
