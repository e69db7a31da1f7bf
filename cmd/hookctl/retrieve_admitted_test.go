package main

import (
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// TestAdmittedRetrieveRunsForReal: the read-only judge admits `hookctl retrieve …`, the command
// every refused web read points the agent to. The command it admits (the `runs:` form `hookctl
// check` prints) is run for real, with the shipped build, from a hostile project: a
// hookctl-network of the project's own that would leave a marker, on PATH ahead of
// everything. The project must be unchanged byte for byte, the project's worker never run, the
// loopback target refused (no variable opens it), and hookctl's home changed only in its audit.
func TestAdmittedRetrieveRunsForReal(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binaries")
	}
	bin := buildPair(t)
	home, project := t.TempDir(), t.TempDir()
	marker := filepath.Join(t.TempDir(), "ran")
	trap := "#!/bin/sh\ntouch " + marker + "\n"
	os.WriteFile(filepath.Join(project, "hookctl-network"), []byte(trap), 0o755)
	os.WriteFile(filepath.Join(project, "README.md"), []byte("notes\n"), 0o644)
	// A distiller that needs no model, so that the request reaches the worker.
	os.WriteFile(filepath.Join(home, "config.toml"), []byte("[retriever]\ndistiller = \"extract\"\n"), 0o600)
	before, homeBefore := treeDigest(t, project), treeDigest(t, home)

	cmd := "hookctl retrieve fetch 'http://127.0.0.1:9/secret?a=1&b=2' --need 'What does it say?'"
	check := exec.Command(bin, "check", "--", cmd)
	check.Env = append(os.Environ(), "HOOKCTL_HOME="+home)
	out, err := check.Output()
	runs, ok := strings.CutPrefix(strings.TrimPrefix(string(out), "allow\n"), "runs: ")
	runs, _, _ = strings.Cut(runs, "\n")
	if err != nil || !strings.HasPrefix(string(out), "allow\n") || !ok {
		t.Fatalf("not admitted: %v %s", err, out)
	}
	sh := exec.Command("bash", "--norc", "--noprofile", "-c", strings.TrimSpace(runs))
	sh.Dir = project
	sh.Env = append(os.Environ(), "HOOKCTL_HOME="+home, "HOOKCTL_ALLOW_LOOPBACK_FOR_TESTS=1",
		"PATH="+project+":"+filepath.Dir(bin)+":"+os.Getenv("PATH"))
	got, _ := sh.CombinedOutput()
	if !strings.Contains(string(got), "hookctl refused this retrieval") {
		t.Errorf("the loopback target was not refused: %s", got)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the project's own hookctl-network ran")
	}
	if after := treeDigest(t, project); after != before {
		t.Errorf("the project changed:\n%s\n%s", before, after)
	}
	for _, line := range strings.Split(treeDigest(t, home), "\n") {
		if line != "" && !strings.Contains(homeBefore, line) && line[:strings.IndexByte(line, ' ')] != "audit" && !strings.HasPrefix(line, "audit/") {
			t.Errorf("hookctl's home changed outside its audit: %s", line)
		}
	}
}

// treeDigest lists every file under dir with a hash of its content and its mode, sorted.
func treeDigest(t *testing.T, dir string) string {
	t.Helper()
	var lines []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		info, _ := d.Info()
		line := rel + " " + info.Mode().String()
		if d.Type().IsRegular() {
			b, _ := os.ReadFile(p)
			sum := sha256.Sum256(b)
			line += " " + hex.EncodeToString(sum[:8])
		}
		lines = append(lines, line)
		return nil
	})
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}
