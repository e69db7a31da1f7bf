// Package trustedpath finds the programs hookctl itself runs (gh for review mode's publish, the
// retriever's distiller) on PATH, in trusted directories only.
//
// Why: review mode's publish ran whatever gh came first on the client's PATH, with the user's
// GitHub token: a gh planted in a directory an edit-mode command could write (~/.cargo/bin,
// the project's bin) was what the approved publish ran (issue 22).
// What: a PATH entry is trusted when it is absolute, lies beneath none of the directories a
// sandboxed command may write as they are (the caller's list: the project, the temporary
// directories, edit_writable), and it and every directory above it belong to root or the user
// and are writable by no one else; the program must be a regular executable file owned by root
// or the user and writable by no one else. The first trusted match is returned as its real
// path, which the caller runs (checked once: nothing that can change it is writable to a
// command hookctl runs).
package trustedpath

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// LookPath finds name on path (a PATH value) in a trusted directory; untrusted are the
// directories sandboxed commands may write as they are, which are never trusted, nor is
// anything beneath them.
func LookPath(name, path string, untrusted []string) (string, error) {
	if strings.Contains(name, "/") {
		return "", fmt.Errorf("%s: a program hookctl runs is looked up by name", name)
	}
	var roots []string
	for _, u := range untrusted {
		if filepath.IsAbs(u) {
			roots = append(roots, real(u))
		}
	}
	skipped := 0
	for _, dir := range filepath.SplitList(path) {
		if !filepath.IsAbs(dir) {
			continue
		}
		file := filepath.Join(dir, name)
		fi, err := os.Stat(file)
		if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0 {
			continue
		}
		resolved := real(file)
		if why := untrustedFile(resolved, roots); why != "" {
			skipped++
			continue
		}
		return resolved, nil
	}
	if skipped > 0 {
		return "", fmt.Errorf("%s is on PATH only in directories hookctl does not trust (beneath the project or a temporary "+
			"directory, or writable by others); install it in a system directory or one of your own, such as ~/.local/bin", name)
	}
	return "", fmt.Errorf("%s: not found on PATH", name)
}

// untrustedFile says why the file at path (its real path) is not to be run, or "".
func untrustedFile(path string, roots []string) string {
	for _, r := range roots {
		if path == r || strings.HasPrefix(path, r+"/") || r == "/" {
			return "beneath " + r
		}
	}
	for p := path; ; p = filepath.Dir(p) {
		if why := owned(p); why != "" {
			return why
		}
		if p == filepath.Dir(p) {
			return ""
		}
	}
}

// owned says why path's owner or mode lets someone other than root and the user change it.
func owned(path string) string {
	var st syscall.Stat_t
	if err := syscall.Stat(path, &st); err != nil {
		return err.Error()
	}
	if st.Uid != 0 && int(st.Uid) != os.Getuid() {
		return path + " belongs to another user"
	}
	if st.Mode&0o022 != 0 && st.Mode&syscall.S_ISVTX == 0 {
		return path + " is writable by others"
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFDIR && st.Mode&0o022 != 0 {
		return path + " is writable by others"
	}
	return ""
}

func real(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return filepath.Clean(p)
}
