package policy

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hookctl/hookctl/internal/testbin"
)

// TestXargsGetsWholeNames runs find … | xargs over names made to split, in real bash: the form
// read-only admits (-print0 | xargs -0) hands wc each name whole and never the secret beside
// them, and the form it refuses (newline-separated) would have read the secret, which is why.
func TestXargsGetsWholeNames(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		testbin.RequireTool(t, "bash")
	}
	dir := t.TempDir()
	files := map[string]string{
		"a .env b.go":          "package a\n",
		"--files0-from=x.go":   "package b\n",
		".env":                 "TOKEN=s3cr3t\n",
		"x.go":                 ".env\x00",
		"sub/plain.go":         "package c\n",
		"sub/'quoted' name.go": "package d\n",
	}
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run := func(cmd string) string {
		c := exec.Command("bash", "--noprofile", "--norc", "-c", cmd)
		c.Dir = dir
		out, _ := c.CombinedOutput()
		return string(out)
	}
	admitted, ref := judgeText("find . -name '*.go' -print0 | xargs -0 wc -c", corpusConfig())
	if ref != nil {
		t.Fatalf("refused: %s", ref.What)
	}
	out := run(admitted)
	for _, name := range []string{"./a .env b.go", "./--files0-from=x.go", "./x.go", "./sub/plain.go", "./sub/'quoted' name.go"} {
		if !strings.Contains(out, name+"\n") {
			t.Errorf("wc did not count %q:\n%s", name, out)
		}
	}
	if strings.Contains(out, "./.env") || strings.Contains(out, " .env\n") {
		t.Errorf("the admitted form reached .env:\n%s", out)
	}
	refused := "find . -name '*.go' | xargs wc -c"
	if _, ref := judgeText(refused, corpusConfig()); ref == nil {
		t.Fatalf("%s admitted", refused)
	}
	if out := run(refused); !strings.Contains(out, " .env\n") {
		t.Errorf("the refused form did not reach .env here, so this test no longer shows why it is refused:\n%s", out)
	}
}
