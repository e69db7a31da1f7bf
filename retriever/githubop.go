package retriever

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/hookctl/hookctl/internal/clip"
)

// Parsing and checking a GitHub operation. The operation comes from the agent, so it is
// validated strictly (names, numbers, paths, refs, host): by the front when it parses
// `hookctl retrieve github` arguments, and by the worker again before any request, since its
// input arrives from another process (docs/decisions/0001-github-access.md).

// ghOperands is what follows an operation's name.
type ghOperands int

const (
	ghNumbered ghOperands = iota // OWNER/REPO NUMBER, OWNER/REPO#NUMBER or a URL
	ghFilePath                   // OWNER/REPO PATH [--ref REF] or a /blob/ or /tree/ URL
	ghRepoOnly                   // OWNER/REPO or a URL
	ghRunID                      // OWNER/REPO RUN-ID: a workflow run's id, which outgrows 32 bits
	ghAPIPath                    // OWNER/REPO PATH: a REST path under /repos/OWNER/REPO/
	ghNoRepo                     // nothing: a search across GitHub, its scope in the query
	ghRepoRef                    // OWNER/REPO[@REF] [--ref REF], or a repository or /tree/ URL
)

// ghURLKind is the shape of a github.com web URL.
type ghURLKind string

const (
	ghURLRepo     ghURLKind = "repo"     // /OWNER/REPO
	ghURLIssue    ghURLKind = "issues"   // /OWNER/REPO/issues/N
	ghURLPull     ghURLKind = "pull"     // /OWNER/REPO/pull/N[/files|/commits|/checks]
	ghURLBlob     ghURLKind = "blob"     // /OWNER/REPO/blob/REF/PATH
	ghURLTree     ghURLKind = "tree"     // /OWNER/REPO/tree/REF/PATH
	ghURLReleases ghURLKind = "releases" // /OWNER/REPO/releases
)

// ghOpSpec says what an operation takes and which URLs name it.
type ghOpSpec struct {
	name     string
	operands ghOperands
	urls     []ghURLKind
	// flags are the filters the operation takes, space-separated: state, label, author,
	// branch, limit, query. states are the values its --state may take.
	flags, states string
}

// ghOps is every operation there is, in the order the usage shows them; anything else is
// refused. The issues API serves pull requests too, so issue operations take /pull/ URLs; the
// pulls API does not serve issues. A slice, not a map: a map literal is built on every start of
// the hook process, which links this package.
var ghOps = []ghOpSpec{
	{"issue", ghNumbered, []ghURLKind{ghURLIssue, ghURLPull}, "", ""},
	{"issue-comments", ghNumbered, []ghURLKind{ghURLIssue, ghURLPull}, "", ""},
	{"pr", ghNumbered, []ghURLKind{ghURLPull}, "branch", ""},
	{"pr-diff", ghNumbered, []ghURLKind{ghURLPull}, "branch", ""},
	{"pr-files", ghNumbered, []ghURLKind{ghURLPull}, "branch", ""},
	{"pr-comments", ghNumbered, []ghURLKind{ghURLPull}, "branch", ""},
	{"file", ghFilePath, []ghURLKind{ghURLBlob, ghURLTree}, "", ""},
	{"repo", ghRepoOnly, []ghURLKind{ghURLRepo}, "", ""},
	{"releases", ghRepoOnly, []ghURLKind{ghURLRepo, ghURLReleases}, "limit", ""},
	{"issue-list", ghRepoOnly, []ghURLKind{ghURLRepo}, "state label author limit search", "open closed all"},
	{"pr-list", ghRepoOnly, []ghURLKind{ghURLRepo}, "state label author branch limit search", "open closed merged all"},
	{"pr-checks", ghNumbered, []ghURLKind{ghURLPull}, "branch", ""},
	{"runs", ghRepoOnly, []ghURLKind{ghURLRepo}, "branch limit", ""},
	{"run", ghRunID, nil, "", ""},
	{"run-log-failed", ghRunID, nil, "", ""},
	{"run-log", ghRunID, nil, "", ""},
	{"branches", ghRepoOnly, []ghURLKind{ghURLRepo}, "limit", ""},
	{"tags", ghRepoOnly, []ghURLKind{ghURLRepo}, "limit", ""},
	{"api-get", ghAPIPath, nil, "query accept pages", ""},
	{"refs", ghRepoOnly, []ghURLKind{ghURLRepo}, "", ""},
	{"search-issues", ghNoRepo, nil, "search limit pages", ""},
	{"snapshot", ghRepoRef, []ghURLKind{ghURLRepo, ghURLTree}, "", ""},
}

// Caps on the filters of the list operations. Past a cap the operation is refused, not cut:
// the agent asked for something specific.
const (
	GitHubMaxLimit   = 100 // items a list operation returns (gh's --limit)
	ghMaxLabels      = 10  // --label filters
	ghMaxLabel       = 50  // bytes of one label (GitHub's own limit)
	ghMaxQuery       = 20  // --query pairs of api-get
	ghMaxQueryValue  = 100 // bytes of one query value
	ghMaxAPIPath     = 512 // bytes of api-get's path
	ghMaxAPISegments = 16  // segments of api-get's path
	ghMaxRunID       = 1<<53 - 1
	ghMaxSearch      = 256 // bytes of a search query (GitHub's own limit)
	// GitHubMaxPages caps the pages api-get and search-issues read (gh api --paginate).
	GitHubMaxPages = 10
)

// ghOpNamesList lists the operations' names, in order.
func ghOpNamesList() []string {
	names := make([]string, len(ghOps))
	for i, op := range ghOps {
		names[i] = op.name
	}
	return names
}

// ghOp returns the operation named name.
func ghOp(name string) (ghOpSpec, bool) {
	for _, op := range ghOps {
		if op.name == name {
			return op, true
		}
	}
	return ghOpSpec{}, false
}

// githubUsage is the grammar, for error messages and the CLI's help.
const githubUsage = `hookctl retrieve github OP ARGS [--host HOST]
  issue|issue-comments|pr|pr-diff|pr-files|pr-comments  OWNER/REPO NUMBER | OWNER/REPO#NUMBER | URL
  file      OWNER/REPO PATH [--ref REF] | https://github.com/OWNER/REPO/blob/REF/PATH
  repo      OWNER/REPO | URL
  releases  OWNER/REPO | URL [--limit N]
  issue-list  OWNER/REPO [--state open|closed|all] [--label L]... [--author LOGIN|@me] [--limit N]
  pr-list     OWNER/REPO [--state open|closed|merged|all] [--label L]... [--author LOGIN|@me] [--branch HEAD] [--limit N]
  pr-checks   OWNER/REPO NUMBER | URL
  pr|pr-diff|pr-files|pr-comments|pr-checks  OWNER/REPO --branch HEAD   (the pull request of a branch)
  runs        OWNER/REPO [--branch B] [--limit N]
  run|run-log|run-log-failed  OWNER/REPO RUN-ID
  branches|tags       OWNER/REPO [--limit N]
  api-get     OWNER/REPO PATH [--query KEY=VALUE]... [--accept MEDIA-TYPE] [--pages N]   (GET /repos/OWNER/REPO/PATH?KEY=VALUE…)
  issue-list|pr-list  OWNER/REPO --search 'QUERY'   (GitHub's search syntax, as gh --search)
  search-issues       --search 'QUERY' [--limit N] [--pages N]   (GET /search/issues)
  refs        OWNER/REPO   (every branch and tag, as git ls-remote)
  snapshot    OWNER/REPO[@REF] [--ref REF] | a repository or /tree/ URL   (hookctl retrieve repo)`

// ParseGitHubArgs reads `hookctl retrieve github` arguments into an operation:
//
//	issue OWNER/REPO NUMBER | issue-comments … | pr … | pr-diff … | pr-files … | pr-comments …
//	file OWNER/REPO PATH [--ref REF] | repo OWNER/REPO | releases OWNER/REPO
//
// with `--host HOST` (or --host=HOST) for an enterprise host, and `--` ending the flags. A
// github.com (or enterprise) https URL may stand for OWNER/REPO NUMBER, OWNER/REPO PATH or
// OWNER/REPO; its query and fragment are ignored. In a /blob/ or /tree/ URL the segment after
// blob or tree is the ref, so a branch name with a slash must be given with --ref instead.
// Whether the host is allowed is decided by the worker, which knows the config.
//
// It reads the words into operands and flags, and GitHubOpOf makes the operation of them; a
// command line that has read its own flags (hookctl retrieve's) calls GitHubOpOf itself.
func ParseGitHubArgs(args []string) (*GitHubOp, error) {
	if len(args) == 0 {
		return nil, fmt.Errorf("failed to parse github arguments: no operation\n%s", githubUsage)
	}
	spec, err := ghOpNamed(args[0])
	if err != nil {
		return nil, err
	}
	var (
		pos                []string
		onlyPositionalLeft bool
		flags              = GitHubFlags{}
	)
	// Each iteration consumes one argument, or a flag and its value.
	for i := 1; i < len(args); i++ {
		a := args[i]
		if onlyPositionalLeft || a == "" || a[0] != '-' {
			pos = append(pos, a)
			continue
		}
		if a == "--" {
			onlyPositionalLeft = true
			continue
		}
		flag, value, hasValue := strings.Cut(a, "=")
		name := strings.TrimPrefix(flag, "--")
		switch {
		case flag == "--op":
			return nil, errors.New("failed to parse github arguments: --op takes the whole operation, alone")
		case flag == "--host", flag == "--ref":
		case strings.HasPrefix(flag, "--") && ghHasWord(ghFilterNames, name):
			if !ghHasWord(spec.flags, name) {
				return nil, fmt.Errorf("failed to parse github arguments: %s does not apply to %s", flag, args[0])
			}
		default:
			if ghAllDigits(strings.TrimLeft(a, "-")) {
				return nil, fmt.Errorf("failed to parse github arguments: %s: a number must be positive", Quote(a))
			}
			return nil, fmt.Errorf("failed to parse github arguments: unknown flag %s", Quote(a))
		}
		if !hasValue {
			if i+1 >= len(args) {
				return nil, fmt.Errorf("failed to parse github arguments: %s needs a value", flag)
			}
			i++
			value = args[i]
		}
		// --label and --query may be repeated; every other flag once.
		if _, twice := flags[name]; twice && name != "label" && name != "query" {
			return nil, fmt.Errorf("failed to parse github arguments: %s given twice", flag)
		}
		flags[name] = append(flags[name], value)
	}
	return GitHubOpOf(args[0], pos, flags)
}

// GitHubFlags are an operation's flags as a command line read them: each value given, by the
// flag's name without its dashes (host, ref, state, label, author, branch, limit, query,
// search, accept, pages). Only label and query take more than one.
type GitHubFlags map[string][]string

// ghFlagOrder is the order GitHubOpOf checks flags in.
const ghFlagOrder = "host ref " + ghFilterNames

// GitHubOpOf makes operation name of its operands and flags, and checks it (Validate).
func GitHubOpOf(name string, pos []string, flags GitHubFlags) (*GitHubOp, error) {
	spec, err := ghOpNamed(name)
	if err != nil {
		return nil, err
	}
	for f := range flags {
		if !ghHasWord(ghFlagOrder, f) {
			return nil, fmt.Errorf("failed to parse github arguments: unknown flag %s", Quote("--"+f))
		}
	}
	op := &GitHubOp{Op: name}
	var (
		ref    string
		refSet bool
	)
	for _, f := range strings.Fields(ghFlagOrder) {
		values, set := flags[f]
		if !set {
			continue
		}
		flag := "--" + f
		if f != "host" && f != "ref" && !ghHasWord(spec.flags, f) {
			return nil, fmt.Errorf("failed to parse github arguments: %s does not apply to %s", flag, name)
		}
		if len(values) != 1 && f != "label" && f != "query" {
			return nil, fmt.Errorf("failed to parse github arguments: %s given twice", flag)
		}
		value := values[len(values)-1]
		var err error
		switch f {
		case "host":
			h, err := NormalizeGitHubHost(value)
			if err != nil {
				return nil, fmt.Errorf("failed to parse github arguments: --host: %w", err)
			}
			op.Host = h
		case "ref":
			if value == "" {
				return nil, errors.New("failed to parse github arguments: --ref needs a value")
			}
			if spec.operands != ghFilePath && spec.operands != ghRepoRef {
				return nil, fmt.Errorf("failed to parse github arguments: --ref applies to file and snapshot only, not %s", name)
			}
			refSet, ref = true, value
		case "state":
			op.State = value
		case "label":
			op.Labels = append([]string(nil), values...)
		case "author":
			op.Author = value
		case "branch":
			op.Branch = value
		case "limit":
			op.Limit, err = ghCount(flag, value, GitHubMaxLimit)
		case "query":
			op.Query = append([]string(nil), values...)
		case "search":
			op.Search = value
		case "accept":
			op.Accept = value
		case "pages":
			op.Pages, err = ghCount(flag, value, GitHubMaxPages)
		}
		if err != nil {
			return nil, err
		}
	}
	if err := ghFillOperands(op, spec, pos); err != nil {
		return nil, fmt.Errorf("failed to parse github arguments: %w", err)
	}
	if refSet {
		if op.Ref != "" {
			return nil, errors.New("failed to parse github arguments: the URL already names a ref; drop --ref")
		}
		op.Ref = ref
	}
	if err := op.Validate(); err != nil {
		return nil, fmt.Errorf("failed to parse github arguments: %w", err)
	}
	return op, nil
}

// ghOpNamed is the operation called name, or an error that lists them.
func ghOpNamed(name string) (ghOpSpec, error) {
	spec, ok := ghOp(name)
	if !ok {
		return spec, fmt.Errorf("failed to parse github arguments: unknown operation %s; one of %s",
			Quote(name), strings.Join(ghOpNamesList(), ", "))
	}
	return spec, nil
}

// ghCount reads a count flag's value: decimal digits, 1 to max.
func ghCount(flag, value string, max int) (int, error) {
	n, err := strconv.Atoi(value)
	if err != nil || !ghAllDigits(value) || n < 1 || n > max {
		return 0, fmt.Errorf("failed to parse github arguments: %s %s: give 1 to %d", flag, Quote(value), max)
	}
	return n, nil
}

// ghFillOperands reads the positional arguments of op into it.
func ghFillOperands(op *GitHubOp, spec ghOpSpec, pos []string) error {
	if spec.operands == ghNoRepo {
		if len(pos) > 0 {
			return fmt.Errorf("unexpected argument %s: %s takes its scope in --search (repo:OWNER/REPO)", Quote(pos[0]), op.Op)
		}
		return nil
	}
	if len(pos) == 0 {
		return fmt.Errorf("%s needs arguments\n%s", op.Op, githubUsage)
	}
	if strings.Contains(pos[0], "://") {
		if len(pos) > 1 {
			return fmt.Errorf("unexpected argument %s after the URL", Quote(pos[1]))
		}
		return ghFillFromURL(op, spec, pos[0])
	}
	want := 2
	if spec.operands == ghRepoOnly || spec.operands == ghRepoRef {
		want = 1
	}
	slug := pos[0]
	if spec.operands == ghRepoRef {
		// OWNER/REPO@REF: a repository name cannot hold '@', so the first one ends it.
		if s, ref, ok := strings.Cut(slug, "@"); ok {
			if ref == "" {
				return fmt.Errorf("%s names no ref after @", Quote(slug))
			}
			slug, op.Ref = s, ref
		}
	}
	if spec.operands == ghNumbered && len(pos) == 1 && op.Branch != "" && !strings.Contains(slug, "#") {
		want = 1 // a pull request named by its head branch (--branch), as gh pr view does
	} else if spec.operands == ghNumbered && len(pos) == 1 {
		// OWNER/REPO#NUMBER, as gh and GitHub's own text write it.
		s, n, ok := strings.Cut(slug, "#")
		if !ok {
			return fmt.Errorf("%s needs OWNER/REPO NUMBER", op.Op)
		}
		slug, pos = s, []string{s, n}
	}
	if len(pos) < want {
		switch spec.operands {
		case ghFilePath, ghAPIPath:
			return fmt.Errorf("%s needs OWNER/REPO PATH", op.Op)
		case ghRunID:
			return fmt.Errorf("%s needs OWNER/REPO RUN-ID", op.Op)
		}
		return fmt.Errorf("%s needs OWNER/REPO NUMBER", op.Op)
	}
	if len(pos) > want {
		return fmt.Errorf("unexpected argument %s", Quote(pos[want]))
	}
	owner, repo, ok := strings.Cut(slug, "/")
	if !ok {
		return fmt.Errorf("%s is not OWNER/REPO", Quote(slug))
	}
	op.Owner, op.Repo = owner, repo
	switch {
	case spec.operands == ghNumbered && want == 1:
	case spec.operands == ghNumbered:
		n, err := ghParseNumber(pos[1])
		if err != nil {
			return err
		}
		op.Number = n
	case spec.operands == ghRunID:
		if pos[1] == "" || len(pos[1]) > 16 || !ghAllDigits(pos[1]) || pos[1][0] == '0' {
			return fmt.Errorf("%s is not a workflow run id", Quote(pos[1]))
		}
		op.Number, _ = strconv.Atoi(pos[1]) // Validate checks the range
	case spec.operands == ghFilePath, spec.operands == ghAPIPath:
		op.Path = pos[1]
	}
	return nil
}

// ghFillFromURL reads a web URL into op. The URL is only read, never fetched.
func ghFillFromURL(op *GitHubOp, spec ghOpSpec, raw string) error {
	if len(raw) > 4096 {
		return errors.New("URL is too long")
	}
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("%s is not a URL", Quote(raw))
	}
	if u.Scheme != "https" {
		return fmt.Errorf("%s: only https URLs", Quote(raw))
	}
	if u.User != nil || u.Opaque != "" || u.Host == "" {
		return fmt.Errorf("%s is not a github URL", Quote(raw))
	}
	host := strings.ToLower(u.Host)
	switch host {
	case "github.com", "www.github.com":
		host = ""
	case "api.github.com":
		return errors.New("an api.github.com URL: give the github.com web URL or OWNER/REPO")
	default:
		if host, err = NormalizeGitHubHost(host); err != nil {
			return err
		}
	}
	if op.Host != "" && op.Host != host {
		return fmt.Errorf("--host %s disagrees with the URL's host", op.Host)
	}
	op.Host = host

	p := strings.TrimSuffix(u.Path, "/")
	if !strings.HasPrefix(p, "/") {
		return fmt.Errorf("%s names no repository", Quote(raw))
	}
	segs := strings.Split(p[1:], "/")
	if len(segs) < 2 {
		return fmt.Errorf("%s names no repository", Quote(raw))
	}
	for _, s := range segs {
		if s == "" {
			return fmt.Errorf("%s has an empty path segment", Quote(raw))
		}
	}
	op.Owner, op.Repo = segs[0], segs[1]

	var kind ghURLKind
	switch {
	case len(segs) == 2:
		kind = ghURLRepo
		op.Repo = strings.TrimSuffix(op.Repo, ".git")
	case segs[2] == "issues" && len(segs) == 4:
		kind = ghURLIssue
	case segs[2] == "pull" && (len(segs) == 4 ||
		len(segs) == 5 && (segs[4] == "files" || segs[4] == "commits" || segs[4] == "checks")):
		kind = ghURLPull
	case (segs[2] == "blob" || segs[2] == "tree") && len(segs) >= 5:
		kind = ghURLKind(segs[2])
		op.Ref, op.Path = segs[3], strings.Join(segs[4:], "/")
	case segs[2] == "tree" && len(segs) == 4 && spec.operands == ghRepoRef:
		kind = ghURLTree // a snapshot of a ref's root
		op.Ref = segs[3]
	case segs[2] == "releases" && len(segs) == 3:
		kind = ghURLReleases
	default:
		return fmt.Errorf("%s is not a URL hookctl reads (issue, pull request, blob, tree, repository, releases)", Quote(raw))
	}
	accepted := false
	for _, k := range spec.urls {
		accepted = accepted || k == kind
	}
	if !accepted {
		return fmt.Errorf("this URL (%s) does not name a %s", kind, op.Op)
	}
	if kind == ghURLIssue || kind == ghURLPull {
		n, err := ghParseNumber(segs[3])
		if err != nil {
			return err
		}
		op.Number = n
	}
	return nil
}

// Validate checks an operation completely. The worker runs it again, because an operation
// arrives there from another process rather than from ParseGitHubArgs.
func (op *GitHubOp) Validate() error {
	spec, ok := ghOp(op.Op)
	if !ok {
		return fmt.Errorf("unknown operation %s", Quote(op.Op))
	}
	if op.Host != "" {
		h, err := NormalizeGitHubHost(op.Host)
		if err != nil {
			return err
		}
		if h != "" && h != op.Host {
			return fmt.Errorf("host %s is not in canonical form", Quote(op.Host))
		}
	}
	if spec.operands == ghNoRepo {
		if op.Owner != "" || op.Repo != "" {
			return fmt.Errorf("%s names no repository: its scope is in --search", op.Op)
		}
	} else {
		if err := ghCheckOwner(op.Owner); err != nil {
			return err
		}
		if err := ghCheckRepo(op.Repo); err != nil {
			return err
		}
	}
	switch {
	case spec.operands == ghNumbered && op.Number == 0 && op.Branch != "":
		// The pull request whose head is the branch; the worker finds its number.
	case spec.operands == ghNumbered && op.Branch != "":
		return fmt.Errorf("%s takes a number or --branch, not both", op.Op)
	case spec.operands == ghNumbered:
		if op.Number <= 0 || op.Number > ghMaxNumber {
			return fmt.Errorf("number %d is not a positive issue or pull request number", op.Number)
		}
	case spec.operands == ghRunID:
		if op.Number <= 0 || op.Number > ghMaxRunID {
			return fmt.Errorf("%d is not a workflow run id", op.Number)
		}
	case op.Number != 0:
		return fmt.Errorf("%s takes no number", op.Op)
	}
	if err := op.validateFilters(spec); err != nil {
		return err
	}
	if spec.operands == ghAPIPath {
		return ghCheckAPIPath(op.Path)
	}
	if spec.operands == ghRepoRef {
		if op.Path != "" {
			if op.Ref == "" {
				return errors.New("a snapshot's directory needs its ref (a /tree/REF/DIR URL)")
			}
			if err := ghCheckPath(op.Path); err != nil {
				return err
			}
		}
		if op.Ref != "" {
			return ghCheckRef(op.Ref)
		}
		return nil
	}
	if spec.operands == ghFilePath {
		if err := ghCheckPath(op.Path); err != nil {
			return err
		}
		if op.Ref != "" {
			if err := ghCheckRef(op.Ref); err != nil {
				return err
			}
		}
	} else if op.Path != "" || op.Ref != "" {
		return fmt.Errorf("%s takes no path or ref", op.Op)
	}
	return nil
}

// ghFilterNames are every filter flag there is; ghOpSpec.flags says which an operation takes.
const ghFilterNames = "state label author branch limit query search accept pages"

func ghHasWord(list, w string) bool {
	for _, x := range strings.Fields(list) {
		if x == w {
			return true
		}
	}
	return false
}

// validateFilters checks the list filters: only those the operation takes, each from its
// alphabet and under its cap. They become query parameters of a GitHub request, so a value
// that could add a parameter or a line (&, =, %, control characters) is refused.
// Why: the filters come from the agent's command line; `--label 'x&state=all'` must not become
// two parameters. Test: TestGitHubParseArgs (filter rows).
func (op *GitHubOp) validateFilters(spec ghOpSpec) error {
	has := func(f string, set bool) error {
		if set && !ghHasWord(spec.flags, f) {
			return fmt.Errorf("%s takes no --%s", op.Op, f)
		}
		return nil
	}
	for _, c := range []struct {
		f   string
		set bool
	}{{"state", op.State != ""}, {"label", len(op.Labels) > 0}, {"author", op.Author != ""},
		{"branch", op.Branch != ""}, {"limit", op.Limit != 0}, {"query", len(op.Query) > 0},
		{"search", op.Search != ""}, {"accept", op.Accept != ""}, {"pages", op.Pages != 0}} {
		if err := has(c.f, c.set); err != nil {
			return err
		}
	}
	if op.State != "" && !ghHasWord(spec.states, op.State) {
		return fmt.Errorf("--state %s: one of %s", Quote(op.State), spec.states)
	}
	if len(op.Labels) > ghMaxLabels {
		return fmt.Errorf("at most %d labels", ghMaxLabels)
	}
	for _, l := range op.Labels {
		if l == "" || len(l) > ghMaxLabel || !utf8.ValidString(l) || strings.ContainsAny(l, ",&=%#?") {
			return fmt.Errorf("label %s: 1 to %d bytes of UTF-8, no , & = %% # ?", Quote(l), ghMaxLabel)
		}
		for _, r := range l {
			if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
				return fmt.Errorf("label %s contains a control or format character", Quote(l))
			}
		}
	}
	if op.Author != "" && op.Author != "@me" {
		if err := ghCheckOwner(op.Author); err != nil {
			return fmt.Errorf("--author: %w (or @me)", err)
		}
	}
	if op.Branch != "" {
		if err := ghCheckRef(op.Branch); err != nil {
			return fmt.Errorf("--branch: %w", err)
		}
	}
	if op.Limit < 0 || op.Limit > GitHubMaxLimit {
		return fmt.Errorf("--limit %d: give 1 to %d", op.Limit, GitHubMaxLimit)
	}
	if spec.operands == ghNoRepo && op.Search == "" {
		return fmt.Errorf("%s needs --search 'QUERY'", op.Op)
	}
	if op.Search != "" {
		if err := ghCheckSearch(op.Search); err != nil {
			return err
		}
	}
	if op.Accept != "" && !GitHubMediaType(op.Accept) {
		return fmt.Errorf("--accept %s: only GitHub's own media types (application/vnd.github[.v3][.raw|.text|.html|.full|.diff|.patch|.sha][+json], application/json)", Quote(op.Accept))
	}
	if op.Pages < 0 || op.Pages > GitHubMaxPages {
		return fmt.Errorf("--pages %d: give 1 to %d", op.Pages, GitHubMaxPages)
	}
	if len(op.Query) > ghMaxQuery {
		return fmt.Errorf("at most %d query parameters", ghMaxQuery)
	}
	keys := map[string]bool{}
	for _, kv := range op.Query {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || !ghQueryKey(k) || !ghQueryValue(v) {
			return fmt.Errorf("query parameter %s: KEY=VALUE, the key of a-z 0-9 _ (at most 40), the value of A-Z a-z 0-9 . _ - , : @ / (at most %d)", Quote(kv), ghMaxQueryValue)
		}
		if keys[k] {
			return fmt.Errorf("query parameter %s given twice", Quote(k))
		}
		keys[k] = true
	}
	return nil
}

// ghCheckSearch accepts a search query in GitHub's syntax: 1 to 256 bytes of UTF-8 (GitHub's
// limit), no control or format characters. It travels as one URL parameter, encoded by the
// worker, so its qualifiers (repo:, is:, label:"…") cannot add a parameter; what it may find is
// any read the token allows, as gh search does.
func ghCheckSearch(q string) error {
	if strings.TrimSpace(q) == "" || len(q) > ghMaxSearch || !utf8.ValidString(q) {
		return fmt.Errorf("--search %s: 1 to %d bytes of UTF-8", Quote(q), ghMaxSearch)
	}
	for _, r := range q {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			return fmt.Errorf("--search %s contains a control or format character", Quote(q))
		}
	}
	return nil
}

// GitHubMediaType reports whether an Accept value is one of GitHub's own media types: the
// JSON forms and the custom ones the REST API documents (raw, text, html, full, diff, patch,
// sha), in the versioned and unversioned spellings. Previews and anything else are refused: a
// header is a second channel for the agent's text.
func GitHubMediaType(v string) bool {
	v = strings.ToLower(strings.TrimSpace(v))
	if v == "application/json" || v == "*/*" {
		return true
	}
	rest, ok := strings.CutPrefix(v, "application/vnd.github")
	if !ok {
		return false
	}
	rest = strings.TrimPrefix(rest, ".v3")
	rest = strings.TrimSuffix(rest, "+json")
	switch rest {
	case "", ".raw", ".text", ".html", ".full", ".diff", ".patch", ".sha", ".object":
		return true
	}
	return false
}

func ghQueryKey(k string) bool {
	ok := k != "" && len(k) <= 40
	for i := 0; ok && i < len(k); i++ {
		ok = k[i] >= 'a' && k[i] <= 'z' || k[i] >= '0' && k[i] <= '9' || k[i] == '_'
	}
	return ok
}

// ghQueryValue accepts a value that needs no escaping in a query and cannot start another
// parameter: no & = % + # ? or space, nothing outside ASCII.
func ghQueryValue(v string) bool {
	ok := len(v) <= ghMaxQueryValue
	for i := 0; ok && i < len(v); i++ {
		ok = ghIsAlnum(v[i]) || strings.IndexByte("._-,:@/", v[i]) >= 0
	}
	return ok
}

// ghCheckAPIPath accepts the path of an api-get, under /repos/OWNER/REPO/: 1 to
// ghMaxAPISegments segments of letters, digits, '.', '-' and '_', none "." or "..".
// Why: the path is joined to the API base, so ".." would leave the repository (a read of
// another endpoint with the user's token), and '%' could be decoded into one; a query is
// given with --query, never in the path. Test: TestGitHubParseArgs (api-get rows).
func ghCheckAPIPath(p string) error {
	if p == "" || len(p) > ghMaxAPIPath {
		return fmt.Errorf("api-get path %s: 1 to %d bytes", Quote(p), ghMaxAPIPath)
	}
	segs := strings.Split(p, "/")
	if len(segs) > ghMaxAPISegments {
		return fmt.Errorf("api-get path %s has more than %d segments", Quote(p), ghMaxAPISegments)
	}
	for _, seg := range segs {
		ok := seg != "" && seg != "." && seg != ".."
		for i := 0; ok && i < len(seg); i++ {
			ok = ghIsAlnum(seg[i]) || seg[i] == '.' || seg[i] == '-' || seg[i] == '_'
		}
		if !ok {
			return fmt.Errorf("api-get path %s: segments of A-Z a-z 0-9 . - _, none empty, \".\" or \"..\"", Quote(p))
		}
	}
	return nil
}

// ByBranch reports an operation on one pull request that names it by its head branch
// (--branch) rather than its number; the worker finds the number first.
func (op *GitHubOp) ByBranch() bool {
	spec, ok := ghOp(op.Op)
	return ok && spec.operands == ghNumbered && op.Number == 0 && op.Branch != ""
}

// ghMaxNumber is the largest issue number GitHub can hand out (a 32-bit signed integer).
const ghMaxNumber = 1<<31 - 1

// ghParseNumber reads an issue or pull request number: decimal digits, no sign, no leading
// zero, at most ghMaxNumber.
func ghParseNumber(s string) (int, error) {
	if s == "" || len(s) > 10 || !ghAllDigits(s) || s[0] == '0' {
		return 0, fmt.Errorf("%s is not a positive issue or pull request number", Quote(s))
	}
	n, err := strconv.Atoi(s)
	if err != nil || n > ghMaxNumber {
		return 0, fmt.Errorf("%s is not a positive issue or pull request number", Quote(s))
	}
	return n, nil
}

func ghAllDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// ghCheckOwner applies GitHub's account-name rule: 1 to 39 letters, digits and hyphens, not
// starting with a hyphen. An underscore is also allowed, not first, for managed users
// (name_shortcode) and enterprise servers.
func ghCheckOwner(s string) error {
	ok := len(s) >= 1 && len(s) <= 39 && ghIsAlnum(s[0])
	for i := 0; ok && i < len(s); i++ {
		ok = ghIsAlnum(s[i]) || s[i] == '-' || s[i] == '_'
	}
	if !ok {
		return fmt.Errorf("%s is not a GitHub owner name", Quote(s))
	}
	return nil
}

// ghCheckRepo applies GitHub's repository-name rule: 1 to 100 letters, digits, '.', '-' and
// '_', and not "." or "..", which would walk the API path.
func ghCheckRepo(s string) error {
	ok := len(s) >= 1 && len(s) <= 100 && s != "." && s != ".."
	for i := 0; ok && i < len(s); i++ {
		ok = ghIsAlnum(s[i]) || s[i] == '.' || s[i] == '-' || s[i] == '_'
	}
	if !ok {
		return fmt.Errorf("%s is not a GitHub repository name", Quote(s))
	}
	return nil
}

func ghIsAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// ghCheckPath accepts a repository path: relative, '/'-separated, no empty or "." segments, and
// no "..", '\', '%', '?', '#' or control characters anywhere.
// Why: the path ends up in a URL that go-github resolves against the API base, so a ".." segment
// would walk out of /repos/OWNER/REPO/contents/ to any other endpoint; '%' could be decoded
// twice on the way. Test: TestGitHubParseArgs (path rows), TestGitHubDoValidates.
func ghCheckPath(p string) error {
	if p == "" {
		return errors.New("file needs a path")
	}
	if len(p) > 1024 || !utf8.ValidString(p) {
		return fmt.Errorf("path %s is too long or not UTF-8", Quote(p))
	}
	if strings.Contains(p, "..") {
		return fmt.Errorf("path %s contains \"..\"", Quote(p))
	}
	for _, seg := range strings.Split(p, "/") {
		if seg == "" || seg == "." {
			return fmt.Errorf("path %s has an empty or \".\" segment (or a leading or trailing /)", Quote(p))
		}
	}
	for _, r := range p {
		if r < 0x20 || r == 0x7f || unicode.IsControl(r) || strings.ContainsRune(`\%?#`, r) {
			return fmt.Errorf("path %s contains a character hookctl does not send: \\ %% ? # or a control character", Quote(p))
		}
	}
	return nil
}

// ghCheckRef applies git's ref-name rules (git check-ref-format) and refuses spaces, so that a
// ref is a branch, tag or commit and nothing else.
func ghCheckRef(r string) error {
	bad := r == "" || len(r) > 255 || r == "@" || !utf8.ValidString(r) ||
		strings.Contains(r, "..") || strings.Contains(r, "@{") || strings.Contains(r, "//") ||
		strings.HasPrefix(r, "-") || strings.HasPrefix(r, "/") || strings.HasSuffix(r, "/") ||
		strings.HasSuffix(r, ".") || strings.HasSuffix(r, ".lock") ||
		strings.HasPrefix(r, ".") || strings.Contains(r, "/.")
	for i := 0; !bad && i < len(r); i++ {
		c := r[i]
		bad = c <= ' ' || c == 0x7f || strings.IndexByte("~^:?*[\\", c) >= 0
	}
	if bad {
		return fmt.Errorf("ref %s is not a valid branch, tag or commit name", Quote(r))
	}
	return nil
}

// NormalizeGitHubHost checks a bare host name, optionally with a port, and lowercases it;
// github.com and its API and www names become "" (the default). Schemes, paths, user
// information, IPv6 literals and anything else are refused.
func NormalizeGitHubHost(h string) (string, error) {
	h = strings.ToLower(h)
	switch h {
	case "github.com", "api.github.com", "www.github.com":
		return "", nil
	}
	name, port, hasPort := strings.Cut(h, ":")
	ok := len(h) <= 260 && name != "" && len(name) <= 253
	if hasPort {
		p, err := strconv.Atoi(port)
		ok = ok && err == nil && ghAllDigits(port) && port[0] != '0' && p <= 65535
	}
	for _, label := range strings.Split(name, ".") {
		ok = ok && label != "" && len(label) <= 63 && label[0] != '-' && label[len(label)-1] != '-'
		for i := 0; ok && i < len(label); i++ {
			ok = ghIsAlnum(label[i]) || label[i] == '-'
		}
	}
	if !ok {
		return "", fmt.Errorf("%s is not a host name (HOST or HOST:PORT, nothing else)", Quote(h))
	}
	return h, nil
}

// Quote quotes a short prefix of untrusted input for an error message.
func Quote(s string) string {
	const max = 60
	if len(s) > max {
		return strconv.Quote(clip.Prefix(s, max)) + "…"
	}
	return strconv.Quote(s)
}

// Source names an operation for Document.Source and the audit, e.g.
// "github issue-comments owner/repo#12" or "github file ghe.example.com:owner/repo:docs/a.md@v1".
func (op *GitHubOp) Source() string {
	var b strings.Builder
	b.WriteString("github ")
	b.WriteString(op.Op)
	b.WriteByte(' ')
	if op.Host != "" {
		b.WriteString(op.Host)
		b.WriteByte(':')
	}
	if op.Owner != "" || op.Repo != "" {
		b.WriteString(op.Owner + "/" + op.Repo)
	}
	spec, _ := ghOp(op.Op)
	switch spec.operands {
	case ghNumbered:
		if op.Number != 0 {
			b.WriteString("#" + strconv.Itoa(op.Number))
		}
	case ghRunID:
		b.WriteString(" run " + strconv.Itoa(op.Number))
	case ghFilePath, ghAPIPath, ghRepoRef:
		if op.Path != "" {
			b.WriteString(":" + op.Path)
		}
		if op.Ref != "" {
			b.WriteString("@" + op.Ref)
		}
	}
	for _, f := range []struct{ name, value string }{{"state", op.State}, {"label", strings.Join(op.Labels, ",")},
		{"author", op.Author}, {"branch", op.Branch}, {"query", strings.Join(op.Query, "&")},
		{"search", op.Search}, {"accept", op.Accept}} {
		if f.value != "" {
			b.WriteString(" " + f.name + "=" + f.value)
		}
	}
	if op.Limit != 0 {
		b.WriteString(" limit=" + strconv.Itoa(op.Limit))
	}
	if op.Pages != 0 {
		b.WriteString(" pages=" + strconv.Itoa(op.Pages))
	}
	return b.String()
}

// Args prints op as `hookctl retrieve github` arguments that ParseGitHubArgs reads back into the
// same operation: for people (a refusal's hint, the research model's tool) and the round-trip
// tests. The hook hands an operation on as JSON (DecodeGitHubOp), never as these.
func (op *GitHubOp) Args() []string {
	args := []string{op.Op}
	if op.Host != "" {
		args = append(args, "--host", op.Host)
	}
	if op.Ref != "" {
		args = append(args, "--ref", op.Ref)
	}
	for _, f := range []struct{ flag, value string }{{"--state", op.State}, {"--author", op.Author},
		{"--branch", op.Branch}, {"--search", op.Search}, {"--accept", op.Accept}} {
		if f.value != "" {
			args = append(args, f.flag+"="+f.value)
		}
	}
	for _, l := range op.Labels {
		args = append(args, "--label="+l)
	}
	for _, q := range op.Query {
		args = append(args, "--query="+q)
	}
	if op.Limit != 0 {
		args = append(args, "--limit="+strconv.Itoa(op.Limit))
	}
	if op.Pages != 0 {
		args = append(args, "--pages="+strconv.Itoa(op.Pages))
	}
	spec, _ := ghOp(op.Op)
	if spec.operands == ghNoRepo {
		return args
	}
	args = append(args, "--", op.Owner+"/"+op.Repo)
	switch spec.operands {
	case ghNumbered:
		if op.Number != 0 {
			args = append(args, strconv.Itoa(op.Number))
		}
	case ghRunID:
		args = append(args, strconv.Itoa(op.Number))
	case ghFilePath, ghAPIPath:
		args = append(args, op.Path)
	case ghRepoRef:
		if op.Path != "" { // a snapshot's directory comes only from a /tree/ URL
			u := "https://" + op.Host
			if op.Host == "" {
				u = "https://github.com"
			}
			args = append(args[:0], op.Op)
			if op.Host != "" {
				args = append(args, "--host", op.Host)
			}
			return append(args, u+"/"+op.Owner+"/"+op.Repo+"/tree/"+op.Ref+"/"+op.Path)
		}
	}
	return args
}

// DecodeGitHubOp reads an operation's JSON form (what the hook's rewrite hands `hookctl
// retrieve github --op`) strictly: no unknown field, no trailing data, and Validate.
// Why: the judge parsed gh's arguments once into the operation; reading it back is a decode and
// a check, not a second parse of an argument grammar. Test: TestDecodeGitHubOp.
func DecodeGitHubOp(text string) (*GitHubOp, error) { return decodeOp[GitHubOp](text) }

// EncodeGitHubOp is DecodeGitHubOp's inverse.
func EncodeGitHubOp(op *GitHubOp) string {
	b, _ := json.Marshal(op) // strings, ints and string slices: cannot fail
	return string(b)
}

// ParseGitHubURL reads a github.com (or enterprise) web URL into operation opName, as a gh
// argument that is a URL names one: the judge's one parse of it.
func ParseGitHubURL(opName, raw string) (*GitHubOp, error) {
	spec, ok := ghOp(opName)
	if !ok {
		return nil, fmt.Errorf("unknown operation %s", Quote(opName))
	}
	op := &GitHubOp{Op: opName}
	if err := ghFillFromURL(op, spec, raw); err != nil {
		return nil, err
	}
	return op, nil
}
