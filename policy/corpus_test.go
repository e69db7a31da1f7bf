package policy

import (
	"strings"
	"testing"

	"github.com/hookctl/hookctl/config"
	"github.com/hookctl/hookctl/internal/corpus"
)

// corpusConfig is the config the corpora are judged under: the defaults, with a home directory
// known (as LoadConfig finds one), so that `~` and $HOME rows are judged as the hook judges them.
func corpusConfig() *config.Config { return &config.Config{UserHome: "/home/agent"} }

// sandboxOnlyMark marks a comment group of allowed rows that are admitted only for the OS
// sandbox (programs.Program.SandboxOnly): on the policy alone each must be refused for that
// reason and no other.
const sandboxOnlyMark = "sandbox-only"

// launcherOnlyMark marks a comment group of allowed rows admitted only through hookctl's
// launcher, sandboxed or not (programs.Program.LauncherOnly: the environment it passes holds no
// secret): without a launcher each must be refused for that reason and no other.
const launcherOnlyMark = "launcher-only"

// TestCorpusAllowed judges every legitimate read in fixtures/corpus/allow: each must be allowed,
// or, in a group marked sandbox-only, admitted for the sandbox only.
func TestCorpusAllowed(t *testing.T) {
	rows, err := corpus.Load("allow")
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) < 300 {
		t.Errorf("only %d allowed rows; the issue asks for at least 300", len(rows))
	}
	misses, sandboxOnly := 0, 0
	for _, r := range rows {
		if r.File == "github.txt" {
			// Rewritten into a typed retriever read rather than run: TestCorpusGitHubReads.
			if _, d, ok := githubRead(githubPolicy(), r.Command, ""); !ok {
				misses++
				t.Errorf("%s not rewritten into a GitHub read: %s", r, d.Reason)
			}
			continue
		}
		_, ref := judgeText(r.Command, corpusConfig())
		if strings.Contains(r.Comment, launcherOnlyMark) {
			if ref == nil || !ref.launcherOnly {
				misses++
				t.Errorf("%s: its group says launcher-only, the judge says %v", r, ref)
			}
			continue
		}
		switch marked := strings.Contains(r.Comment, sandboxOnlyMark); {
		case marked && ref == nil:
			misses++
			t.Errorf("%s admitted on the policy alone; its group says sandbox-only", r)
		case marked && !ref.sandboxOnly:
			misses++
			t.Errorf("%s refused: %s", r, ref.What)
		case marked:
			sandboxOnly++
		case ref != nil && ref.sandboxOnly:
			misses++
			t.Errorf("%s admitted only for the sandbox (%s); mark its group sandbox-only", r, ref.What)
		case ref != nil:
			misses++
			t.Errorf("%s refused: %s", r, ref.What)
		}
	}
	t.Logf("%d allowed rows (%d of them for the sandbox only), %d refused", len(rows), sandboxOnly, misses)
}

// TestCorpusRefused judges every hostile command in fixtures/corpus/deny: each must be refused.
func TestCorpusRefused(t *testing.T) {
	rows, err := corpus.Load("deny")
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) < 400 {
		t.Errorf("only %d hostile rows; the issue asks for at least 400", len(rows))
	}
	for _, r := range rows {
		if cmd, ref := judgeText(r.Command, corpusConfig()); ref == nil {
			t.Errorf("%s ALLOWED (%s) as %s", r, r.Comment, cmd)
		}
	}
	t.Logf("%d hostile rows", len(rows))
}

// TestCorpusRowsAreNotTrivial keeps both corpora honest: no row is empty.
func TestCorpusRowsAreNotTrivial(t *testing.T) {
	for _, v := range []string{"allow", "deny"} {
		rows, err := corpus.Load(v)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rows {
			if strings.TrimSpace(r.Command) == "" {
				t.Errorf("%s: empty row", r)
			}
		}
	}
}
