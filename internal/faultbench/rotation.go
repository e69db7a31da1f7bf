package faultbench

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// RotationFigures counts what reads of the decision log during rotations missed or repeated.
type RotationFigures struct {
	Rotations, Reads int
	// ReadsMissing: reads that missed records (a gap in a writer's sequence); Missed: how many
	// records those gaps held; ReadsRepeated: reads that gave a record twice.
	ReadsMissing, Missed, ReadsRepeated int
	Failures                            []string
}

func (f RotationFigures) String() string {
	return fmt.Sprintf("%d concurrent reads over %d rotations: %d missed records (%d in all), %d repeated one",
		f.Reads, f.Rotations, f.ReadsMissing, f.Missed, f.ReadsRepeated)
}

var seqMark = regexp.MustCompile(`\b(w\d+|fill)-(\d{6})\b`)

// RotationReads makes the decision log rotate again and again while `hookctl log --json` reads
// it: hook calls append numbered commands (each writer in order), and a filler appends large
// numbered records straight to the log so that it reaches the 10 MiB rotation size in
// moments. Each read must hold every writer's records without a gap and none twice.
func RotationReads(w *World, writers, readers, rotations int) (RotationFigures, error) {
	var fig RotationFigures
	const maxLog = 10 << 20
	base := DecisionLog(w.Home)
	const session = "r07a7e00-rotation"
	if err := w.Record(session, "/", "read-only"); err != nil {
		return fig, err
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var mu sync.Mutex
	for k := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for seq := 0; ; seq++ {
				select {
				case <-stop:
					return
				default:
				}
				w.Hook(Bash(session, "/", fmt.Sprintf("echo w%d-%06d", k, seq)))
			}
		}()
	}
	var reads [][]string
	for range readers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				r := w.Run("", time.Minute, "log", "--json")
				var marks []string
				sc := bufio.NewScanner(strings.NewReader(r.Out))
				sc.Buffer(make([]byte, 1<<20), 1<<20)
				for sc.Scan() {
					var e map[string]any
					if json.Unmarshal(sc.Bytes(), &e) != nil {
						continue
					}
					text := fmt.Sprint(e["command"]) + " " + fmt.Sprint(e["id"])
					if m := seqMark.FindStringSubmatch(text); m != nil {
						marks = append(marks, m[1]+"-"+m[2])
					}
				}
				mu.Lock()
				reads = append(reads, marks)
				mu.Unlock()
			}
		}()
	}
	// The filler: large records straight into the log until it is just under the rotation
	// size, then wait for a hook's append to rotate it.
	fill := 0
	pad := strings.Repeat("x", 24<<10)
	for fig.Rotations < rotations {
		var st syscall.Stat_t
		if err := syscall.Stat(base, &st); err != nil {
			time.Sleep(10 * time.Millisecond)
			continue
		}
		ino := st.Ino
		f, err := os.OpenFile(base, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			close(stop)
			wg.Wait()
			return fig, err
		}
		size := st.Size
		for size < maxLog-(32<<10) {
			line := fmt.Sprintf(`{"id":"fill-%06d","time":%q,"event":"tool","verdict":"allow","reason":%q}`+"\n",
				fill, time.Now().UTC().Format(time.RFC3339Nano), pad)
			fill++
			n, err := syscall.Write(int(f.Fd()), []byte(line))
			if err != nil || n != len(line) {
				break
			}
			size += int64(n)
		}
		f.Close()
		for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
			if syscall.Stat(base, &st) == nil && st.Ino != ino {
				fig.Rotations++
				break
			}
		}
		time.Sleep(300 * time.Millisecond) // reads across the fresh rotation
	}
	close(stop)
	wg.Wait()
	for i, marks := range reads {
		fig.Reads++
		seen := map[string]map[int]int{}
		for _, m := range marks {
			who, num, _ := strings.Cut(m, "-")
			n, _ := strconv.Atoi(num)
			if seen[who] == nil {
				seen[who] = map[int]int{}
			}
			seen[who][n]++
		}
		missing, repeated := 0, false
		for who, nums := range seen {
			var all []int
			for n, c := range nums {
				all = append(all, n)
				if c > 1 {
					repeated = true
				}
			}
			sort.Ints(all)
			for j := 1; j < len(all); j++ {
				missing += all[j] - all[j-1] - 1
			}
			if gap := len(all) > 0 && all[len(all)-1]-all[0]+1 != len(all); gap {
				fig.Failures = append(fig.Failures, fmt.Sprintf("read %d: %s's records %d..%d, %d of them missing", i, who, all[0], all[len(all)-1], all[len(all)-1]-all[0]+1-len(all)))
			}
		}
		if missing > 0 {
			fig.ReadsMissing++
			fig.Missed += missing
		}
		if repeated {
			fig.ReadsRepeated++
		}
	}
	return fig, nil
}
