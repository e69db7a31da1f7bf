package agenttest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// MachineDir makes a directory to mount InPlace: outside the temporary directories, which may
// be private to the tester, owned by root and readable by every user, as a machine's /etc
// directory is; removed when the test ends.
func MachineDir(t *testing.T, prefix string) string {
	t.Helper()
	dir, err := os.MkdirTemp("/var/lib", prefix)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// InPlace returns argv run with src mounted at dst, a directory under /etc (the organisation's
// policy, a client's machine-wide settings: the fixed places hookctl and the clients read), in
// a mount namespace of its own whose /etc is an overlay of the machine's with a layer on a
// tmpfs of its own: the mount point is made in that layer, and the machine's /etc, which other
// tests and sessions read meanwhile, is never written (a mount point one test made and removed
// there was how concurrent tests broke each other). Needs root and unshare.
func InPlace(t *testing.T, src, dst string, argv ...string) []string {
	t.Helper()
	return append([]string{"unshare", "--mount", "--propagation", "private", "--", "sh", "-c", inPlaceScript, src, dst, t.TempDir()}, argv...)
}

// inPlaceScript is InPlace's: $0 the source, $1 the mount point under /etc, $2 an empty
// directory for the layer's tmpfs (mounted in the namespace only), then the command.
const inPlaceScript = `mount -t tmpfs -o mode=0755 hookctl-etc "$2" && mkdir "$2/upper" "$2/work" &&
mount -t overlay -o "lowerdir=/etc,upperdir=$2/upper,workdir=$2/work" overlay /etc &&
mkdir -p "$1" && mount --bind "$0" "$1" && shift 2 && exec "$@"`

// InPlaceWrapper writes a script that runs bin, with its arguments, as InPlace does, and returns
// its path: a client that must itself run where the file is in place (its hooks with it).
func InPlaceWrapper(t *testing.T, src, dst, bin string) string {
	t.Helper()
	var script strings.Builder
	script.WriteString("#!/bin/sh\nexec")
	for _, a := range InPlace(t, src, dst, bin) {
		script.WriteString(" '" + strings.ReplaceAll(a, "'", `'\''`) + "'")
	}
	script.WriteString(" \"$@\"\n")
	wrapper := filepath.Join(t.TempDir(), "in-place")
	if err := os.WriteFile(wrapper, []byte(script.String()), 0o755); err != nil {
		t.Fatal(err)
	}
	return wrapper
}
