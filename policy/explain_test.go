package policy

import (
	"strings"
	"testing"

	"github.com/hookctl/hookctl/internal/corpus"
	"github.com/hookctl/hookctl/internal/shellglob"
	"github.com/hookctl/hookctl/lexer"
)

// TestExplainAgreesWithTheJudge explains every row of the corpora and requires the verdict the
// explanation implies to be judgeReadOnly's: it refuses at a stage exactly when the judge
// refuses (the judge also refuses what needs the sandbox it does not have), with the judge's
// reason, and when it admits, its rewrite is the judge's.
func TestExplainAgreesWithTheJudge(t *testing.T) {
	var rows []corpus.Row
	for _, set := range []string{"allow", "deny", "realistic"} {
		r, err := corpus.Load(set)
		if err != nil {
			t.Fatal(err)
		}
		rows = append(rows, r...)
	}
	cfg := corpusConfig()
	for _, r := range rows {
		steps := ExplainReadOnly(lexer.NewCommandLine(r.Command), cfg, shellglob.World{})
		if len(steps) == 0 {
			t.Fatalf("%s: no steps", r)
		}
		last := steps[len(steps)-1]
		for _, st := range steps[:len(steps)-1] {
			if !st.OK {
				t.Fatalf("%s: stage %s refused, but the explanation went on", r, st.Stage)
			}
		}
		got, ref := judgeText(r.Command, cfg)
		if !last.OK {
			if ref == nil {
				t.Errorf("%s: explained as refused at %s (%s), but the judge admits it", r, last.Stage, last.Detail)
			} else if !strings.Contains(last.Detail, ref.What) {
				t.Errorf("%s: explained as %q, the judge says %q", r, last.Detail, ref.What)
			}
			continue
		}
		if last.Stage != "sandbox" {
			t.Fatalf("%s: the explanation ended at %s", r, last.Stage)
		}
		rewrite := steps[len(steps)-2]
		required := strings.HasPrefix(last.Detail, "required")
		switch {
		case ref != nil && !required:
			t.Errorf("%s: explained as admitted, but the judge refuses: %s", r, ref.What)
		case ref == nil && required:
			t.Errorf("%s: explained as needing the sandbox, but the judge admits it without", r)
		case ref == nil && rewrite.Detail != got:
			t.Errorf("%s: explained rewrite %q, the judge's %q", r, rewrite.Detail, got)
		}
	}
}
