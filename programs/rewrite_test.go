package programs

import (
	"strings"
	"testing"

	"github.com/hookctl/hookctl/internal/secrets"
)

// TestGitRewrite checks where the rewrite puts the hook's pins: global pins first, driver
// switches right after the subcommand (after its verb, for stash and reflog), the agent's words
// unchanged and in order.
func TestGitRewrite(t *testing.T) {
	pins := strings.Join(gitPinned, " ")
	for in, want := range map[string]string{
		"log --oneline -3":   pins + " log --no-ext-diff --no-textconv --oneline -3",
		"-C sub diff --stat": pins + " -C sub diff --no-ext-diff --no-textconv --stat -- " + strings.Join(gitExclusions(), " "),
		// An operand git might read as a path or a revision: no `--` is added after it.
		"diff HEAD~1 --stat": pins + " diff --no-ext-diff --no-textconv HEAD~1 --stat",
		"grep -n foo src":    pins + " grep --no-textconv -n foo src",
		"grep -n foo -- src": pins + " grep --no-textconv -n foo -- src " + strings.Join(gitExclusions(), " "),
		"stash show -p":      pins + " stash show --no-ext-diff --no-textconv -p",
		"stash list":         pins + " stash list --no-ext-diff --no-textconv",
		"reflog show -5":     pins + " reflog show --no-ext-diff --no-textconv -5",
		"reflog -5":          pins + " reflog --no-ext-diff --no-textconv -5",
		"status --short":     pins + " status --short",
		"grep -n foo":        pins + " grep --no-textconv -n foo -- " + strings.Join(gitExclusions(), " "),
		"--no-pager log":     pins + " --no-pager log --no-ext-diff --no-textconv",
		"blame -L 1,2 f":     pins + " blame --no-textconv -L 1,2 f",
	} {
		env, out := gitRewrite(strings.Fields(in))
		if strings.Join(env, " ") != "GIT_CONFIG_NOSYSTEM=1 GIT_ALLOW_PROTOCOL= GIT_NO_LAZY_FETCH=1" || strings.Join(out, " ") != want {
			t.Errorf("git %s:\n got  %v %s\n want %s", in, env, strings.Join(out, " "), want)
		}
	}
}

// TestRgRewrite: rg's config file is off, and the secret names are excluded by one --iglob that
// comes after every option of the call (rg applies --iglob after -g and lets the last matching
// one win: issue 23, `rg --iglob .env`), before a `--`.
func TestRgRewrite(t *testing.T) {
	ex := "--iglob " + ExclusionGlob()
	if !strings.Contains(ex, "id_[!.][!.]") || !strings.Contains(ex, ".codex") {
		t.Errorf("the exclusion glob lacks key names or client directories: %s", ex)
	}
	for in, want := range map[string]string{
		"-n x":              "--no-config -n x " + ex,
		"-g *.env -n x src": "--no-config -g *.env -n x src " + ex,
		"-n -- -x src":      "--no-config -n " + ex + " -- -x src",
		"--files":           "--no-config --files " + ex,
	} {
		env, out := rgRule.RewriteArgs(strings.Fields(in))
		if strings.Join(env, " ") != "RIPGREP_CONFIG_PATH=" || strings.Join(out, " ") != want {
			t.Errorf("rg %s:\n got  %v %s\n want %s", in, env, strings.Join(out, " "), want)
		}
	}
}

// TestGrepRecursiveExcludesSecrets: a recursive grep gets an --exclude per secret name and an
// --exclude-dir per credential directory right before its first operand (before a `--`), and
// again after an --include or --exclude that follows the first operand; a grep that does not
// recurse is unchanged.
func TestGrepRecursiveExcludesSecrets(t *testing.T) {
	var ex []string
	for _, g := range secrets.ExcludeGlobs {
		ex = append(ex, "--exclude="+g)
	}
	for _, d := range secrets.ExcludeDirs {
		ex = append(ex, "--exclude-dir="+d)
	}
	e := strings.Join(ex, " ")
	for in, want := range map[string]string{
		"-rn TODO .":                  "-rn " + e + " TODO .",
		"-r --include=*.go -n TODO .": "-r --include=*.go -n " + e + " TODO .",
		"-R -e TODO":                  "-R -e TODO " + e,
		"-d recurse -A 2 x src":       "-d recurse -A 2 " + e + " x src",
		"-r -- -x src":                "-r " + e + " -- -x src",
		"-n TODO f":                   "-n TODO f",
		"-rn TODO --include=*.go .":   "-rn " + e + " TODO --include=*.go " + e + " .",
		"-rn TODO --include *.go .":   "-rn " + e + " TODO --include *.go " + e + " .",
		"-rn TODO . --exclude=x -- y": "-rn " + e + " TODO . --exclude=x " + e + " -- y",
	} {
		_, out := grepRule.RewriteArgs(strings.Fields(in))
		if got := strings.Join(out, " "); got != want {
			t.Errorf("grep %s:\n got  %s\n want %s", in, got, want)
		}
	}
}

// TestDiffRecursiveExcludesSecrets: a recursive diff gets an --exclude per secret name and
// credential directory before its first operand; a diff of two files is unchanged.
func TestDiffRecursiveExcludesSecrets(t *testing.T) {
	var ex []string
	for _, g := range append(append([]string(nil), secrets.ExcludeGlobs...), secrets.ExcludeDirs...) {
		ex = append(ex, "--exclude="+g)
	}
	e := strings.Join(ex, " ")
	for in, want := range map[string]string{
		"-ru a b":      "-ru " + e + " a b",
		"a b -r":       e + " a b -r",
		"-r -- -a b":   "-r " + e + " -- -a b",
		"-u a.go b.go": "-u a.go b.go",
		"-U 3 a b":     "-U 3 a b",
	} {
		_, out := diffRule.RewriteArgs(strings.Fields(in))
		if got := strings.Join(out, " "); got != want {
			t.Errorf("diff %s:\n got  %s\n want %s", in, got, want)
		}
	}
}
