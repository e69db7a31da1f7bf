package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
)

// TestStanding: of the paths beneath a directory, those whose first name is not in it are left
// out, from one listing; every other path is kept, and all of them where the directory cannot be
// listed or holds more than maxListed names. (TestSandboxHidesCredentials, in cmd/hookctl, runs
// the stores that stand through the sandbox.)
func TestStanding(t *testing.T) {
	home := t.TempDir()
	os.MkdirAll(filepath.Join(home, ".aws"), 0o700)
	os.WriteFile(filepath.Join(home, ".netrc"), nil, 0o600)
	os.Symlink("/nowhere", filepath.Join(home, ".pgpass")) // a dangling link stands: resolvedHidden looks at it
	j := func(rel string) string { return filepath.Join(home, rel) }
	paths := []string{j(".aws/credentials"), j(".aws/sso/cache"), j(".gnupg"), j(".gem/credentials"), j(".netrc"), j(".pgpass"), "/etc/shadow", home + "x/.netrc"}
	want := []string{j(".aws/credentials"), j(".aws/sso/cache"), j(".netrc"), j(".pgpass"), "/etc/shadow", home + "x/.netrc"}
	if got := standing(home, paths); !slices.Equal(got, want) {
		t.Errorf("standing:\n got %q\nwant %q", got, want)
	}
	if got := standing(home+"/", paths); !slices.Equal(got, want) {
		t.Errorf("standing with a trailing slash:\n got %q\nwant %q", got, want)
	}
	for name, dir := range map[string]string{"no home": "", "an absent home": j("absent")} {
		if got := standing(dir, paths); !slices.Equal(got, paths) {
			t.Errorf("%s: %q, want every path", name, got)
		}
	}
	for i := range maxListed {
		os.WriteFile(filepath.Join(home, "f"+strconv.Itoa(i)), nil, 0o600)
	}
	if got := standing(home, paths); !slices.Equal(got, paths) {
		t.Errorf("a home of more than %d names: %q, want every path", maxListed, got)
	}
}
