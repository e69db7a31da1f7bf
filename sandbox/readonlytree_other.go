//go:build !(linux && (amd64 || arm64))

package sandbox

func policyOnlyHolds([]Check) string { return "" }

// EditLandlockName is the Landlock-only edit profile's name; Linux's alone.
const EditLandlockName = "edit-landlock"

// EditLandlock: Linux's alone (Exec refuses the profile elsewhere).
func EditLandlock(p *Profile, fullNetwork bool) { p.Name = EditLandlockName }

// InsideCheckEditLandlock: Linux's alone.
func InsideCheckEditLandlock(string, string, string) []Check { return nil }
