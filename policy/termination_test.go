package policy

import (
	"strings"
	"testing"
	"time"

	"github.com/hookctl/hookctl/config"
	"github.com/hookctl/hookctl/lexer"
)

// worstCases are inputs at the lexer's caps built to make each stage of the judge do the most
// work it can: the lexer, the shape parser, both runs of the second parser, every program rule
// and the printer.
func worstCases() map[string]string {
	fill := func(unit string) string {
		n := lexer.MaxLen / len(unit)
		return strings.Repeat(unit, n)
	}
	words := lexer.MaxTokens - 3
	item := strings.Repeat("x", (lexer.MaxLen-40)/words-1)
	loopItems := make([]string, lexer.MaxLoopItems)
	for i := range loopItems {
		loopItems[i] = "f" + strings.Repeat("y", 3) + string(rune('a'+i%26)) + string(rune('a'+i/26))
	}
	body := strings.Repeat(`git log --oneline -- "$f"; `, lexer.MaxLoopWork/lexer.MaxLoopItems)
	return map[string]string{
		"$( repeated":       fill("$("),
		"quote runs":        fill(`'"`),
		"backslash runs":    fill(`\`),
		"words at the cap":  "echo" + strings.Repeat(" "+item, words),
		"quoted words":      "echo" + strings.Repeat(` 'a b'`, words),
		"pipes at the cap":  "cat f" + strings.Repeat(" | head -n 1", (lexer.MaxTokens-3)/4),
		"git args at cap":   "git log" + strings.Repeat(" -p", lexer.MaxTokens-3),
		"loop at work cap":  "for f in " + strings.Join(loopItems, " ") + "; do " + body + "done",
		"sed script at cap": "sed -n '" + strings.Repeat("/a/{p;q};", (lexer.MaxLen-20)/9) + "' f",
		"find at cap":       "find ." + strings.Repeat(" -name x -o", (lexer.MaxTokens-3)/3),
		"one long word":     "echo " + strings.Repeat("a", lexer.MaxLen-5),
		"over the cap":      strings.Repeat("a", lexer.MaxLen+1),
		"too many tokens":   "echo" + strings.Repeat(" a", lexer.MaxTokens+10),
	}
}

// TestJudgeTerminatesQuickly runs the whole judge on the worst cases. Each must be decided in
// under 5 ms. The best of several runs counts, and the runs go on (for up to two seconds) while
// they are over the bound: on a 2-core CI machine the other packages' tests can slow one run by
// 20x, and this test measures the algorithm, not the neighbours.
func TestJudgeTerminatesQuickly(t *testing.T) {
	cfg := &config.Config{}
	for name, in := range worstCases() {
		best := time.Hour
		deadline := time.Now().Add(2 * time.Second)
		for i := 0; i < 5 || (best > 5*time.Millisecond && time.Now().Before(deadline)); i++ {
			start := time.Now()
			judgeText(in, cfg)
			if d := time.Since(start); d < best {
				best = d
			}
		}
		if best > 5*time.Millisecond {
			t.Errorf("%s (%d bytes): %v, want under 5ms", name, len(in), best)
		}
		t.Logf("%-18s %6d bytes %v", name, len(in), best)
	}
}
