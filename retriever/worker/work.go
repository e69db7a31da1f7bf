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
	"time"

	"github.com/hookctl/hookctl/internal/buildinfo"
	"github.com/hookctl/hookctl/internal/clip"
	"github.com/hookctl/hookctl/retriever"
	"github.com/hookctl/hookctl/retriever/settings"
	"github.com/hookctl/hookctl/scrub"
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

	j := &job{in: in, environ: environ, fetcher: &Fetcher{MaxBytes: min(in.Config.MaxBytes, 32<<20), blocked: fetchAddrPolicy()}}
	j.github = &GitHub{Token: retriever.EnvValue(environ, retriever.GitHubTokenEnv), EnterpriseHosts: in.Config.GitHub.EnterpriseHosts,
		PrivateRepos: in.Config.GitHub.PrivateRepos, HTTPClient: &http.Client{Timeout: settings.TotalTimeout}}
	docs, ans, err := j.retrieve(ctx)
	if err != nil {
		if errors.Is(err, ErrFetchRefused) || errors.Is(err, ErrGitHubHostNotAllowed) || errors.Is(err, ErrGitHubRefused) {
			res.Refused = err.Error()
		} else {
			res.Error = err.Error()
		}
		res.Shown = ShownError(err)
	}
	res.Flags = append(ScanDocuments(docs), j.steerFlags...)
	res.Steps, res.Usage = j.steps, j.usage
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

// job is one retrieval in the worker: the caller's own request, then the distiller, with the
// research loop when it is on.
type job struct {
	in      *retriever.WorkerInput
	environ []string
	fetcher *Fetcher
	github  *GitHub

	steps      []retriever.Step
	usage      *retriever.Usage
	steerFlags []retriever.InjectionFlag
}

// retrieve makes the caller's request (step 0) and has it answered.
func (j *job) retrieve(ctx context.Context) ([]retriever.Document, *retriever.Answer, error) {
	req, cfg := &j.in.Request, &j.in.Config
	start := time.Now()
	var docs []retriever.Document
	var snap *Snapshot
	target := req.URL
	switch req.Kind {
	case retriever.KindFetch:
		doc, err := j.fetcher.Fetch(ctx, req.URL)
		if err != nil {
			return nil, nil, err
		}
		docs = []retriever.Document{*doc}
	case retriever.KindSearch:
		target = req.Query
		searcher, sd, err := NewSearch(*cfg, j.environ)
		if err != nil {
			return nil, nil, err
		}
		if sd != nil {
			// Anthropic searches and reads the pages itself: they never reach this process, so
			// there is nothing for a research loop here to read.
			ctx, cancel := context.WithTimeout(ctx, settings.DistillTimeout)
			defer cancel()
			ans, docs, err := sd.SearchAndDistill(ctx, req.Query, req.Need)
			return docs, ans, err
		}
		if docs, err = searcher.Search(ctx, req.Query); err != nil {
			return nil, nil, err
		}
	case retriever.KindGitHub:
		if req.GitHub == nil || req.GitHub.Op == "snapshot" {
			return nil, nil, fmt.Errorf("no GitHub operation")
		}
		target = req.GitHub.Source()
		var err error
		if docs, err = j.github.Do(ctx, req.GitHub); err != nil {
			return nil, nil, err
		}
	case retriever.KindRepo:
		if req.GitHub == nil || req.GitHub.Op != "snapshot" {
			return nil, nil, fmt.Errorf("no snapshot operation")
		}
		target = req.GitHub.Source()
		var err error
		if snap, err = j.github.Snapshot(ctx, req.GitHub); err != nil {
			return nil, nil, err
		}
		docs = snap.Overview()
	default:
		return nil, nil, fmt.Errorf("unknown retrieval kind %q", req.Kind)
	}
	first := retriever.Step{N: 0, Tool: string(req.Kind), Target: target, Outcome: "read"}
	for _, d := range docs {
		first.Bytes += d.Bytes
	}
	if snap != nil {
		first.Bytes = snap.Archive
	}

	if !cfg.Research.On() || cfg.Distiller == settings.BackendExtract {
		j.steps = []retriever.Step{first}
		j.usage = &retriever.Usage{Turns: 1, Pages: 1, Bytes: first.Bytes}
		ans, err := distill(ctx, cfg, j.environ, req.Need, docs)
		j.usage.Elapsed = time.Since(start).Milliseconds()
		return docs, ans, err
	}
	model, err := newResearchModel(*cfg, j.environ, exec.LookPath)
	if err != nil {
		return docs, nil, err
	}
	r := &researcher{need: req.Need, req: req, model: model, budget: cfg.Research.Budget(), start: start,
		fetcher: j.fetcher, github: j.github, scrubber: scrub.NewScrubber(j.environ).WithDigests(j.in.Secrets)}
	if j.in.Seconds > 0 {
		r.end = start.Add(time.Duration(j.in.Seconds) * time.Second)
	}
	if s, sd, err := NewSearch(*cfg, j.environ); err == nil && sd == nil {
		r.searcher = s
	}
	r.steps = []retriever.Step{first}
	r.usage.Pages, r.usage.Bytes = 1, first.Bytes
	if snap != nil {
		r.snapshots = []*Snapshot{snap}
		r.private = snap.Private
	} else if req.Kind == retriever.KindGitHub && j.github.Token != "" {
		r.notePrivate(ctx, j.github, req.GitHub)
	}
	ans, err := r.run(ctx, docs)
	j.steps, j.usage, j.steerFlags = r.steps, &r.usage, r.flags
	return r.docs, ans, err
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
			retriever.NetworkExecutable, buildinfo.ID(), clip.String(in.Build, 200))})
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
