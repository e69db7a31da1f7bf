package front

import (
	"strings"
	"testing"

	"github.com/hookctl/hookctl/audit"
	"github.com/hookctl/hookctl/hook"
)

// TestAppendPublish: a publish decision is one line of the retrievals' audit, read back by the
// same reader: repository (or "inferred"), pull request, verb, the text's length and hash, the
// decision — and never the text.
func TestAppendPublish(t *testing.T) {
	a := &audit.Audit{Dir: t.TempDir()}
	c := &hook.ToolCall{Session: "s1", Tool: "Bash"}
	sum := strings.Repeat("ab", 32)
	if err := a.AppendPublish(c, &hook.PublishRecord{Repo: "inferred", PR: "7", Verb: "review --comment", BodyBytes: 11,
		BodySHA256: sum, Scrub: "clean", Decision: hook.Ask}); err != nil {
		t.Fatal(err)
	}
	if err := a.AppendPublish(c, &hook.PublishRecord{Decision: hook.Deny, Refused: "gh: `gh pr merge` is not a publish review mode allows"}); err != nil {
		t.Fatal(err)
	}
	es, damaged, err := a.Entries()
	if err != nil || len(damaged) != 0 || len(es) != 2 {
		t.Fatalf("%d entries, %v damaged, %v", len(es), damaged, err)
	}
	e := es[0]
	if e.Kind != audit.KindPublish || e.GitHub != "pr review --comment inferred 7" || e.Bytes != 11 || e.BodySHA256 != sum ||
		e.Outcome != "asked" || e.Scrub != "clean" || e.Session != "s1" {
		t.Errorf("asked: %+v", e)
	}
	if e := es[1]; e.Outcome != "refused" || !strings.Contains(e.Error, "gh pr merge") || e.GitHub != "" {
		t.Errorf("refused: %+v", e)
	}
}
