package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// fencedBlocks returns the fenced code blocks of language lang in a Markdown file, each with the
// line its fence opens on.
func fencedBlocks(t *testing.T, path, lang string) (blocks []string, lines []int) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var cur []string
	in, start := false, 0
	for i, line := range strings.Split(string(b), "\n") {
		switch {
		case !in && strings.TrimSpace(line) == "```"+lang:
			in, start, cur = true, i+1, nil
		case in && strings.TrimSpace(line) == "```":
			in = false
			blocks, lines = append(blocks, strings.Join(cur, "\n")+"\n"), append(lines, start)
		case in:
			cur = append(cur, line)
		}
	}
	return blocks, lines
}

// docFiles are the Markdown files a user reads: the README and everything under docs/.
func docFiles(t *testing.T) []string {
	t.Helper()
	files := []string{filepath.Join("..", "..", "README.md")}
	err := filepath.WalkDir(filepath.Join("..", "..", "docs"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") {
			files = append(files, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestConfigExamples: every configuration example in the README and docs/, pasted as the user's
// config.toml, leaves hookctl working: `hookctl check` still admits a plain read. (The README's
// example once put top-level keys after its [network] header, which TOML reads as
// network.read_only_runners, and every tool call was refused.)
func TestConfigExamples(t *testing.T) {
	load := func(text string) (int, string) {
		home := t.TempDir()
		if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		code, out, errOut := runCLI(t, home, "", "check", "--", "ls")
		return code, out + errOut
	}
	// The control: the README's broken example is caught, and the refusal says what to move.
	code, out := load("[network]\nallow = [\"npm.corp.example\"]\nread_only_runners = [\"go test ./...\"]\n")
	if code == exitOK || !strings.Contains(out, "read_only_runners is a top-level key") {
		t.Fatalf("a top-level key after [network]: exit %d, %q; want a refusal naming the misplaced key", code, out)
	}
	n := 0
	for _, f := range docFiles(t) {
		blocks, lines := fencedBlocks(t, f, "toml")
		for i, b := range blocks {
			n++
			if code, out := load(b); code != exitOK {
				t.Errorf("%s:%d: the example breaks hookctl when pasted into config.toml: exit %d\n%s", f, lines[i], code, out)
			}
		}
	}
	if n < 5 {
		t.Errorf("found %d configuration examples; the reader of the docs is broken", n)
	}
}

// readmeSetups are the states a README example starts from, named by an HTML comment
// `<!-- example setup: NAME -->` before its block (invisible to a reader). Each runs in the
// example's world through hookctl's own entry points, as the client would.
var readmeSetups = map[string]func(t *testing.T, w *readmeWorld){
	"a Claude Code session 0b6c41d2 started in this project": func(t *testing.T, w *readmeWorld) {
		w.hook(t, `{"session_id":"0b6c41d2-9f3e-4c1a-8d2b-5e6f7a8b9c0d","cwd":"PROJECT","hook_event_name":"SessionStart","source":"startup"}`)
	},
	"the agent of session 0b6c41d2 tried sed -i": func(t *testing.T, w *readmeWorld) {
		w.hook(t, `{"session_id":"0b6c41d2-9f3e-4c1a-8d2b-5e6f7a8b9c0d","cwd":"PROJECT","hook_event_name":"PreToolUse","tool_name":"Bash",`+
			`"tool_input":{"command":"sed -i s/a/b/ README.md"},"tool_use_id":"toolu_1","permission_mode":"default"}`)
	},
}

// readmeWorld is a new user's machine: a home with a project in it, and hookctl installed.
type readmeWorld struct {
	bin, home, project string
	env                []string
}

func (w *readmeWorld) hook(t *testing.T, payload string) {
	t.Helper()
	cmd := exec.Command(w.bin, "hook")
	cmd.Dir, cmd.Env = w.project, w.env
	cmd.Stdin = strings.NewReader(strings.ReplaceAll(payload, "PROJECT", w.project))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("setup: hookctl hook: %v\n%s", err, out)
	}
}

// TestReadmeExamples runs every command of the README's console examples, in order, as a new
// user would paste them, in a fresh home with a project and a fresh hookctl, and compares what
// each prints with what the README shows. In the README's text, `…` stands for any text on a
// line, or, alone on a line, for any lines; times, log ids, the home directory and where
// hookctl is installed are compared as what they are, not as their values.
func TestReadmeExamples(t *testing.T) {
	bin := hookctlBinary(t)
	root := t.TempDir()
	w := &readmeWorld{bin: bin, home: filepath.Join(root, "home")}
	w.project = filepath.Join(w.home, "proj")
	if err := os.MkdirAll(w.project, 0o755); err != nil {
		t.Fatal(err)
	}
	w.env = []string{"HOME=" + w.home, "PATH=" + filepath.Dir(bin) + ":/usr/bin:/bin", "LANG=C.UTF-8", "TERM=dumb"}
	git := exec.Command("git", "init", "-q")
	git.Dir, git.Env = w.project, w.env
	if out, err := git.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}

	b, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	normalize := func(s string) string {
		s = strings.ReplaceAll(s, bin, "/home/you/.local/bin/hookctl")
		s = strings.ReplaceAll(s, w.home, "/home/you")
		s = readmeTime.ReplaceAllString(s, "<time>")
		return readmeLogID.ReplaceAllString(s, "<id>")
	}
	ran := 0
	lines := strings.Split(string(b), "\n")
	for i := 0; i < len(lines); i++ {
		if name, ok := strings.CutPrefix(lines[i], "<!-- example setup: "); ok {
			name = strings.TrimSuffix(name, " -->")
			setup := readmeSetups[name]
			if setup == nil {
				t.Fatalf("README.md:%d: no setup named %q", i+1, name)
			}
			setup(t, w)
			continue
		}
		if lines[i] != "```console" {
			continue
		}
		var block []string
		block, i = fenced(lines, i)
		for _, ex := range consoleExamples(block) {
			cmd := exec.Command("bash", "-c", ex.command)
			cmd.Dir, cmd.Env = w.project, w.env
			out, _ := cmd.CombinedOutput()
			ran++
			if !matchExample(normalize(ex.want), normalize(string(out))) {
				t.Errorf("README.md: $ %s\nprints:\n%s\nthe README shows:\n%s", ex.command, out, ex.want)
			}
		}
	}
	if ran < 5 {
		t.Errorf("ran %d README examples; the reader of the README is broken", ran)
	}
}

var (
	readmeTime  = regexp.MustCompile(`\d{4}-\d\d-\d\d \d\d:\d\d(:\d\d)?`)
	readmeLogID = regexp.MustCompile(`\d{8}T\d{6}\.\d{3}Z-[0-9a-f]{8}`)
)

type consoleExample struct{ command, want string }

// fenced is the block whose opening fence is lines[i], and the index of its closing fence.
func fenced(lines []string, i int) (block []string, end int) {
	for i++; i < len(lines) && lines[i] != "```"; i++ {
		block = append(block, lines[i])
	}
	return block, i
}

// consoleExamples splits a console block into commands (after `$ `, continued by a trailing
// backslash) and the output the README shows for each.
func consoleExamples(block []string) []consoleExample {
	var out []consoleExample
	for i := 0; i < len(block); i++ {
		cmd, ok := strings.CutPrefix(block[i], "$ ")
		if !ok {
			continue
		}
		for strings.HasSuffix(cmd, `\`) && i+1 < len(block) {
			i++
			cmd = strings.TrimSuffix(cmd, `\`) + "\n" + block[i]
		}
		var want []string
		for i+1 < len(block) && !strings.HasPrefix(block[i+1], "$ ") {
			i++
			want = append(want, block[i])
		}
		out = append(out, consoleExample{cmd, strings.Join(want, "\n")})
	}
	return out
}

// matchExample says whether got is what want shows: line by line, `…` in a line matching any
// text, and a line that is only `…` matching any number of lines.
func matchExample(want, got string) bool {
	var pat strings.Builder
	pat.WriteString(`\A`)
	for i, l := range strings.Split(strings.TrimRight(want, "\n"), "\n") {
		if strings.TrimSpace(l) == "…" {
			pat.WriteString(`(?:.*\n)*?`)
			continue
		}
		if i > 0 && !strings.HasSuffix(pat.String(), `\n)*?`) {
			pat.WriteString(`\n`)
		}
		parts := strings.Split(l, "…")
		for j, p := range parts {
			if j > 0 {
				pat.WriteString(`.*`)
			}
			pat.WriteString(regexp.QuoteMeta(p))
		}
	}
	pat.WriteString(`\n?\z`)
	return regexp.MustCompile(pat.String()).MatchString(strings.TrimRight(got, "\n") + "\n")
}

// TestDocLinks: every relative link in the README and docs/ leads to a file that exists.
func TestDocLinks(t *testing.T) {
	link := regexp.MustCompile(`\]\(([^)#\s]+)(#[^)]*)?\)`)
	for _, f := range docFiles(t) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range link.FindAllStringSubmatch(string(b), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			if _, err := os.Stat(filepath.Join(filepath.Dir(f), target)); err != nil {
				t.Errorf("%s: a link to %s, which does not exist", f, target)
			}
		}
	}
}
