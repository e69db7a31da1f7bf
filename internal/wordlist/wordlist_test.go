package wordlist

import (
	"strings"
	"testing"
)

func TestHas(t *testing.T) {
	const list = "-n -nv --max-count -e"
	for w, want := range map[string]bool{
		"-n": true, "-nv": true, "--max-count": true, "-e": true,
		"": false, "-": false, "n": false, "-nv ": false, "--max": false, "count": false, "-e -n": false, "x": false,
		"-n -nv": false, // neighbours, but one argument: no program takes it as either
	} {
		if got := Has(list, w); got != want {
			t.Errorf("Has(%q) = %v, want %v", w, got, want)
		}
	}
	if Has("", "a") || !Has("a", "a") || !Has("b a", "a") || Has("ab", "a") || Has("ba", "a") {
		t.Error("edge cases")
	}
}

func TestHasAllocatesNothing(t *testing.T) {
	list := strings.Repeat("--word ", 50) + "--last"
	if n := testing.AllocsPerRun(100, func() { Has(list, "--last") }); n != 0 {
		t.Errorf("%v allocations", n)
	}
}
