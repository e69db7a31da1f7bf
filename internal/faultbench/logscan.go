//go:build linux

package faultbench

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// LogFigures is what a raw read of a JSONL log found: every line ends in a newline, and is one
// record, or blank (empty or only white space), or torn (anything else: a record cut short,
// two glued together). Tail is a last line without its newline, other than white space.
type LogFigures struct {
	Files, Lines, Records, Blank, Torn, Tail int
	// Links are records whose prev_hash is the SHA-256 of the line before them in their lane
	// and whose seq follows its; Broken are records with chain fields that do not (the hash
	// chain, checked here without hookctl's reader).
	Links, Broken int
	// IDs are the records' "id" fields, in file order, oldest file first.
	IDs []string
	// Recs are the records, decoded, in the same order.
	Recs []map[string]any
}

func (f LogFigures) String() string {
	return fmt.Sprintf("%d records in %d lines of %d files: %d blank, %d torn, %d unterminated tail; %d chain links, %d broken",
		f.Records, f.Lines, f.Files, f.Blank, f.Torn, f.Tail, f.Links, f.Broken)
}

// ScanLog reads base and its rotations (base.N … base.1, base) raw, and the same of every
// lane beside it (decisions.lane1.jsonl …), if any. It does not use hookctl's reader: it is the
// check of what hookctl wrote.
func ScanLog(base string) (LogFigures, error) {
	lanes, _ := filepath.Glob(strings.TrimSuffix(base, ".jsonl") + ".lane*.jsonl")
	var all LogFigures
	for _, b := range append([]string{base}, lanes...) {
		f, err := scanLane(b)
		if err != nil {
			return all, err
		}
		all.Files += f.Files
		all.Lines += f.Lines
		all.Records += f.Records
		all.Blank += f.Blank
		all.Torn += f.Torn
		all.Tail += f.Tail
		all.Links += f.Links
		all.Broken += f.Broken
		all.IDs = append(all.IDs, f.IDs...)
		all.Recs = append(all.Recs, f.Recs...)
	}
	return all, nil
}

func scanLane(base string) (LogFigures, error) {
	var f LogFigures
	paths, _ := filepath.Glob(base + ".*")
	var rotated []string
	for _, p := range paths {
		var n int
		if _, err := fmt.Sscanf(p[len(base):], ".%d", &n); err == nil && fmt.Sprintf("%s.%d", base, n) == p {
			rotated = append(rotated, p)
		}
	}
	sort.Slice(rotated, func(i, j int) bool {
		return len(rotated[i]) > len(rotated[j]) || len(rotated[i]) == len(rotated[j]) && rotated[i] > rotated[j]
	})
	var prev []byte // the lane's line before, across its files
	var prevSeq float64
	for _, p := range append(rotated, base) {
		fi, err := os.Lstat(p)
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return f, err
		}
		f.Files++
		for len(b) > 0 {
			i := bytes.IndexByte(b, '\n')
			if i < 0 {
				if len(bytes.TrimSpace(b)) > 0 {
					f.Tail++
				}
				break
			}
			line := b[:i]
			b = b[i+1:]
			f.Lines++
			var rec map[string]any
			switch {
			case len(bytes.TrimSpace(line)) == 0:
				f.Blank++
			case json.Unmarshal(line, &rec) != nil || rec == nil:
				f.Torn++
			default:
				f.Records++
				id, _ := rec["id"].(string)
				f.IDs = append(f.IDs, id)
				f.Recs = append(f.Recs, rec)
				seq, _ := rec["seq"].(float64)
				hash, chained := rec["prev_hash"].(string)
				sum := sha256.Sum256(prev)
				switch {
				case !chained || prev == nil:
				case hash == hex.EncodeToString(sum[:]) && seq == prevSeq+1:
					f.Links++
				default:
					f.Broken++
				}
				prevSeq = seq
			}
			if len(bytes.TrimSpace(line)) > 0 {
				prev = line
			}
		}
	}
	return f, nil
}

// DecisionLog is the decision log's path in home.
func DecisionLog(home string) string { return filepath.Join(home, "log", "decisions.jsonl") }

// Strays counts the temporary files (".…tmp") anywhere under dir.
func Strays(dir string) int {
	n := 0
	filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && len(d.Name()) > 4 && d.Name()[0] == '.' && filepath.Ext(d.Name()) == ".tmp" {
			n++
		}
		return nil
	})
	return n
}
