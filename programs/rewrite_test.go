package programs

import (
	"strings"
	"testing"
)

// TestGitRewrite checks where the rewrite puts the hook's pins: global pins first, driver
// switches right after the subcommand (after its verb, for stash and reflog), the agent's words
// unchanged and in order.
func TestGitRewrite(t *testing.T) {
	pins := strings.Join(gitPinned, " ")
	for in, want := range map[string]string{
		"log --oneline -3":   pins + " log --no-ext-diff --no-textconv --oneline -3",
		"-C sub diff --stat": pins + " -C sub diff --no-ext-diff --no-textconv --stat",
		"stash show -p":      pins + " stash show --no-ext-diff --no-textconv -p",
		"stash list":         pins + " stash list --no-ext-diff --no-textconv",
		"reflog show -5":     pins + " reflog show --no-ext-diff --no-textconv -5",
		"reflog -5":          pins + " reflog --no-ext-diff --no-textconv -5",
		"status --short":     pins + " status --short",
		"grep -n foo":        pins + " grep --no-textconv -n foo",
		"--no-pager log":     pins + " --no-pager log --no-ext-diff --no-textconv",
		"blame -L 1,2 f":     pins + " blame --no-textconv -L 1,2 f",
	} {
		env, out := gitRewrite(strings.Fields(in))
		if strings.Join(env, " ") != "GIT_CONFIG_NOSYSTEM=1 GIT_ALLOW_PROTOCOL= GIT_NO_LAZY_FETCH=1" || strings.Join(out, " ") != want {
			t.Errorf("git %s:\n got  %v %s\n want %s", in, env, strings.Join(out, " "), want)
		}
	}
}

func TestRgRewrite(t *testing.T) {
	env, out := rgRule.RewriteArgs([]string{"-n", "x"})
	if strings.Join(env, " ") != "RIPGREP_CONFIG_PATH=" || strings.Join(out, " ") != "--no-config -n x" {
		t.Errorf("%v %v", env, out)
	}
}
