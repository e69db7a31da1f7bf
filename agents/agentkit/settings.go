package agentkit

import "path/filepath"

// Enclosing appends to out each of names (paths relative to a directory: a client's
// SettingsNames) in cwd and in every directory above it but home. Every client reads a
// project's hook files from the directory a session starts in and those above it, so each is
// protected there; home's are the user's own, which each client lists with its other user files.
// A cwd that is not absolute adds nothing.
func Enclosing(out []string, home, cwd string, names []string) []string {
	if !filepath.IsAbs(cwd) {
		return out
	}
	for d := filepath.Clean(cwd); ; d = filepath.Dir(d) {
		if d != home {
			for _, n := range names {
				out = append(out, filepath.Join(d, n))
			}
		}
		if d == filepath.Dir(d) {
			return out
		}
	}
}

// SettingsFiles are the settings files of a client whose files are system (a directory or a file of
// the machine's), inHome below the user's home, and names in every enclosing directory
// (Enclosing).
func SettingsFiles(home, cwd, system string, inHome, names []string) []string {
	out := []string{system}
	if home != "" {
		for _, f := range inHome {
			out = append(out, filepath.Join(home, f))
		}
	}
	return Enclosing(out, home, cwd, names)
}
