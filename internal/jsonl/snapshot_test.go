package jsonl

import (
	"fmt"
	"slices"
	"testing"
)

// TestSnapshotResumes: a reader that resumes at a record's End sees the records after it and no
// other, whatever rotations happened between (a file keeps its inode when rotation renames it),
// and ErrStop ends a read where the reader says.
func TestSnapshotResumes(t *testing.T) {
	l := &Log{Dir: t.TempDir(), Name: "r.jsonl", MaxBytes: 200, Keep: 3}
	for i := range 5 {
		if err := l.Append(fmt.Appendf(nil, `{"n":%d,"pad":"0123456789012345678901234567890"}`, i)); err != nil {
			t.Fatal(err)
		}
	}
	s, err := l.Open()
	if err != nil {
		t.Fatal(err)
	}
	var ino uint64
	var end int64
	var got []string
	s.ReadFile(len(s.Files)-1, 0, func(r Record) error {
		got = append(got, string(r.Data[:8]))
		ino, end = s.Files[len(s.Files)-1].Ino, r.End
		return ErrStop
	})
	s.Close()
	if len(got) != 1 {
		t.Fatalf("ErrStop did not stop: %q", got)
	}
	for i := 5; i < 12; i++ { // rotates the file read: it moves to .1, .2
		l.Append(fmt.Appendf(nil, `{"n":%d,"pad":"0123456789012345678901234567890"}`, i))
	}
	s, _ = l.Open()
	defer s.Close()
	var after []string
	found := false
	for i, f := range s.Files {
		switch {
		case f.Ino == ino:
			found = true
			s.ReadFile(i, end, func(r Record) error { after = append(after, string(r.Data[:8])); return nil })
		case found:
			s.ReadFile(i, 0, func(r Record) error { after = append(after, string(r.Data[:8])); return nil })
		}
	}
	var want []string
	for i := 5; i < 12; i++ {
		want = append(want, fmt.Sprintf(`{"n":%d,"pad"`, i)[:8])
	}
	if !found || !slices.Equal(after, want) {
		t.Errorf("resumed after %s in inode %d (found %v): %q", got[0], ino, found, after)
	}
	t.Logf("first read %q; after rotation, resumed: %q", got, after)
}
