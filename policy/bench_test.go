package policy

import (
	"sort"
	"testing"
	"time"

	"github.com/hookctl/hookctl/config"
	"github.com/hookctl/hookctl/hook"
	"github.com/hookctl/hookctl/internal/corpus"
	"github.com/hookctl/hookctl/internal/shellglob"
)

// BenchmarkJudge judges a realistic mix: every legitimate read in the allow corpus and every
// hostile command in the deny corpus, cycling. Report ns/op as the mean cost per command.
func BenchmarkJudge(b *testing.B) {
	allow, err := corpus.Load("allow")
	if err != nil {
		b.Fatal(err)
	}
	deny, err := corpus.Load("deny")
	if err != nil {
		b.Fatal(err)
	}
	var mix []string
	for _, r := range allow {
		mix = append(mix, r.Command)
	}
	for _, r := range deny {
		mix = append(mix, r.Command)
	}
	cfg := &config.Config{}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		judgeText(mix[i%len(mix)], cfg)
	}
}

// BenchmarkJudgeAllowed judges only the allowed reads, the common case, where every stage runs
// (both parsers, every program rule, the rewrite).
func BenchmarkJudgeAllowed(b *testing.B) {
	allow, err := corpus.Load("allow")
	if err != nil {
		b.Fatal(err)
	}
	cfg := &config.Config{}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		judgeText(allow[i%len(allow)].Command, cfg)
	}
}

// BenchmarkJudgeMedian reports the median over the mix of each command's judging time (the
// issue's figure: at most 20 µs a command), and the 90th percentile, as custom metrics.
func BenchmarkJudgeMedian(b *testing.B) {
	mix, err := corpus.Commands("allow", "deny")
	if err != nil {
		b.Fatal(err)
	}
	cfg := &config.Config{}
	reportPerCommand(b, mix, 20, func(c string) func() { return func() { judgeText(c, cfg) } })
}

// reportPerCommand times the judgement of each command of mix, reps times a round (what judge
// returns for it, made outside the timing), and reports the median and the 90th percentile of
// the time per command as custom metrics.
func reportPerCommand(b *testing.B, mix []string, reps int, judge func(string) func()) {
	per := make([]float64, len(mix))
	b.ResetTimer()
	for n := 0; n < b.N; n++ {
		for i, c := range mix {
			once := judge(c)
			start := time.Now()
			for j := 0; j < reps; j++ {
				once()
			}
			per[i] = float64(time.Since(start).Nanoseconds()) / float64(reps)
		}
	}
	b.StopTimer()
	sort.Float64s(per)
	b.ReportMetric(per[len(per)/2]/1000, "median-µs/cmd")
	b.ReportMetric(per[len(per)*9/10]/1000, "p90-µs/cmd")
	b.ReportMetric(0, "ns/op")
}

// BenchmarkDecideMedian is the judgement the hook makes of a Bash call, every judge included
// (the network router, then the read-only judge or the edit-mode guard), over the read-only mix
// in a read-only session and the edit-mode corpus in an edit session: the median and 90th
// percentile per command.
func BenchmarkDecideMedian(b *testing.B) {
	for _, m := range []struct {
		name    string
		mode    hook.Mode
		corpora []string
	}{
		{"read-only", hook.ModeReadOnly, []string{"allow", "deny"}},
		{"edit", hook.ModeEdit, []string{"edit-allow", "edit-deny"}},
	} {
		b.Run(m.name, func(b *testing.B) {
			mix, err := corpus.Commands(m.corpora...)
			if err != nil {
				b.Fatal(err)
			}
			p := &Policy{World: shellglob.World{}, Client: testClient, Config: &config.Config{}, Binary: "/opt/hookctl",
				Protection: Protection{Home: "/home/u", Paths: ProtectedPaths(testClient, "/home/u/.config/hookctl", "/home/u", "/opt/hookctl", "/home/u/proj")}}
			st := SessionState{Mode: m.mode}
			reportPerCommand(b, mix, 10, func(c string) func() {
				call := &hook.ToolCall{Tool: "Bash", Kind: hook.KindShell, Cwd: "/home/u/proj", Command: c}
				return func() { p.Decide(call, st) }
			})
		})
	}
}
