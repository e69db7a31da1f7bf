package lexer

import (
	"strings"
	"testing"

	"github.com/hookctl/hookctl/internal/corpus"
)

func addSeeds(f *testing.F) {
	corpus.Seed(f, "allow", "deny", "realistic")
	for _, r := range lexRows {
		f.Add(r.in)
	}
	for _, in := range adversarial() {
		f.Add(in[:min(len(in), 512)])
	}
}

// FuzzLex: the lexer never panics; what it accepts is tokens in order whose words are exactly
// the source text at their positions, and whose bare words are made of bare characters.
func FuzzLex(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, src string) {
		toks, err := Lex(src)
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("error of type %T", err)
			}
			return
		}
		last := -1
		for _, tk := range toks {
			if tk.Pos < last {
				t.Fatalf("token at %d after %d", tk.Pos, last)
			}
			last = tk.Pos
			if tk.Kind != TokWord {
				continue
			}
			w := tk.Word
			if !strings.HasPrefix(src[w.Pos:], w.Raw) {
				t.Fatalf("word %q is not the source at %d", w.Raw, w.Pos)
			}
			if w.IsBare() && w.Raw != w.Value {
				t.Fatalf("bare word %q has value %q", w.Raw, w.Value)
			}
			if Quote(w.Value) == "" {
				t.Fatalf("no quoting for %q", w.Value)
			}
		}
		if toks[len(toks)-1].Kind != TokEOF {
			t.Fatal("no EOF token")
		}
	})
}

// FuzzParse: whatever parses prints to a canonical form that parses back to the same shape,
// that the second parser agrees with whenever it agreed with the original, and that is a fixed
// point of printing.
func FuzzParse(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, src string) {
		sc, err := Parse(src)
		if err != nil {
			return
		}
		printed := Print(sc, nil)
		again, err := Parse(printed)
		if err != nil {
			t.Fatalf("%q printed as %q, which does not parse: %v", src, printed, err)
		}
		if Shape(again) != Shape(sc) {
			t.Fatalf("%q printed as %q changes shape:\n%s\n%s", src, printed, Shape(sc), Shape(again))
		}
		if Print(again, nil) != printed {
			t.Fatalf("printing is not a fixed point: %q then %q", printed, Print(again, nil))
		}
		if CrossCheck(src, sc) == nil {
			if err := CrossCheck(printed, again); err != nil {
				t.Fatalf("%q agreed with the second parser but its canonical form %q does not: %v", src, printed, err)
			}
		}
	})
}
