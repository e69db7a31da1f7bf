package clientversion

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestCompare(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"2.1.77", "2.1.128", -1}, {"2.1.128", "2.1.77", 1}, {"v1.4.0", "1.4", 0},
		{"1.4.0-rc.1", "1.4.0", -1}, {"1.4.0", "1.4.0-rc.1", 1}, {"0.169.0", "0.169.0", 0},
	} {
		a, err1 := Parse(c.a)
		b, err2 := Parse(c.b)
		if err1 != nil || err2 != nil {
			t.Fatalf("%s, %s: %v %v", c.a, c.b, err1, err2)
		}
		if got := Compare(a, b); got != c.want {
			t.Errorf("Compare(%s, %s) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
	for _, bad := range []string{"", "devel", "1..2", "1.x", "latest"} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("Parse(%q) accepted", bad)
		}
	}
}

// TestLearnWalksTheAncestry: in a /proc of processes laid out as a client runs its hook (the
// client, a shell, a wrapper, the hook), the client's package is found above the executable
// (Codex's native binary, whose platform package says 0.169.0-linux-x64) or the script node
// runs (Gemini CLI through its .bin link); a process of another client's package, or none,
// is not taken for it.
func TestLearnWalksTheAncestry(t *testing.T) {
	root := t.TempDir()
	pkg := func(dir, name, version string) string {
		os.MkdirAll(dir, 0o755)
		os.WriteFile(filepath.Join(dir, "package.json"), []byte(`{"name":"`+name+`","version":"`+version+`"}`), 0o644)
		return dir
	}
	nm := filepath.Join(root, "lib", "node_modules")
	codexBin := filepath.Join(pkg(filepath.Join(nm, "@openai", "codex-linux-x64"), "@openai/codex", "0.169.0-linux-x64"), "vendor", "x86_64-unknown-linux-musl", "bin", "codex")
	geminiJS := filepath.Join(pkg(filepath.Join(nm, "@google", "gemini-cli"), "@google/gemini-cli", "0.61.0"), "bundle", "gemini.js")
	for _, f := range []string{codexBin, geminiJS, "/bin/sh"} {
		os.MkdirAll(filepath.Dir(f), 0o755)
		if !strings.HasPrefix(f, "/bin") {
			os.WriteFile(f, nil, 0o755)
		}
	}
	os.MkdirAll(filepath.Join(root, "bin"), 0o755)
	link := filepath.Join(root, "bin", "gemini")
	os.Symlink(geminiJS, link)

	proc := filepath.Join(root, "proc")
	process := func(pid, ppid, exe string, args ...string) {
		d := filepath.Join(proc, pid)
		os.MkdirAll(d, 0o755)
		os.Symlink(exe, filepath.Join(d, "exe"))
		os.WriteFile(filepath.Join(d, "cmdline"), []byte(strings.Join(append([]string{exe}, args...), "\x00")+"\x00"), 0o644)
		os.WriteFile(filepath.Join(d, "stat"), []byte(pid+" (a) b) S "+ppid+" 1 1"), 0o644)
	}
	// Codex: 100 codex ← 101 sh -c ← 102 recording wrapper (the hook's parent).
	process("100", "1", codexBin, "exec")
	process("101", "100", "/bin/sh", "-c", "hook")
	process("102", "101", "/bin/sh", "/tmp/record.sh")
	// Gemini CLI: 200 node …/bin/gemini ← 201 sh.
	process("200", "1", "/usr/bin/node", "--no-warnings", link, "-p", "x")
	process("201", "200", "/bin/sh", "-c", "hook")

	for _, c := range []struct {
		agent, pid, version string
	}{
		{"codex", "102", "0.169.0"}, {"gemini", "201", "0.61.0"}, {"gemini", "102", ""}, {"codex", "201", ""}, {"cursor", "102", ""},
	} {
		pid := 0
		for _, r := range c.pid {
			pid = pid*10 + int(r-'0')
		}
		f, err := learn(c.agent, proc, pid)
		switch {
		case c.version == "" && err == nil:
			t.Errorf("%s above %s: found %+v, want none", c.agent, c.pid, f)
		case c.version != "" && (err != nil || f.Version != c.version):
			t.Errorf("%s above %s: %+v, %v; want %s", c.agent, c.pid, f, err, c.version)
		}
	}
}

// TestCheck: a refused version, one older than the minimum, and an unknown one are refused,
// each saying why; one at the minimum is not.
func TestCheck(t *testing.T) {
	r := Rule{MinVersion: "2.1.77", Refuse: map[string]string{"2.1.90": "a timeout lets the call run"}}
	for _, c := range []struct {
		version string
		err     error
		want    string
	}{
		{"2.1.77", nil, ""},
		{"2.1.128", nil, ""},
		{"2.1.90", nil, "Claude Code 2.1.90 is refused by your organisation's policy (P): a timeout lets the call run"},
		{"2.1.50", nil, "Claude Code 2.1.50 is older than 2.1.77, the oldest your organisation's policy (P) allows"},
		{"", os.ErrNotExist, "cannot learn which one runs this hook"},
	} {
		got := Check("claude", r, Found{Version: c.version, Source: "S"}, c.err, "your organisation's policy (P)")
		if (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
			t.Errorf("%s: %q, want %q", c.version, got, c.want)
		}
	}
	if got := CheckHookctl("devel", "1.0.0", "your organisation's policy (P)"); !strings.Contains(got, "cannot be compared") {
		t.Errorf("a devel build under a minimum: %q", got)
	}
}

// TestLearnNativeInstall: Claude Code's native installer and Homebrew's cask run an executable
// whose path names its version; a real process tree (a copy of sh at that path, running this
// test binary) is learned as that version. Controls: the same shell outside the layout, and a
// shell that only names the layout's path as its script, are not taken for Claude Code.
func TestLearnNativeInstall(t *testing.T) {
	if os.Getenv("CLIENTVERSION_TEST_LEARN") != "" {
		f, err := Learn("claude")
		fmt.Printf("version=%s err=%v\n", f.Version, err)
		return
	}
	sh, err := os.ReadFile("/bin/sh")
	if err != nil {
		t.Skip("no /bin/sh to copy: ", err)
	}
	root := t.TempDir()
	place := func(rel string) string {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, sh, 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	run := self + " -test.run='^TestLearnNativeInstall$'; true"
	script := filepath.Join(root, "script", "claude", "versions", "9.9.9")
	os.MkdirAll(filepath.Dir(script), 0o755)
	os.WriteFile(script, []byte(run+"\n"), 0o755)
	for _, c := range []struct {
		name string
		argv []string
		want string
	}{
		{"native installer", []string{place(".local/share/claude/versions/2.1.90"), "-c", run}, "version=2.1.90 err=<nil>"},
		{"Homebrew cask", []string{place("Caskroom/claude-code/2.1.311/claude"), "-c", run}, "version=2.1.311 err=<nil>"},
		{"control: the shell elsewhere", []string{place("bin/2.1.90"), "-c", run}, "version= err=no process"},
		{"control: a script named like the layout", []string{"/bin/sh", script}, "version= err=no process"},
	} {
		cmd := exec.Command(c.argv[0], c.argv[1:]...)
		cmd.Env = append(os.Environ(), "CLIENTVERSION_TEST_LEARN=1")
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), c.want) {
			t.Errorf("%s: %q, %v; want %q", c.name, out, err, c.want)
		}
	}
}
