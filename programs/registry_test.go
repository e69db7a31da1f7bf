package programs

import (
	"strings"
	"testing"
)

// TestReferenceListsGitAndFindRules is a sanity check of the generated allowlist reference
// beyond TestReference (which checks a section per program): every git subcommand has a
// subsection, and every refused git option and find primary is listed with its reason.
func TestReferenceListsGitAndFindRules(t *testing.T) {
	ref := reference()
	for _, s := range gitSubcommands {
		if !strings.Contains(ref, "\n### git "+s.name+"\n") {
			t.Errorf("Reference has no section for git %s", s.name)
		}
	}
	for _, d := range gitDangers {
		if !strings.Contains(ref, "`"+d.Name+"` "+d.Why) {
			t.Errorf("Reference does not list the refused git option %s", d.Name)
		}
	}
	for _, f := range findRefused {
		if !strings.Contains(ref, "`"+f.Name+"` (") {
			t.Errorf("Reference does not list the refused find primary %s", f.Name)
		}
	}
	if n := len(Names()); n != len(all) {
		t.Errorf("Names lists %d programs, the allowlist has %d", n, len(all))
	}
}
