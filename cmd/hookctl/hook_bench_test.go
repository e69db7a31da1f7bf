package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkHookWork is the work of one hook call inside the process (payload read, decode,
// config, state, policy, encode), without the process start that cmd/latency measures.
func BenchmarkHookWork(b *testing.B) {
	var payloads [][]byte
	for _, f := range []string{"explore-bash-git-log.json", "explore-bash-sed-i.json", "explore-bash-ls.json",
		"explore-read.json", "explore-write-project-agent.json", "main-bash-ls.json"} {
		p, err := os.ReadFile(filepath.Join("..", "..", "fixtures", "claude", f))
		if err != nil {
			b.Fatal(err)
		}
		payloads = append(payloads, p)
	}
	b.Setenv("HOOKCTL_HOME", b.TempDir())
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s := &streams{in: bytes.NewReader(payloads[i%len(payloads)]), out: io.Discard, err: io.Discard}
		runHook(s, false, agents[0], false)
	}
}
