package execpolicy

import "testing"

// FuzzParse: any file is read or refused with an error naming it, never a crash: a rules file
// the agent cannot write is still one hookctl must not fall over on.
func FuzzParse(f *testing.F) {
	f.Add(rules)
	f.Add("prefix_rule(pattern = [\"a\", [\"b\", 'c']], decision = \"prompt\",)\n# x\n")
	f.Add("prefix_rule(pattern=[\"\\x\"])")
	f.Fuzz(func(t *testing.T, src string) {
		if len(src) > 4096 {
			return
		}
		rs, err := Parse("f.rules", src)
		if err == nil {
			for _, r := range rs {
				if len(r.Pattern) == 0 || r.Decision == None {
					t.Fatalf("a rule without a pattern or decision: %+v", r)
				}
			}
		}
	})
}
