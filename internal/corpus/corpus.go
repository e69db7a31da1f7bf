// Package corpus loads the command corpora in fixtures/corpus (see its README.md): commands
// with the verdict the read-only gate must give them, for the rule tests, and as the seeds of
// the fuzz targets (Seed). It is imported by tests only.
package corpus

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// Row is one command of a corpus.
type Row struct {
	Command string
	File    string // base name of the file, e.g. "git.txt"
	Line    int
	Comment string // the nearest comment above the row
}

func (r Row) String() string { return fmt.Sprintf("%s:%d %q", r.File, r.Line, r.Command) }

// Dir returns fixtures/corpus in the source tree.
func Dir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "fixtures", "corpus")
}

// Load reads every file of one verdict ("allow" or "deny"). A duplicate row is an error.
func Load(verdict string) ([]Row, error) {
	files, err := filepath.Glob(filepath.Join(Dir(), verdict, "*.txt"))
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	if len(files) == 0 {
		return nil, fmt.Errorf("no corpus files in %s", filepath.Join(Dir(), verdict))
	}
	var rows []Row
	seen := map[string]Row{}
	for _, f := range files {
		rs, err := loadFile(f)
		if err != nil {
			return nil, err
		}
		for _, r := range rs {
			if prev, dup := seen[r.Command]; dup {
				return nil, fmt.Errorf("%s duplicates %s", r, prev)
			}
			seen[r.Command] = r
			rows = append(rows, r)
		}
	}
	return rows, nil
}

// Commands returns the commands of every row of the given verdicts, in order: the seed corpus
// of the fuzzers and the mix of the benchmarks.
func Commands(verdicts ...string) ([]string, error) {
	var cmds []string
	for _, v := range verdicts {
		rows, err := Load(v)
		if err != nil {
			return nil, err
		}
		for _, r := range rows {
			cmds = append(cmds, r.Command)
		}
	}
	return cmds, nil
}

// Seed adds the commands of the corpora named by verdicts to a fuzz target's seed corpus.
func Seed(f *testing.F, verdicts ...string) {
	f.Helper()
	cmds, err := Commands(verdicts...)
	if err != nil {
		f.Fatal(err)
	}
	for _, c := range cmds {
		f.Add(c)
	}
}

func loadFile(path string) ([]Row, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var rows []Row
	comment := ""
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		switch {
		case strings.TrimSpace(line) == "":
			continue
		case strings.HasPrefix(line, "#"):
			comment = strings.TrimSpace(strings.TrimPrefix(line, "#"))
			continue
		case strings.HasPrefix(line, "q "):
			s, err := strconv.Unquote(line[2:])
			if err != nil {
				return nil, fmt.Errorf("%s:%d: bad quoted row: %v", path, n, err)
			}
			line = s
		}
		rows = append(rows, Row{Command: line, File: filepath.Base(path), Line: n, Comment: comment})
	}
	return rows, sc.Err()
}
