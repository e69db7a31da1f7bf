package worker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"

	"github.com/hookctl/hookctl/internal/buildinfo"
	"github.com/hookctl/hookctl/internal/clip"
	"github.com/hookctl/hookctl/retriever"
	"github.com/hookctl/hookctl/retriever/settings"
)

// Work runs in the isolated worker process: isolate, retrieve, distill. tmp is its empty
// working directory. It never returns raw content unless the input asks for it (audit.keep_raw).
func Work(ctx context.Context, in *retriever.WorkerInput, tmp string, environ []string) *retriever.WorkerResult {
	res := &retriever.WorkerResult{}
	paths := DefaultIsolationPaths(tmp)
	paths.Execute = append(paths.Execute, executablesFor(&in.Config, environ)...)
	iso, err := Isolate(paths)
	if err != nil {
		res.Isolation = "none: " + err.Error()
		res.Error = "failed to isolate the retriever: " + err.Error()
		return res
	}
	res.Isolation = iso

	docs, ans, err := retrieve(ctx, in, environ)
	if err != nil {
		if errors.Is(err, ErrFetchRefused) || errors.Is(err, ErrGitHubHostNotAllowed) || errors.Is(err, ErrGitHubRefused) {
			res.Refused = err.Error()
		} else {
			res.Error = err.Error()
		}
		res.Shown = ShownError(err)
	}
	res.Flags = ScanDocuments(docs)
	if ans != nil {
		res.Answer = ans
	}
	for _, d := range docs {
		if !in.KeepRaw {
			d.Text = ""
		}
		res.Documents = append(res.Documents, d)
	}
	return res
}

func retrieve(ctx context.Context, in *retriever.WorkerInput, environ []string) ([]retriever.Document, *retriever.Answer, error) {
	req := &in.Request
	cfg := &in.Config
	switch req.Kind {
	case retriever.KindFetch:
		f := &Fetcher{MaxBytes: min(cfg.MaxBytes, 32<<20), blocked: fetchAddrPolicy()}
		doc, err := f.Fetch(ctx, req.URL)
		if err != nil {
			return nil, nil, err
		}
		docs := []retriever.Document{*doc}
		ans, err := distill(ctx, cfg, environ, req.Need, docs)
		return docs, ans, err
	case retriever.KindSearch:
		searcher, sd, err := NewSearch(*cfg, environ)
		if err != nil {
			return nil, nil, err
		}
		if sd != nil {
			ctx, cancel := context.WithTimeout(ctx, settings.DistillTimeout)
			defer cancel()
			ans, docs, err := sd.SearchAndDistill(ctx, req.Query, req.Need)
			return docs, ans, err
		}
		docs, err := searcher.Search(ctx, req.Query)
		if err != nil {
			return nil, nil, err
		}
		ans, err := distill(ctx, cfg, environ, req.Need, docs)
		return docs, ans, err
	case retriever.KindGitHub:
		if req.GitHub == nil {
			return nil, nil, fmt.Errorf("no GitHub operation")
		}
		g := &GitHub{Token: retriever.EnvValue(environ, "HOOKCTL_GITHUB_TOKEN"), EnterpriseHosts: cfg.GitHub.EnterpriseHosts,
			HTTPClient: &http.Client{Timeout: settings.TotalTimeout}}
		docs, err := g.Do(ctx, req.GitHub)
		if err != nil {
			return nil, nil, err
		}
		ans, err := distill(ctx, cfg, environ, req.Need, docs)
		return docs, ans, err
	}
	return nil, nil, fmt.Errorf("unknown retrieval kind %q", req.Kind)
}

func distill(ctx context.Context, cfg *settings.Config, environ []string, need string, docs []retriever.Document) (*retriever.Answer, error) {
	d, err := NewDistiller(*cfg, environ, exec.LookPath)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, settings.DistillTimeout)
	defer cancel()
	return d.Distill(ctx, need, docs)
}

// executablesFor lists what a distiller backend must execute, for the isolation rules.
func executablesFor(cfg *settings.Config, environ []string) []string {
	var out []string
	add := func(prog string) {
		if p, err := exec.LookPath(prog); err == nil {
			out = append(out, p)
		}
	}
	switch cfg.Distiller { // resolved by the front: never "auto" here
	case "claude-cli":
		if cfg.ClaudeCLI.Path != "" {
			add(cfg.ClaudeCLI.Path)
		} else {
			add("claude")
		}
	case "command":
		if len(cfg.Command.Argv) > 0 {
			add(cfg.Command.Argv[0])
		}
	}
	if len(out) > 0 {
		// Programs need their libraries and the dynamic loader.
		out = append(out, "/lib", "/lib64", "/usr/lib", "/usr/lib64")
	}
	return out
}

// Main is the worker process's main: the request on stdin, the result on stdout. It refuses
// the request of a hookctl from another build, whose input it might read differently.
func Main(stdin io.Reader, stdout io.Writer) int {
	var in retriever.WorkerInput
	if err := json.NewDecoder(io.LimitReader(stdin, 1<<20)).Decode(&in); err != nil {
		return reply(stdout, &retriever.WorkerResult{Error: "failed to read the request: " + err.Error()})
	}
	if in.Build != buildinfo.ID() {
		return reply(stdout, &retriever.WorkerResult{Error: fmt.Sprintf("failed to start the retriever: %s is from another build "+
			"than the hookctl that ran it (worker: %s; hookctl: %s); install both from one build (make install)",
			retriever.WorkerExecutable, buildinfo.ID(), clip.String(in.Build, 200))})
	}
	tmp, err := os.Getwd()
	if err != nil {
		return reply(stdout, &retriever.WorkerResult{Error: "failed to find the working directory: " + err.Error()})
	}
	ctx, cancel := context.WithTimeout(context.Background(), settings.TotalTimeout+settings.DistillTimeout)
	defer cancel()
	if err := json.NewEncoder(stdout).Encode(Work(ctx, &in, tmp, os.Environ())); err != nil {
		return 1
	}
	return 0
}

// reply writes a result that ends the worker before any retrieval, and returns its exit code.
func reply(stdout io.Writer, res *retriever.WorkerResult) int {
	json.NewEncoder(stdout).Encode(res)
	return 1
}
