package jsonl

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/hookctl/hookctl/internal/faultbench"
)

// TestFullDisk: on a tmpfs filled to the last byte, an append that finds no room, or room for
// part of its line only, fails and leaves nothing; once there is room again, appends go on and
// every line is whole. (Each full-disk round left a torn line in the decision log before.)
func TestFullDisk(t *testing.T) {
	dir := faultbench.TmpfsFor(t, 128<<10)
	l := &Log{Dir: filepath.Join(dir, "log"), Name: "x.jsonl", Chain: true}
	for round := range 5 {
		l.Append(rec(fmt.Sprintf("r%d-first", round), 100))
		filler, err := faultbench.Fill(dir)
		if err != nil {
			t.Fatal(err)
		}
		failed := 0
		for i := range 20 {
			// Lengths that cross the last page's end: part of the line fits, the rest does not.
			if l.Append(rec(fmt.Sprintf("r%d-%d", round, i), 300+i*397+round*61)) != nil {
				failed++
			}
		}
		if failed == 0 {
			t.Fatalf("round %d: every append found room: the disk was not full", round)
		}
		os.Remove(filler)
		if err := l.Append(rec(fmt.Sprintf("r%d-after", round), 10)); err != nil {
			t.Fatalf("round %d: with room again: %v", round, err)
		}
	}
	records, blank, torn, tail := raw(t, l.LanePath(0))
	if blank+torn+tail != 0 || records < 10 {
		t.Errorf("%d records, %d blank, %d torn, %d unterminated", records, blank, torn, tail)
	}
	// An append the disk refused left no link: the chain holds across every round.
	mustVerify(t, l, records)
}
