//go:build linux

package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/hookctl/hookctl/audit"
	"github.com/hookctl/hookctl/internal/fakegithub"
)

// researchPages is a documentation site whose answer spans two pages the caller did not name;
// each page carries a canary that must reach the distiller and nothing the agent reads.
var researchPages = map[string]string{
	"/docs":            `<h1>Widget docs</h1><p>Widget 2 is out. CANARY-R0</p><ul><li><a href="/docs/changes-v2">What changed</a></li><li><a href="/docs/migrate">Migrating</a></li></ul>`,
	"/docs/changes-v2": `<h1>Changes in v2</h1><p>FACT-CHANGE: Open takes a context. CANARY-R1</p>`,
	"/docs/migrate":    `<h1>Migrating</h1><p>FACT-MIGRATE: run widget fix. CANARY-R2</p>`,
}

func serveSite(t *testing.T, pages map[string]string) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, ok := pages[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, "<html><body>"+body+"</body></html>")
	}))
	t.Cleanup(srv.Close)
	return srv
}

// newResearcher is an Anthropic Messages API whose model researches: it asks for what its rule
// names the first time it sees the rule's trigger, and answers once every fact of the answer has
// arrived. It records every request.
func newResearcher(t *testing.T, rules ...researchRule) *fakeDistiller {
	return newFakeAPI(t, func(body string) map[string]any {
		var content []any
		for _, rule := range rules {
			if !strings.Contains(body, rule.trigger) {
				continue
			}
			all := true
			for _, f := range rule.facts {
				all = all && strings.Contains(body, f)
			}
			switch {
			case all:
				content = []any{map[string]any{"type": "text", "text": rule.answer}}
			case !strings.Contains(body, "tool_result"):
				for i, c := range rule.calls {
					content = append(content, map[string]any{"type": "tool_use", "id": fmt.Sprintf("tu_%d", i), "name": c["name"], "input": c["input"]})
				}
			}
			break
		}
		if content == nil {
			content = []any{map[string]any{"type": "text", "text": "The content does not say."}}
		}
		return map[string]any{"id": "m", "type": "message", "role": "assistant", "content": content, "stop_reason": "end_turn"}
	})
}

type researchRule struct {
	trigger string           // text in the first request that starts the rule
	calls   []map[string]any // tool_use blocks: name and input
	facts   []string         // what must have arrived to answer
	answer  string
}

func fetchInput(u string) map[string]any {
	return map[string]any{"name": "fetch", "input": map[string]any{"url": u}}
}

// TestRetrieveResearchAudit: `hookctl retrieve fetch` of a page whose need spans two others is
// answered from the two pages the distiller chose, with both cited; no page's text reaches the
// output; the audit records every URL with the step that asked for it, and the budget spent.
func TestRetrieveResearchAudit(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildPair(t, testSeams...)
	site := serveSite(t, researchPages)
	d := newResearcher(t, researchRule{trigger: "Widget 2 is out",
		calls: []map[string]any{fetchInput(site.URL + "/docs/changes-v2"), fetchInput(site.URL + "/docs/migrate")},
		facts: []string{"FACT-CHANGE", "FACT-MIGRATE"},
		answer: "Open takes a context now, and widget fix rewrites the calls.\n\nSources:\n- " + site.URL + "/docs/changes-v2\n- " +
			site.URL + "/docs/migrate\n"})
	home, env := retrieveEnv(t, d, "")
	text, err := retrieveFetch(bin, env, site.URL+"/docs", "What changed between v1 and v2, and how do I migrate?")
	if err != nil {
		t.Fatalf("retrieve: %v\n%s", err, text)
	}
	t.Logf("the agent reads:\n%s", text)
	for _, want := range []string{"It researched the need: 3 page(s) read in 2 model call(s) and 2 tool call(s)",
		"Open takes a context now", "[1] " + site.URL + "/docs/changes-v2 (step 1)", "[2] " + site.URL + "/docs/migrate (step 1)"} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	for _, c := range []string{"CANARY-R0", "CANARY-R1", "CANARY-R2"} {
		if strings.Contains(text, c) {
			t.Errorf("raw content (%s) reached the output", c)
		}
		if !strings.Contains(strings.Join(d.requests(), ""), c) {
			t.Errorf("%s never reached the distiller", c)
		}
	}
	entries, _, err := audit.AuditAt(home).Entries()
	if err != nil || len(entries) != 1 {
		t.Fatalf("audit: %v %v", entries, err)
	}
	e := entries[0]
	b, _ := json.MarshalIndent(e, "", "  ")
	t.Logf("the audit records:\n%s", b)
	if len(e.Steps) != 3 || e.Steps[0].N != 0 || e.Steps[0].Target != site.URL+"/docs" ||
		e.Steps[1].N != 1 || e.Steps[1].Target != site.URL+"/docs/changes-v2" || e.Steps[1].Outcome != "read" ||
		e.Steps[2].Target != site.URL+"/docs/migrate" || e.Usage == nil || e.Usage.Pages != 3 || len(e.Citations) != 2 {
		t.Errorf("audit steps: %+v usage %+v citations %q", e.Steps, e.Usage, e.Citations)
	}
	list := exec.Command(bin, "audit")
	list.Env = env
	if out, err := list.CombinedOutput(); err != nil || !strings.Contains(string(out), "step 1  fetch  "+site.URL+"/docs/migrate  read") {
		t.Errorf("hookctl audit: %v\n%s", err, out)
	}
}

// hostileRepo is a fake GitHub serving o/r, whose tarball is hostileTarball(out).
func hostileRepo(t *testing.T, dir, out string) *fakegithub.Server {
	archive := hostileTarball(t, out)
	return fakegithub.NewWith(t, dir, fakegithub.Repo(archive))
}

// hostileTarball aims every trick of an archive at a file under out, beside two honest files.
func hostileTarball(t *testing.T, out string) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	file := func(name, body string) {
		tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: 0o644, Size: int64(len(body))})
		tw.Write([]byte(body))
	}
	tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: "o-r-0123456/", Mode: 0o755})
	file("o-r-0123456/cache/evict.go", "package cache\n\n// evict drops the least recently used entry. CANARY-REPO\nfunc evict() {} // FACT-EVICT\n")
	file("o-r-0123456/README.md", "# r\n")
	file("o-r-0123456/../../../../../../../.."+out+"/by-dotdot", "x\n")
	file(out+"/by-absolute", "x\n")
	tw.WriteHeader(&tar.Header{Typeflag: tar.TypeSymlink, Name: "o-r-0123456/lnk", Linkname: out, Mode: 0o777})
	file("o-r-0123456/lnk/by-symlink", "x\n")
	tw.WriteHeader(&tar.Header{Typeflag: tar.TypeLink, Name: "o-r-0123456/hard", Linkname: "/etc/passwd"})
	tw.Close()
	zw.Close()
	return buf.Bytes()
}

// TestRetrieveRepoHostileArchive: `hookctl retrieve repo o/r`, through a fake GitHub behind a
// proxy as a user behind one reaches GitHub, reads a hostile archive into the worker's memory:
// the question is answered from its honest file, cited by line; the distiller's attempts to read
// through the link are refused; nothing is written at any target, as root and as an unprivileged
// user. Control: a trusting extractor, given the same archive, writes there.
func TestRetrieveRepoHostileArchive(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	requireTool(t, "python3")
	bin := buildPair(t)
	for _, user := range []*syscall.Credential{nil, nobody} {
		name := "root"
		if user != nil {
			name = "nobody"
			if os.Geteuid() != 0 {
				t.Skip("switching to an unprivileged user needs root")
			}
		}
		t.Run(name, func(t *testing.T) {
			root := machineDir(t, "hookctl-snapshot-test-")
			out := filepath.Join(root, "target")
			os.MkdirAll(out, 0o777)
			gh := hostileRepo(t, root, out)
			d := newResearcher(t, researchRule{trigger: "repository: o/r",
				calls: []map[string]any{{"name": "repo_read", "input": map[string]any{"path": "cache/evict.go"}},
					{"name": "repo_read", "input": map[string]any{"path": "lnk/by-symlink"}},
					{"name": "repo_read", "input": map[string]any{"path": "hard"}}},
				facts:  []string{"FACT-EVICT"},
				answer: "evict drops the least recently used entry.\n\nSources:\n- o/r@main:cache/evict.go:3-4\n"})
			_, env := retrieveEnv(t, d, "")
			home := filepath.Join(root, "hookctl-home") // where nobody can reach it
			os.MkdirAll(home, 0o755)
			cfg, _ := os.ReadFile(filepath.Join(strings.TrimPrefix(env[len(env)-2], "HOOKCTL_HOME="), "config.toml"))
			os.WriteFile(filepath.Join(home, "config.toml"), cfg, 0o644)
			env = append(env, "HOOKCTL_HOME="+home)
			env = append(env, gh.Env()...)
			wd := filepath.Join(root, "wd")
			os.MkdirAll(wd, 0o777)
			exe := bin
			if user != nil {
				bindir := filepath.Join(root, "bin")
				os.MkdirAll(bindir, 0o755)
				for _, f := range []string{"hookctl", "hookctl-network"} {
					b, _ := os.ReadFile(filepath.Join(filepath.Dir(bin), f))
					os.WriteFile(filepath.Join(bindir, f), b, 0o755)
				}
				exe = filepath.Join(bindir, "hookctl")
				filepath.Walk(home, func(p string, _ os.FileInfo, _ error) error { return os.Lchown(p, 65534, 65534) })
				os.Chown(wd, 65534, 65534)
				// A user's TMPDIR is their own, not the tester's (which may be private: issue 30).
				tmp := filepath.Join(root, "tmp")
				os.MkdirAll(tmp, 0o700)
				os.Chown(tmp, 65534, 65534)
				env = append(env, "TMPDIR="+tmp)
			}
			cmd := exec.Command(exe, "retrieve", "repo", "o/r", "--need", "How does the cache evict entries?")
			cmd.Env, cmd.Dir = env, wd
			cmd.SysProcAttr = &syscall.SysProcAttr{Credential: user}
			res, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("retrieve repo: %v\n%s", err, res)
			}
			text := string(res)
			t.Logf("the agent reads:\n%s", text)
			if !strings.Contains(text, "evict drops the least recently used entry") || !strings.Contains(text, "o/r@main:cache/evict.go:3-4 (step 1)") || !strings.Contains(text, "a snapshot of the GitHub repository o/r (") ||
				strings.Contains(text, "CANARY-REPO") {
				t.Errorf("output:\n%s", text)
			}
			if got, _ := os.ReadDir(out); len(got) != 0 {
				t.Errorf("written at the target: %v", got)
			}
			if got, _ := os.ReadDir(wd); len(got) != 0 {
				t.Errorf("written in the working directory: %v", got)
			}
			entries, _, _ := audit.AuditAt(home).Entries()
			if len(entries) != 1 || len(entries[0].Steps) != 4 || entries[0].Steps[0].Target != "github snapshot o/r" ||
				entries[0].Steps[2].Outcome != "refused" || entries[0].Steps[3].Outcome != "refused" {
				t.Errorf("audit: %+v", entries)
			}
			if len(gh.Tunnels()) == 0 {
				t.Error("the worker did not go through the proxy")
			}
			// Control: a trusting extractor writes at the target.
			arc := filepath.Join(root, "a.tar.gz")
			os.WriteFile(arc, hostileTarball(t, out), 0o644)
			dest := filepath.Join(root, "x", "y", "z", "w", "v", "u", "t", "s")
			os.MkdirAll(dest, 0o755)
			py := `import sys, tarfile
t = tarfile.open(sys.argv[1])
for m in t.getmembers():
    try: t.extract(m, sys.argv[2], filter="fully_trusted")
    except Exception: pass
`
			if b, err := exec.Command("python3", "-c", py, arc, dest).CombinedOutput(); err != nil {
				t.Fatalf("control: %v %s", err, b)
			}
			if got, _ := os.ReadDir(out); len(got) == 0 {
				t.Error("control: the trusting extractor wrote nothing at the target")
			}
		})
	}
}

// BenchmarkRetrieveResearch times a whole `hookctl retrieve fetch` of the two-page need, one
// call against the research loop (front, isolated worker, the pages on loopback, a distiller
// that answers at once, audit): the difference is what researching costs beyond the model.
func BenchmarkRetrieveResearch(b *testing.B) {
	bin := buildPair(b, testSeams...)
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<html><body>"+researchPages[r.URL.Path]+"</body></html>")
	}))
	defer site.Close()
	for _, mode := range []string{"one-call", "research"} {
		b.Run(mode, func(b *testing.B) {
			calls := []map[string]any{fetchInput(site.URL + "/docs/changes-v2"), fetchInput(site.URL + "/docs/migrate")}
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				body, _ := io.ReadAll(r.Body)
				content := []any{map[string]any{"type": "text", "text": "one page only"}}
				if mode == "research" && !strings.Contains(string(body), "tool_result") {
					content = nil
					for i, c := range calls {
						content = append(content, map[string]any{"type": "tool_use", "id": fmt.Sprint("tu_", i), "name": c["name"], "input": c["input"]})
					}
				}
				json.NewEncoder(w).Encode(map[string]any{"id": "m", "type": "message", "role": "assistant", "content": content, "stop_reason": "end_turn"})
			}))
			defer srv.Close()
			home := b.TempDir()
			extra := ""
			if mode == "one-call" {
				extra = "[retriever.research]\nenabled = false\n"
			}
			os.WriteFile(filepath.Join(home, "config.toml"), []byte(fmt.Sprintf("[retriever]\ndistiller = \"anthropic\"\n[retriever.anthropic]\nbase_url = %q\napi_key_env = \"K\"\n%s", srv.URL, extra)), 0o600)
			env := append(os.Environ(), "HOOKCTL_HOME="+home, "K=sk-bench")
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if out, err := retrieveFetch(bin, env, site.URL+"/docs", "What changed in v2 and how do I migrate?"); err != nil {
					b.Fatalf("%v\n%s", err, out)
				}
			}
		})
	}
}
