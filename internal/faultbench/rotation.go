//go:build linux

package faultbench

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// RotationFigures counts what reads of the decision log during rotations missed or repeated.
type RotationFigures struct {
	Rotations, Reads int
	// Log is the decision log after the rotations (its chain included).
	Log LogFigures
	// ReadsMissing: reads that missed records (a gap in a writer's sequence); Missed: how many
	// records those gaps held; ReadsRepeated: reads that gave a record twice.
	ReadsMissing, Missed, ReadsRepeated int
	Failures                            []string
}

func (f RotationFigures) String() string {
	return fmt.Sprintf("%d concurrent reads over %d rotations: %d missed records (%d in all), %d repeated one; decision log: %s",
		f.Reads, f.Rotations, f.ReadsMissing, f.Missed, f.ReadsRepeated, f.Log)
}

var seqMark = regexp.MustCompile(`\b(w\d+|fill)-(\d{6})\b`)

// lastLine is the last line of f, which ends at size, without its newline.
func lastLine(f *os.File, size int64) []byte {
	n := min(size, 64<<10)
	buf := make([]byte, n)
	if _, err := f.ReadAt(buf, size-n); err != nil || n == 0 {
		return nil
	}
	buf = bytes.TrimSuffix(buf, []byte("\n"))
	return buf[bytes.LastIndexByte(buf, '\n')+1:]
}

// chainLine is rec, a JSON object, with the chain fields that follow last, as hookctl writes
// them (docs/decisions/0015-hash-chained-logs.md), and a newline.
func chainLine(rec string, last []byte) string {
	var prev struct {
		Seq int `json:"seq"`
	}
	json.Unmarshal(last, &prev)
	sum := sha256.Sum256(last)
	return fmt.Sprintf(`%s,"seq":%d,"prev_hash":"%s"}`+"\n", rec[:len(rec)-1], prev.Seq+1, hex.EncodeToString(sum[:]))
}

// RotationReads makes the decision log rotate again and again while `hookctl log --json` reads
// it: hook calls append numbered commands (each writer in order), and a filler appends large
// numbered records straight to the log so that it reaches the 10 MiB rotation size in
// moments. Each read must hold every record appended before it began, and none twice.
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
	// done[who] is how many of who's records were appended (their hook exited, or the filler's
	// write returned): a read that begins after must see them all.
	done := map[string]*atomic.Int64{"fill": new(atomic.Int64)}
	for k := range writers {
		done[fmt.Sprintf("w%d", k)] = new(atomic.Int64)
	}
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
				done[fmt.Sprintf("w%d", k)].Store(int64(seq + 1))
			}
		}()
	}
	type read struct {
		before map[string]int64
		marks  []string
	}
	var reads []read
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
				before := map[string]int64{}
				for who, n := range done {
					before[who] = n.Load()
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
				reads = append(reads, read{before, marks})
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
		f, err := os.OpenFile(base, os.O_RDWR|os.O_APPEND, 0)
		if err != nil {
			close(stop)
			wg.Wait()
			return fig, err
		}
		// As a hookctl writer does: under the lane's lock, so that no writer takes the end of
		// a line being written for one a killed writer left; to the file still at the lane's
		// path, and each line chained to the one before it, so that the chain holds.
		syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		var now syscall.Stat_t
		if syscall.Fstat(int(f.Fd()), &now) != nil || syscall.Stat(base, &st) != nil || now.Ino != st.Ino {
			f.Close()
			continue
		}
		ino, size := now.Ino, now.Size
		last := lastLine(f, size)
		for size < maxLog-(32<<10) {
			line := chainLine(fmt.Sprintf(`{"id":"fill-%06d","time":%q,"event":"tool","verdict":"allow","reason":%q}`,
				fill, time.Now().UTC().Format(time.RFC3339Nano), pad), last)
			last = []byte(line[:len(line)-1])
			fill++
			n, err := syscall.Write(int(f.Fd()), []byte(line))
			if err != nil || n != len(line) {
				break
			}
			done["fill"].Store(int64(fill))
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
	var err error
	if fig.Log, err = ScanLog(base); err != nil {
		return fig, err
	}
	// The oldest files a rotation drops are not a read's to see: a writer's records from the
	// first any read saw are the ones it must see.
	first := map[string]int{}
	for _, r := range reads {
		for _, m := range r.marks {
			who, num, _ := strings.Cut(m, "-")
			n, _ := strconv.Atoi(num)
			if f, ok := first[who]; !ok || n < f {
				first[who] = n
			}
		}
	}
	for i, r := range reads {
		fig.Reads++
		seen := map[string]map[int]int{}
		for _, m := range r.marks {
			who, num, _ := strings.Cut(m, "-")
			n, _ := strconv.Atoi(num)
			if seen[who] == nil {
				seen[who] = map[int]int{}
			}
			seen[who][n]++
		}
		missing, repeated := 0, false
		for who, before := range r.before {
			lowest := first[who]
			if nums := seen[who]; len(nums) > 0 {
				lowest = int(^uint(0) >> 1)
				for n := range nums {
					lowest = min(lowest, n)
				}
			}
			gone := 0
			for n := lowest; n < int(before); n++ {
				if seen[who][n] == 0 {
					gone++
				}
			}
			if gone > 0 {
				fig.Failures = append(fig.Failures, fmt.Sprintf("read %d: %d of %s's records %d..%d, appended before it began, missing", i, gone, who, lowest, before-1))
				missing += gone
			}
			for _, c := range seen[who] {
				if c > 1 {
					repeated = true
				}
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
