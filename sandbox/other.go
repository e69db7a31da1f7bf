//go:build !linux || !(amd64 || arm64)

package sandbox

import "errors"

// Supported: this build has no sandbox for this platform (macOS's Seatbelt profile is generated
// by Seatbelt but not applied yet).
const Supported = false

// Applied: see linux.go.
type Applied struct{ LandlockABI int }

// Isolation: see linux.go.
func (Applied) Isolation() string { return "none" }

// Apply always fails here.
func Apply(*Profile) (Applied, error) {
	return Applied{}, errors.New("hookctl has no sandbox for this platform yet")
}
