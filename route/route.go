// Package route is hookctl's network router. Network access from the shell goes through hookctl's
// retriever, in every mode: raw web and GitHub content must never reach an agent that can read
// local files. A shell command that is exactly one plain read — a curl or wget GET, an httpie GET,
// gh issue/pr view, gh pr diff, a gh api GET — is answered by `hookctl retrieve` instead:
// RouteNetwork returns the Route, whose operation (a retriever.FetchOp or retriever.GitHubOp) this
// parse made, and the hook rewrites the command into `hookctl retrieve KIND --op JSON`, which
// decodes and checks the operation and parses no argument of the command again
// (TestRoutedReadReachesRetrieveAsJudged, cmd/hookctl). Every other way of reaching the network —
// uploads, POSTs, output to files, nc, ssh, scp, rsync to a host, a git clone of a URL — is refused
// with a pointer to hookctl retrieve: by RouteNetwork when it is the whole command, and, when it is
// part of a larger one (a pipeline, a substitution, a function, a wrapper, a `sh -c` string), by
// the read-only allowlist, which names no network program, or by the edit guard's network rule
// (programs/editguard), which reads the tables below.
//
// In edit mode, git may still fetch, pull and push the project's own remotes by name: they
// move the project's own history, not content for the agent to read. Package managers (npm,
// pip, go) fetch from their registries unmediated; docs/residual-risks.md says so.
//
// It runs in the hook process (and `hookctl check`), which links no network code: it only reads
// words, and net/url only parses.
//
// Refuses: the forms above. Test: TestRouteNetwork (route_test.go); editguard's TestNetwork.
package route

import (
	"net/url"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/hookctl/hookctl/internal/clip"
	"github.com/hookctl/hookctl/internal/wordlist"
	"github.com/hookctl/hookctl/lexer"
	"github.com/hookctl/hookctl/programs"
	"github.com/hookctl/hookctl/retriever"

	"mvdan.cc/sh/v3/syntax"
)

// Route is a shell command the retriever answers instead.
type Route struct {
	Kind string // "fetch", "github" or "repo" (a snapshot)
	// Fetch is the page (fetch), as this parse of the command read it: the hook hands it on to
	// `hookctl retrieve fetch --op` whole, as it does GitHub's operations.
	Fetch *retriever.FetchOp
	// GitHub is the operation (github, repo), as this parse of the command made it: the hook
	// completes it and hands it on to `hookctl retrieve` whole, never as argv to parse again.
	GitHub *retriever.GitHubOp
	// RepoMissing: the command named no repository, and GitHub's Owner and Repo are empty for
	// the hook to fill with the one gh would read — the client's GH_REPO, else the project's git
	// remote named Remote ("" for gh's choice among them). The retriever reads no files; the
	// hook can.
	RepoMissing bool
	Remote      string
	// Dir is the directory a `cd DIR &&` before the read moved to: the repository and branch a
	// read that names none means are that directory's, not the session's.
	Dir string
	// CurrentBranch: the command names no pull request, meaning the current branch's; the hook
	// adds --branch with the branch the project's HEAD is on.
	CurrentBranch bool
	// ReadOnlyOnly: answered so only where the session is read-only; in edit mode the command
	// is left to the edit guard (git reaching the project's own remote).
	ReadOnlyOnly bool
	// Need is what the command's own flags ask for (gh --json fields, a --jq filter, a head
	// -N it is piped to), added to the agent's description to make the distiller's need.
	Need string
}

// netPrograms are programs that reach the network. Those with a router can be answered by the
// retriever when used as a plain read; the rest are refused outright. It is a slice, not a map,
// so that the compiler lays it out rather than every hook process building it at start-up;
// lookupNetProgram searches it. TestNetProgramsListedOnce checks that no name is listed twice.
var netPrograms = []struct {
	name  string
	route func(args []string) (*Route, string)
}{
	{"curl", routeCurl}, {"wget", routeWget}, {"http", routeHTTPie}, {"https", routeHTTPie}, {"xh", routeHTTPie},
	{"gh", routeGH},
	{"nc", nil}, {"ncat", nil}, {"netcat", nil}, {"socat", nil}, {"ssh", nil}, {"scp", nil}, {"sftp", nil},
	{"ftp", nil}, {"tftp", nil}, {"telnet", nil}, {"aria2c", nil}, {"lynx", nil}, {"w3m", nil}, {"links", nil},
	{"elinks", nil}, {"fetch", nil}, {"curlie", nil}, {"httpx", nil}, {"wget2", nil}, {"lftp", nil},
}

// lookupNetProgram returns a network program's router (nil for one the retriever does not
// answer), and whether the program is a network program at all.
func lookupNetProgram(name string) (route func(args []string) (*Route, string), ok bool) {
	for _, p := range netPrograms {
		if p.name == name {
			return p.route, true
		}
	}
	return nil, false
}

// NetworkProgram reports whether a program (by base name) reaches the network, and whether
// hookctl's retriever answers a plain read made with it standing alone.
func NetworkProgram(name string) (isNet, routed bool) {
	r, ok := lookupNetProgram(name)
	return ok, r != nil
}

// NetworkPrograms lists the network programs, sorted.
func NetworkPrograms() []string {
	out := make([]string, 0, len(netPrograms))
	for _, p := range netPrograms {
		out = append(out, p.name)
	}
	sort.Strings(out)
	return out
}

// NetworkUse reports whether a command reaches the network, judged from its program's base
// name and literal arguments: a network program, git reaching a host that is not one of the
// project's named remotes, or rsync to or from a host.
func NetworkUse(prog string, args []string) bool {
	isNet, _ := NetworkProgram(prog)
	return isNet || networkGit(prog, args) || networkRsync(prog, args)
}

// RouteNetwork decides what to do with a shell command that is exactly one network command:
// one statement, one simple command, no redirection, no NAME=VALUE prefix. (nil, nil) for
// anything else; a Route when it is a plain read the retriever can answer; a Refusal otherwise.
// Network use inside a larger command is the mode's own judge's: the read-only allowlist names
// no network program, and the edit guard refuses it. Words are read with lexer.Text, as every
// judge reads them: `cu\rl`, `"cu"rl` and `$'curl'` are curl here too.
func RouteNetwork(cl *lexer.CommandLine) (*Route, *programs.Refusal) {
	f, err := cl.Tree()
	if err != nil || len(f.Stmts) != 1 {
		return nil, nil
	}
	st := f.Stmts[0]
	dir, rest, hasCd := cdPrefix(st)
	if hasCd {
		st = rest
	}
	r, ref := routeStmt(st)
	if r != nil && hasCd {
		r.Dir = dir
	}
	return r, ref
}

// cdPrefix splits `cd DIR && COMMAND`, a literal DIR, into the directory and the command.
// Why: agents move into a checkout before a gh read (`cd ../api && gh pr view 12`); the read
// means that checkout's repository, and the hook, which can read files, finds it there.
// Test: TestRouteGitHubPrefixes.
func cdPrefix(st *syntax.Stmt) (string, *syntax.Stmt, bool) {
	bin, ok := st.Cmd.(*syntax.BinaryCmd)
	if !ok || bin.Op != syntax.AndStmt || len(st.Redirs) > 0 || st.Negated || st.Background || st.Coprocess || st.Disown {
		return "", nil, false
	}
	cd, ok := bin.X.Cmd.(*syntax.CallExpr)
	if !ok || len(cd.Assigns) > 0 || len(bin.X.Redirs) > 0 || bin.X.Negated || len(cd.Args) != 2 {
		return "", nil, false
	}
	words, literal, ok := callWords(cd)
	if !ok || !literal || words[0] != "cd" || words[1] == "" || strings.HasPrefix(words[1], "-") {
		return "", nil, false
	}
	return words[1], bin.Y, true
}

// routeStmt routes one statement: a gh read piped to readers, or one network command.
func routeStmt(st *syntax.Stmt) (*Route, *programs.Refusal) {
	if r, ref, ok := routeGHPiped(st); ok {
		return r, ref
	}
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) == 0 {
		return nil, nil
	}
	words, literal, ok := callWords(call)
	if !ok {
		return nil, nil // a program name that is not a literal: the mode's judge decides
	}
	prog := path.Base(words[0])
	plain := literal && len(st.Redirs) == 0 && !st.Negated && !st.Background && !st.Coprocess && !st.Disown && words[0] == prog
	if prog == "git" {
		// GH_CONFIG_DIR= chooses gh's login, which a read answered here never uses: dropped.
		_, configDirOnly := ghAssigns(call.Assigns)
		if r, ok := routeGitLsRemote(words[1:]); ok {
			if !plain || !configDirOnly {
				return nil, nil // not plainly git ls-remote: the mode's judge decides
			}
			return r, nil
		}
		if r, ok := routeGitClone(words[1:]); ok && plain && len(call.Assigns) == 0 {
			return r, nil
		}
	}
	if !NetworkUse(prog, words[1:]) {
		return nil, nil
	}
	router, _ := lookupNetProgram(prog)
	if router == nil {
		return nil, &programs.Refusal{Program: prog, What: "`" + prog + "` reaches the network outside hookctl's retriever",
			Hint: RetrieveHint}
	}
	// gh reads GH_REPO from its environment; written inline, it is part of the command judged
	// here, and names the repository as -R would. GH_CONFIG_DIR= chooses gh's login, which a
	// read answered by the retriever never uses, so it is dropped. No other assignment is let
	// through.
	envRepo, assignsOK := "", len(call.Assigns) == 0
	if prog == "gh" {
		envRepo, assignsOK = ghAssigns(call.Assigns)
	}
	if !plain || !assignsOK {
		return nil, &programs.Refusal{Program: prog, What: "network reads must run by themselves, as a plain `" + prog + " URL`, so that hookctl's retriever can answer them",
			Hint: RetrieveHint}
	}
	var r *Route
	var why string
	if prog == "gh" {
		r, why = routeGHWith(words[1:], envRepo)
	} else {
		r, why = router(words[1:])
	}
	if r == nil {
		return nil, &programs.Refusal{Program: prog, What: why, Hint: RetrieveHint}
	}
	return r, nil
}

// ghAssigns reads the assignments before a gh read: at most one GH_REPO=OWNER/REPO and one
// GH_CONFIG_DIR=…, literal values. repo is GH_REPO's; ok is false for any other assignment.
func ghAssigns(as []*syntax.Assign) (repo string, ok bool) {
	seen := map[string]bool{}
	for _, a := range as {
		if a.Name == nil || a.Append || a.Naked || a.Index != nil || a.Array != nil || a.Value == nil || seen[a.Name.Value] {
			return "", false
		}
		seen[a.Name.Value] = true
		v, _, lit := lexer.Text(a.Value)
		switch {
		case !lit || v == "":
			return "", false
		case a.Name.Value == "GH_REPO":
			repo = v
		case a.Name.Value == "GH_CONFIG_DIR":
		default:
			return "", false
		}
	}
	return repo, true
}

// callWords reads a call's words with lexer.Text, as every judge reads them. ok is false when
// the program name is not a literal; literal is false when any word is not.
func callWords(call *syntax.CallExpr) (words []string, literal, ok bool) {
	words = make([]string, len(call.Args))
	literal = true
	for i, w := range call.Args {
		// The router runs none of these words: a plain read is rewritten into hookctl
		// retrieve, with the URL quoted, so a ? in it is text, not a glob.
		v, _, isLit := lexer.Text(w)
		if i == 0 && !isLit {
			return nil, false, false
		}
		words[i], literal = v, literal && isLit
	}
	return words, literal, true
}

// routeGHPiped answers a gh read piped to readers — `gh pr diff N | head -200`, `gh run view N
// --log-failed | tail -50`, `… | grep -i error | tail -20` — as the read, with what each reader
// keeps made part of the need. Anything else on the right of a pipe is the mode's judge's.
// Why: agents cut long diffs and logs short this way; the distiller answers the same need from
// the whole of it, and no gh output reaches a reader or the agent. Test: TestRouteGitHubReads.
func routeGHPiped(st *syntax.Stmt) (*Route, *programs.Refusal, bool) {
	var stages []*syntax.Stmt
	var flatten func(s *syntax.Stmt) bool
	flatten = func(s *syntax.Stmt) bool {
		if len(s.Redirs) > 0 || s.Negated || s.Background || s.Coprocess || s.Disown {
			return false
		}
		if bin, ok := s.Cmd.(*syntax.BinaryCmd); ok {
			return bin.Op == syntax.Pipe && flatten(bin.X) && flatten(bin.Y)
		}
		stages = append(stages, s)
		return true
	}
	if bin, ok := st.Cmd.(*syntax.BinaryCmd); !ok || bin.Op != syntax.Pipe || !flatten(st) || len(stages) > 4 {
		return nil, nil, false
	}
	lc, ok := stages[0].Cmd.(*syntax.CallExpr)
	if !ok {
		return nil, nil, false
	}
	lw, llit, ok := callWords(lc)
	envRepo, assignsOK := ghAssigns(lc.Assigns)
	if !ok || !llit || !assignsOK || lw[0] != "gh" {
		return nil, nil, false
	}
	var kept []string
	for _, rs := range stages[1:] {
		rc, ok := rs.Cmd.(*syntax.CallExpr)
		if !ok || len(rc.Assigns) > 0 {
			return nil, nil, false
		}
		rw, rlit, ok := callWords(rc)
		if !ok || !rlit {
			return nil, nil, false
		}
		what, ok := readerKeeps(rw)
		if !ok {
			return nil, nil, false
		}
		kept = append(kept, what)
	}
	r, why := routeGHWith(lw[1:], envRepo)
	if r == nil {
		return nil, &programs.Refusal{Program: "gh", What: why, Hint: RetrieveHint}, true
	}
	r.Need = strings.TrimPrefix(r.Need+"; gh's output was piped to readers that keep "+strings.Join(kept, ", then "), "; ")
	return r, nil, true
}

// readerKeeps says what a reader at the end of a pipe keeps of gh's output, in words for the
// need: head and tail with a count, grep with a literal pattern and the flags that choose lines,
// wc -l. Anything else is not a reader (false).
func readerKeeps(w []string) (string, bool) {
	count := func(args []string) (string, bool) {
		switch {
		case len(args) == 0:
			return "10", true
		case len(args) == 1 && strings.HasPrefix(args[0], "-") && allDigits(args[0][1:]):
			return args[0][1:], true
		case len(args) == 1 && strings.HasPrefix(args[0], "-n") && allDigits(args[0][2:]):
			return args[0][2:], true
		case len(args) == 1 && strings.HasPrefix(args[0], "--lines=") && allDigits(args[0][8:]):
			return args[0][8:], true
		case len(args) == 2 && (args[0] == "-n" || args[0] == "--lines") && allDigits(args[1]):
			return args[1], true
		}
		return "", false
	}
	switch w[0] {
	case "head":
		if n, ok := count(w[1:]); ok {
			return "the first " + n + " lines", true
		}
	case "tail":
		if n, ok := count(w[1:]); ok {
			return "the last " + n + " lines", true
		}
	case "wc":
		if len(w) == 2 && w[1] == "-l" {
			return "the number of lines", true
		}
	case "grep":
		var flags []string
		pattern := ""
		for i := 1; i < len(w); i++ {
			a := w[i]
			switch {
			case a == "-e" && i+1 < len(w) && pattern == "":
				i++
				pattern = w[i]
			case a == "-A" || a == "-B" || a == "-C":
				if i+1 >= len(w) || !allDigits(w[i+1]) {
					return "", false
				}
				flags = append(flags, a+" "+w[i+1])
				i++
			case len(a) > 2 && (strings.HasPrefix(a, "-A") || strings.HasPrefix(a, "-B") || strings.HasPrefix(a, "-C")) && allDigits(a[2:]):
				flags = append(flags, a)
			case strings.HasPrefix(a, "-") && len(a) > 1 && strings.Trim(a[1:], "ivnEFwxcoh") == "":
				flags = append(flags, a)
			case !strings.HasPrefix(a, "-") && pattern == "":
				pattern = a
			default:
				return "", false // a file operand, or an option that reads or writes one
			}
		}
		if pattern == "" {
			return "", false
		}
		return "the lines matching " + strconv.Quote(pattern) + strings.TrimSuffix(" (grep "+strings.Join(flags, " ")+")", " (grep )"), true
	}
	return "", false
}

// routeGitLsRemote answers `git ls-remote [--heads|--tags] [REMOTE|GITHUB-URL] [PATTERN…]` as a
// read of the refs (or branches, or tags) of the GitHub repository behind a named remote (the
// hook finds it: Route.Remote) or named by a github.com URL. Only in read-only and review mode
// (ReadOnlyOnly): in edit mode git reaches the project's own remotes itself. Any other option,
// a path, or another host's URL is not routed (networkGit refuses a URL).
func routeGitLsRemote(args []string) (*Route, bool) {
	if len(args) == 0 || args[0] != "ls-remote" {
		return nil, false
	}
	heads, tags := false, false
	remote := ""
	var patterns []string
	for _, a := range args[1:] {
		switch {
		case a == "--heads" || a == "-h" || a == "--branches" || a == "-b":
			heads = true
		case a == "--tags" || a == "-t":
			tags = true
		case a == "--refs" || a == "-q" || a == "--quiet":
		case strings.HasPrefix(a, "-"):
			return nil, false
		case remote == "":
			remote = a
		default:
			if strings.ContainsAny(a, "\\") || len(patterns) == 8 {
				return nil, false
			}
			patterns = append(patterns, a)
		}
	}
	op := "refs"
	switch {
	case heads && !tags:
		op = "branches"
	case tags && !heads:
		op = "tags"
	}
	r := &Route{Kind: "github", ReadOnlyOnly: true, GitHub: &retriever.GitHubOp{Op: op}}
	what := "the refs"
	if op != "refs" {
		what = "the " + op
	}
	if remote == "" {
		remote = "origin"
	}
	if LooksLikeURL(remote) || looksLikeRemoteURL(remote) || strings.ContainsAny(remote, "/\\") {
		gh, ok := githubURLRepo(remote)
		if !ok {
			return nil, false
		}
		gh.Op = op
		r.GitHub = gh
		r.Need = "git ls-remote was asked for " + what + " of " + gh.Owner + "/" + gh.Repo
	} else {
		r.RepoMissing, r.Remote = true, remote
		r.Need = "git ls-remote was asked for " + what + " of the remote " + remote
	}
	if len(patterns) > 0 {
		r.Need += ", only those matching " + strings.Join(patterns, " ")
	}
	return r, true
}

// githubURLRepo reads a github.com repository URL as git takes one — https://github.com/O/R[.git],
// git@github.com:O/R[.git], ssh://git@github.com/O/R[.git] — into an operation's repository.
func githubURLRepo(u string) (*retriever.GitHubOp, bool) {
	rest := ""
	switch {
	case strings.HasPrefix(u, "https://github.com/"):
		rest = u[len("https://github.com/"):]
	case strings.HasPrefix(u, "git@github.com:"):
		rest = u[len("git@github.com:"):]
	case strings.HasPrefix(u, "ssh://git@github.com/"):
		rest = u[len("ssh://git@github.com/"):]
	default:
		return nil, false
	}
	rest = strings.TrimSuffix(strings.TrimSuffix(rest, "/"), ".git")
	owner, repo, ok := strings.Cut(rest, "/")
	if !ok || strings.ContainsAny(repo, "/?#") {
		return nil, false
	}
	op := &retriever.GitHubOp{Op: "repo", Owner: owner, Repo: repo}
	return op, op.Validate() == nil
}

// routeGitClone answers `git clone GITHUB-URL [DIR]` in read-only and review mode (ReadOnlyOnly)
// as a snapshot of the ref it would check out, read in hookctl's quarantine: nothing is written.
// Options that change only how much history comes (--depth, --single-branch, --filter, -q) are
// dropped; -b/--branch names the ref; any other option, and any other host, is not routed
// (networkGit refuses it).
// Why: a read-only agent clones to read code, which the snapshot answers; a clone would write a
// work tree and run nothing of ours over it. Test: TestRouteGitClone.
func routeGitClone(args []string) (*Route, bool) {
	if len(args) < 2 || args[0] != "clone" {
		return nil, false
	}
	var ops []string
	ref := ""
	for i := 1; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--depth" || a == "-b" || a == "--branch":
			if i+1 >= len(args) {
				return nil, false
			}
			if a != "--depth" {
				ref = args[i+1]
			}
			i++
		case strings.HasPrefix(a, "--depth=") || strings.HasPrefix(a, "--filter=") || strings.HasPrefix(a, "--branch="):
			if v, ok := strings.CutPrefix(a, "--branch="); ok {
				ref = v
			}
		case a == "--single-branch" || a == "--no-single-branch" || a == "-q" || a == "--quiet" || a == "--no-tags" ||
			a == "--recurse-submodules" || a == "--shallow-submodules" || a == "--progress":
		case strings.HasPrefix(a, "-"):
			return nil, false
		default:
			ops = append(ops, a)
		}
	}
	if len(ops) == 0 || len(ops) > 2 {
		return nil, false
	}
	op, ok := githubURLRepo(ops[0])
	if !ok {
		return nil, false
	}
	op.Op, op.Ref = "snapshot", ref
	if op.Validate() != nil {
		return nil, false
	}
	return &Route{Kind: "repo", GitHub: op, ReadOnlyOnly: true,
		Need: "git clone was asked for this repository; it was read as a snapshot in hookctl's quarantine, and nothing was written"}, true
}

// RetrieveHint tells the agent how to reach the web through hookctl instead.
const RetrieveHint = "web and GitHub content comes through the quarantined retriever: " +
	"hookctl retrieve fetch URL --need 'what you need', hookctl retrieve search 'query' --need '…', " +
	"hookctl retrieve github issue|pr|pr-diff|pr-checks|issue-list|pr-list|runs|run-log-failed|file|api-get|… OWNER/REPO … --need '…', " +
	"hookctl retrieve repo OWNER/REPO[@REF] --need '…' (a repository's code); " +
	"describe exactly what you need and put nothing in it you would not send to a third party"

// networkGit reports git commands that reach a host other than the project's named remotes:
// clone, and fetch, pull, push, ls-remote or archive --remote given a URL.
func networkGit(prog string, args []string) bool {
	if prog != "git" {
		return false
	}
	i := 0
	for i < len(args) && strings.HasPrefix(args[i], "-") {
		switch args[i] {
		case "-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env", "--super-prefix", "--exec-path":
			i++
		}
		i++
	}
	if i >= len(args) {
		return false
	}
	rest := args[i+1:]
	switch args[i] {
	case "clone":
		return true
	case "fetch", "pull", "push", "ls-remote", "archive", "submodule":
		// The repository is the first operand, and may be written host:path; the refspecs
		// after it (src:dst, +ref) may hold a colon too, so only a scheme://… or git@… there
		// counts. An option's separate value may be read as the repository: that fails closed.
		first := true
		for k := 0; k < len(rest); k++ {
			a := rest[k]
			switch {
			case a == "--":
				first = false
				if k+1 < len(rest) && looksLikeRemoteURL(rest[k+1]) {
					return true
				}
			case strings.HasPrefix(a, "--repo=") || strings.HasPrefix(a, "--remote="):
				if _, v, _ := strings.Cut(a, "="); looksLikeRemoteURL(v) {
					return true
				}
			case a == "--repo" || a == "--remote":
				if k+1 < len(rest) && looksLikeRemoteURL(rest[k+1]) {
					return true
				}
			case strings.HasPrefix(a, "-"), args[i] == "submodule" && first && a == "add":
			case LooksLikeURL(a) || first && looksLikeRemoteURL(a):
				return true
			default:
				first = false
			}
		}
	}
	return false
}

// networkRsync reports rsync with a remote operand (host:path, rsync://).
func networkRsync(prog string, args []string) bool {
	if prog != "rsync" {
		return false
	}
	for _, a := range args {
		if !strings.HasPrefix(a, "-") && (strings.Contains(a, "://") || strings.Contains(a, ":") && !strings.HasPrefix(a, "/") && !strings.HasPrefix(a, ".")) {
			return true
		}
	}
	return false
}

// LooksLikeURL reports whether a word names a resource on another host: scheme://…, or
// git@host:path.
func LooksLikeURL(a string) bool {
	if strings.HasPrefix(a, "git@") && strings.Contains(a, ":") {
		return true
	}
	scheme, rest, ok := strings.Cut(a, "://")
	if !ok || scheme == "" || rest == "" {
		return false
	}
	for _, c := range scheme {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '+' || c == '.' || c == '-') {
			return false
		}
	}
	return true
}

func looksLikeRemoteURL(a string) bool {
	if strings.Contains(a, "://") || strings.HasPrefix(a, "git@") {
		return true
	}
	host, rest, ok := strings.Cut(a, ":")
	return ok && host != "" && !strings.ContainsAny(host, "/") && rest != "" && !strings.HasPrefix(a, "-")
}

// fetchRoute routes a fetch of u, if it is an http or https URL with a host (FetchOp.Validate,
// which `hookctl retrieve` checks again).
func fetchRoute(u string) (*Route, bool) {
	op := &retriever.FetchOp{URL: u}
	if op.Validate() != nil {
		return nil, false
	}
	return &Route{Kind: "fetch", Fetch: op}, true
}

// Options of the network programs that change nothing a retrieval would do differently
// (verbosity, redirects, timeouts, compression): accepted and dropped. Anything else is refused.
// Space-separated lists, read with listed, so that nothing is built when the hook starts.
const (
	curlDropFlags  = "-s --silent -S --show-error -L --location -f --fail --fail-with-body --compressed -g --globoff -v --verbose -k --insecure -N --no-buffer -#  --progress-bar -sS -sL -sSL -fsSL -fsS -fL -sf -sfL -Ls -LsS"
	curlDropValued = "-A --user-agent -m --max-time --connect-timeout --retry --retry-delay --retry-max-time -w --write-out"
	wgetDropFlags  = "-q --quiet -nv --no-verbose -S --server-response --no-check-certificate -qO-"
	wgetDropValued = "-T --timeout -t --tries -U --user-agent --wait"
)

// routeCurl answers `curl [harmless flags] URL` and `curl -X GET URL`. Writing to a file, sending
// data, uploading, custom headers (they carry credentials), cookies and config files are refused.
func routeCurl(args []string) (*Route, string) {
	var target string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-X" || a == "--request":
			if i+1 >= len(args) || !strings.EqualFold(args[i+1], "GET") {
				return nil, "curl may only GET; other methods send data"
			}
			i++
		case strings.HasPrefix(a, "--request=") || strings.HasPrefix(a, "-X") && len(a) > 2:
			if v := strings.TrimPrefix(strings.TrimPrefix(a, "--request="), "-X"); !strings.EqualFold(v, "GET") {
				return nil, "curl may only GET; other methods send data"
			}
		case wordlist.Has(curlDropFlags, a):
		case wordlist.Has(curlDropValued, a):
			i++
		case strings.HasPrefix(a, "--") && wordlist.Has(curlDropValued, strings.SplitN(a, "=", 2)[0]):
		case a == "--url":
			if i+1 >= len(args) {
				return nil, "curl --url needs a URL"
			}
			i++
			if target != "" {
				return nil, "one URL at a time"
			}
			target = args[i]
		case strings.HasPrefix(a, "-"):
			return nil, "curl `" + clip.Short(a) + "` is not a plain read (it writes a file, sends data or credentials, or changes the request)"
		default:
			if target != "" {
				return nil, "one URL at a time"
			}
			target = a
		}
	}
	r, ok := fetchRoute(target)
	if !ok {
		return nil, "curl needs one http or https URL"
	}
	return r, ""
}

// routeWget answers `wget -qO- URL` (output to standard output). Plain `wget URL` saves a file
// and is refused, as are posts, recursion and input lists.
func routeWget(args []string) (*Route, string) {
	var target string
	stdout := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-qO-" || a == "-O-" || a == "--output-document=-":
			stdout = true
		case a == "-O" || a == "--output-document":
			if i+1 >= len(args) || args[i+1] != "-" {
				return nil, "wget -O FILE writes a file"
			}
			stdout = true
			i++
		case wordlist.Has(wgetDropFlags, a):
		case wordlist.Has(wgetDropValued, a):
			i++
		case strings.HasPrefix(a, "--") && wordlist.Has(wgetDropValued, strings.SplitN(a, "=", 2)[0]):
		case strings.HasPrefix(a, "-"):
			return nil, "wget `" + clip.Short(a) + "` is not a plain read"
		default:
			if target != "" {
				return nil, "one URL at a time"
			}
			target = a
		}
	}
	if !stdout {
		return nil, "wget URL saves a file"
	}
	r, ok := fetchRoute(target)
	if !ok {
		return nil, "wget needs one http or https URL"
	}
	return r, ""
}

// routeHTTPie answers `http [GET] URL`; request items (key=value, header:value) send data or
// credentials and are refused.
func routeHTTPie(args []string) (*Route, string) {
	var target string
	for _, a := range args {
		switch {
		case a == "GET" && target == "":
		case a == "-b" || a == "--body" || a == "-F" || a == "--follow" || a == "--print=b" || a == "-pb":
		case strings.HasPrefix(a, "-"):
			return nil, "httpie `" + clip.Short(a) + "` is not a plain read"
		case target == "":
			target = a
		default:
			return nil, "request items send data or headers; only a plain GET of one URL is answered"
		}
	}
	r, ok := fetchRoute(target)
	if !ok {
		if !strings.Contains(target, "://") && target != "" {
			r, ok = fetchRoute("https://" + target)
		}
		if !ok {
			return nil, "needs one http or https URL"
		}
	}
	return r, ""
}

// gh's reads, and the typed operation of `hookctl retrieve github` that answers each. What gh
// would print is answered by the retriever's distiller from the same content; the flags that
// shape gh's output (--json fields, --jq filters, --name-only, …) become part of the need
// (Route.Need), since the distiller, not jq, reads the content.
//
// Why: in read-only mode every gh read was refused, and agents fell back to asking the user to
// paste CI logs and PR lists (issue 10), and then the searches, pages, media types and refs
// they typed (issue 29). What: the forms ghCommands lists and gh api's GETs, with the repository
// from -R, an inline GH_REPO=, or (Route.RepoMissing) the hook's: the client's GH_REPO, else
// the project's git remote. This parse makes the operation (retriever.GitHubOp); the hook
// completes and checks it and hands it on whole. Every write — gh pr merge, gh api -X POST,
// -f/-F without -X GET (a POST), --input, --web, gh run rerun — and every flag not listed is
// refused, with what to do instead.
// Test: TestRouteGitHubReads, TestRouteGitHubWritesRefused (route_test.go).

// ghCommand is one gh read: its flags, and how its operands and flags make an operation.
type ghCommand struct {
	noun, verb string
	// flags are the boolean flags it takes; valued the flags with a value. Each name is listed
	// with its short form, if any, as "long/short".
	flags, valued string
	route         func(c *ghCall) (*Route, string)
}

// ghCall is a gh read as parsed: its operands and the flags given, by long name.
type ghCall struct {
	repo     string
	operands []string
	bools    map[string]bool
	values   map[string][]string
	need     []string
}

func (c *ghCall) value(name string) string {
	if v := c.values[name]; len(v) > 0 {
		return v[len(v)-1]
	}
	return ""
}

// ghShaping are the output-shaping flags every read takes; they go into the need.
const ghShaping = "json jq/q template/t"

var ghCommands = []ghCommand{
	{"issue", "view", "comments/c", "", routeGHIssueView},
	{"pr", "view", "comments/c", "", routeGHPRView},
	{"pr", "diff", "name-only patch", "color", routeGHPRDiff},
	{"pr", "checks", "required", "", routeGHPRChecks},
	{"pr", "list", "", "state/s limit/L author/A label/l head/H search/S", routeGHPRList},
	{"issue", "list", "", "state/s limit/L author/A label/l search/S", routeGHIssueList},
	{"run", "list", "", "limit/L branch/b", routeGHRunList},
	{"run", "view", "log log-failed verbose/v exit-status", "", routeGHRunView},
	{"release", "list", "exclude-drafts exclude-pre-releases", "limit/L", routeGHReleaseList},
}

// ghUsage says which gh reads are answered, for refusals.
const ghUsage = "hookctl answers gh issue view|list, gh pr view|diff|checks|list (with --search), gh run list|view, gh release list, " +
	"gh api GETs under repos/OWNER/REPO and of search/issues"

// routeGH answers gh's reads as typed GitHub operations; everything else gh does is refused.
func routeGH(args []string) (*Route, string) {
	return routeGHWith(args, "")
}

// routeGHWith is routeGH with the repository an inline GH_REPO= named.
func routeGHWith(args []string, envRepo string) (*Route, string) {
	if len(args) >= 1 && args[0] == "api" {
		return routeGHAPI(args[1:], envRepo)
	}
	if len(args) < 2 {
		return nil, ghUsage
	}
	var cmd *ghCommand
	for i := range ghCommands {
		if ghCommands[i].noun == args[0] && ghCommands[i].verb == args[1] {
			cmd = &ghCommands[i]
		}
	}
	if cmd == nil {
		what := "`gh " + clip.Short(args[0]+" "+args[1]) + "` is not one of the reads hookctl answers (" + ghUsage + ")"
		if args[0] == "repo" && args[1] == "clone" {
			what += "; to read a repository's code: hookctl retrieve repo OWNER/REPO[@REF] --need '…'"
		}
		return nil, what
	}
	c := &ghCall{repo: envRepo, bools: map[string]bool{}, values: map[string][]string{}}
	valued := cmd.valued + " " + ghShaping + " repo/R"
	// Each iteration consumes one argument, or a flag and its value.
	for i := 2; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			c.operands = append(c.operands, args[i+1:]...)
			break
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			c.operands = append(c.operands, a)
			continue
		}
		name, value, hasValue := ghFlag(a)
		if long, ok := ghFlagName(cmd.flags, name); ok {
			if hasValue {
				return nil, "gh `" + clip.Short(a) + "` takes no value"
			}
			c.bools[long] = true
			continue
		}
		long, ok := ghFlagName(valued, name)
		if !ok {
			return nil, "gh " + cmd.noun + " " + cmd.verb + " `" + clip.Short(a) + "` is not a flag hookctl answers (writes, --web and interactive flags are refused)"
		}
		if !hasValue {
			if i+1 >= len(args) {
				return nil, "gh `" + clip.Short(a) + "` needs a value"
			}
			i++
			value = args[i]
		}
		c.values[long] = append(c.values[long], value)
	}
	if r := c.value("repo"); r != "" {
		c.repo = r
	}
	for _, f := range []struct{ flag, what string }{{"json", "the JSON fields "}, {"jq", "the jq filter "}, {"template", "the Go template "}} {
		for _, v := range c.values[f.flag] {
			c.need = append(c.need, "gh was asked for "+f.what+strconv.Quote(v))
		}
	}
	return cmd.route(c)
}

// ghFlag splits -x, -xVALUE, --name and --name=value.
func ghFlag(a string) (name, value string, hasValue bool) {
	if strings.HasPrefix(a, "--") {
		name, value, hasValue = strings.Cut(a[2:], "=")
		return name, value, hasValue
	}
	if len(a) > 2 {
		return a[1:2], a[2:], true
	}
	return a[1:], "", false
}

// ghFlagName finds a flag by long or short name in a list of "long/short" words.
func ghFlagName(list, name string) (string, bool) {
	for _, w := range strings.Fields(list) {
		long, short, _ := strings.Cut(w, "/")
		if name == long || short != "" && name == short {
			return long, true
		}
	}
	return "", false
}

// ghRoute makes the route of op on the call's repository (or a repository the hook fills:
// RepoMissing).
func ghRoute(c *ghCall, op *retriever.GitHubOp) (*Route, string) {
	r := &Route{Kind: "github", Need: strings.Join(c.need, "; "), GitHub: op}
	slug, host, why := ghRepoSlug(c.repo)
	if why != "" {
		return nil, why
	}
	op.Owner, op.Repo, _ = strings.Cut(slug, "/")
	op.Host = host
	r.RepoMissing = slug == ""
	if host != "" {
		h, err := retriever.NormalizeGitHubHost(host)
		if err != nil {
			return nil, "the repository's host " + clip.Short(host) + " is not a host name"
		}
		op.Host = h
	}
	return r, ""
}

// ghRepoSlug reads gh's repository forms: OWNER/REPO, HOST/OWNER/REPO, or a URL of one.
func ghRepoSlug(repo string) (slug, host, why string) {
	if repo == "" {
		return "", "", ""
	}
	if rest, ok := strings.CutPrefix(repo, "https://"); ok {
		repo = strings.TrimSuffix(strings.TrimSuffix(rest, "/"), ".git")
	}
	parts := strings.Split(repo, "/")
	switch {
	case len(parts) == 2:
		return repo, "", ""
	case len(parts) == 3:
		if strings.EqualFold(parts[0], "github.com") {
			return parts[1] + "/" + parts[2], "", ""
		}
		return parts[1] + "/" + parts[2], parts[0], ""
	}
	return "", "", "the repository " + clip.Short(repo) + " is not OWNER/REPO or HOST/OWNER/REPO"
}

// ghNumber reads an issue or pull request number (a leading # allowed), or 0.
func ghNumber(s string) int {
	s = strings.TrimPrefix(s, "#")
	if !allDigits(s) || len(s) > 10 {
		return 0
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0
	}
	return n
}

// ghNumberOrURL routes a read of one issue or pull request, given by number or URL; a pull
// request may also be given by its head branch, or by none, meaning the current branch's (gh's
// own rule), which the hook reads (Route.CurrentBranch).
func ghNumberOrURL(c *ghCall, op, what string) (*Route, string) {
	pr := what == "pull request"
	if len(c.operands) == 0 && pr {
		r, why := ghRoute(c, &retriever.GitHubOp{Op: op})
		if r != nil {
			r.CurrentBranch = true
		}
		return r, why
	}
	if len(c.operands) != 1 {
		return nil, "give the number or URL of the " + what
	}
	ref := c.operands[0]
	if strings.HasPrefix(ref, "https://") {
		o, err := retriever.ParseGitHubURL(op, ref)
		if err != nil {
			return nil, "the URL " + clip.Short(ref) + ": " + err.Error()
		}
		return &Route{Kind: "github", GitHub: o, Need: strings.Join(c.need, "; ")}, ""
	}
	if n := ghNumber(ref); n > 0 {
		return ghRoute(c, &retriever.GitHubOp{Op: op, Number: n})
	}
	if pr && !strings.HasPrefix(ref, "-") && !strings.Contains(ref, "://") && !allDigits(strings.TrimPrefix(ref, "#")) {
		return ghRoute(c, &retriever.GitHubOp{Op: op, Branch: ref})
	}
	return nil, "give the number or URL of the " + what
}

func routeGHIssueView(c *ghCall) (*Route, string) {
	if c.bools["comments"] {
		return ghNumberOrURL(c, "issue-comments", "issue")
	}
	return ghNumberOrURL(c, "issue", "issue")
}

func routeGHPRView(c *ghCall) (*Route, string) {
	if c.bools["comments"] {
		return ghNumberOrURL(c, "pr-comments", "pull request")
	}
	return ghNumberOrURL(c, "pr", "pull request")
}

func routeGHPRDiff(c *ghCall) (*Route, string) {
	if v := c.value("color"); v != "" && v != "never" && v != "auto" && v != "always" {
		return nil, "gh pr diff --color takes never, auto or always"
	}
	if c.bools["name-only"] {
		c.need = append(c.need, "gh was asked for the changed files' names only")
		return ghNumberOrURL(c, "pr-files", "pull request")
	}
	return ghNumberOrURL(c, "pr-diff", "pull request")
}

func routeGHPRChecks(c *ghCall) (*Route, string) {
	if c.bools["required"] {
		c.need = append(c.need, "gh was asked for the required checks only")
	}
	return ghNumberOrURL(c, "pr-checks", "pull request")
}

// ghFilters puts gh's list flags into the operation, which the retriever checks again.
func ghFilters(c *ghCall, op *retriever.GitHubOp) {
	op.State, op.Author, op.Search = c.value("state"), c.value("author"), c.value("search")
	if op.Branch = c.value("head"); op.Branch == "" {
		op.Branch = c.value("branch")
	}
	if v := c.value("limit"); v != "" {
		op.Limit, _ = strconv.Atoi(v)
	}
	for _, l := range c.values["label"] {
		op.Labels = append(op.Labels, strings.Split(l, ",")...) // gh reads --label a,b as two labels
	}
}

func ghList(c *ghCall, name, what string) (*Route, string) {
	if len(c.operands) != 0 {
		return nil, what + " takes no operands"
	}
	for _, v := range c.values["limit"] {
		if n, err := strconv.Atoi(v); err != nil || n < 1 || n > 100 {
			return nil, what + " --limit: give 1 to 100"
		}
	}
	op := &retriever.GitHubOp{Op: name}
	ghFilters(c, op)
	return ghRoute(c, op)
}

func routeGHPRList(c *ghCall) (*Route, string)    { return ghList(c, "pr-list", "gh pr list") }
func routeGHIssueList(c *ghCall) (*Route, string) { return ghList(c, "issue-list", "gh issue list") }
func routeGHRunList(c *ghCall) (*Route, string)   { return ghList(c, "runs", "gh run list") }

func routeGHReleaseList(c *ghCall) (*Route, string) {
	for _, f := range []string{"exclude-drafts", "exclude-pre-releases"} {
		if c.bools[f] {
			c.need = append(c.need, "gh was asked to --"+f)
		}
	}
	return ghList(c, "releases", "gh release list")
}

func routeGHRunView(c *ghCall) (*Route, string) {
	if len(c.operands) != 1 || !allDigits(c.operands[0]) || len(c.operands[0]) > 16 {
		return nil, "give the run's id: gh run view RUN-ID (hookctl does not pick one interactively; gh run list shows them)"
	}
	id, _ := strconv.Atoi(c.operands[0])
	switch {
	case c.bools["log-failed"]:
		return ghRoute(c, &retriever.GitHubOp{Op: "run-log-failed", Number: id})
	case c.bools["log"]:
		return ghRoute(c, &retriever.GitHubOp{Op: "run-log", Number: id})
	}
	return ghRoute(c, &retriever.GitHubOp{Op: "run", Number: id})
}

// gh api's flags that change nothing a GET reads: accepted, and dropped or put in the need.
const (
	ghAPIDropFlags  = "include/i silent verbose"
	ghAPIDropValued = "cache hostname jq/q template/t method/X"
)

// routeGHAPI answers `gh api PATH` GETs: of the paths the typed operations know, by those; of
// any other path under repos/OWNER/REPO, by api-get; of search/issues, by search-issues. Fields
// (-f, -F) are a GET's query parameters only with -X GET (without it gh sends a POST) and never
// from a file (-F k=@file); a header only asks for one of GitHub's media types (-H 'Accept: …',
// -H 'X-GitHub-Api-Version: …'); --paginate reads up to retriever.GitHubMaxPages pages, and
// --slurp only gathers them. --input, other headers, previews and any method but GET are
// refused.
func routeGHAPI(args []string, envRepo string) (*Route, string) {
	c := &ghCall{repo: envRepo, bools: map[string]bool{}, values: map[string][]string{}}
	host, accept, method := "", "", ""
	paginate := false
	var fields [][2]string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "-") || a == "-" {
			c.operands = append(c.operands, a)
			continue
		}
		name, value, hasValue := ghFlag(a)
		if long, ok := ghFlagName("paginate slurp", name); ok && !hasValue {
			if long == "paginate" {
				paginate = true
				c.need = append(c.need, "gh was asked for every page")
			}
			continue
		}
		if _, ok := ghFlagName(ghAPIDropFlags, name); ok && !hasValue {
			continue
		}
		long, ok := ghFlagName(ghAPIDropValued+" field/F raw-field/f header/H", name)
		if !ok {
			if name == "input" || strings.HasPrefix(a, "--input=") {
				return nil, "gh api --input sends a request body"
			}
			return nil, "gh api `" + clip.Short(a) + "` is not a flag hookctl answers (previews and request bodies are refused)"
		}
		if !hasValue {
			if i+1 >= len(args) {
				return nil, "gh api `" + clip.Short(a) + "` needs a value"
			}
			i++
			value = args[i]
		}
		switch long {
		case "method":
			if !strings.EqualFold(value, "GET") {
				return nil, "gh api may only GET; " + clip.Short(value) + " changes things"
			}
			method = "GET"
		case "hostname":
			host = value
		case "jq":
			c.need = append(c.need, "gh was asked for the jq filter "+strconv.Quote(value))
		case "template":
			c.need = append(c.need, "gh was asked for the Go template "+strconv.Quote(value))
		case "header":
			k, v, _ := strings.Cut(value, ":")
			k, v = strings.TrimSpace(k), strings.TrimSpace(v)
			switch {
			case strings.EqualFold(k, "Accept") && retriever.GitHubMediaType(v):
				accept = v
			case strings.EqualFold(k, "X-GitHub-Api-Version") && len(v) == 10 && allDigits(strings.ReplaceAll(v, "-", "")):
			default:
				return nil, "gh api -H " + clip.Short(value) + ": hookctl sends only an Accept header with one of GitHub's media types " +
					"(application/vnd.github[.raw|.diff|.patch|.text|.html|.full|.sha][+json]) and X-GitHub-Api-Version; credentials are the retriever's own"
			}
		case "field", "raw-field":
			k, v, ok := strings.Cut(value, "=")
			switch {
			case !ok || k == "":
				return nil, "gh api " + clip.Short(a) + " needs KEY=VALUE"
			case long == "field" && strings.HasPrefix(v, "@"):
				return nil, "gh api -F " + clip.Short(value) + " reads a file into the request; give the value itself"
			case long == "field" && strings.Contains(v, "{"):
				return nil, "gh api -F " + clip.Short(value) + ": only literal values are sent"
			}
			fields = append(fields, [2]string{k, v})
		}
	}
	if len(fields) > 0 && method != "GET" {
		return nil, "gh api fields without -X GET make the request a POST; add -X GET to send them as a GET's query"
	}
	if len(c.operands) != 1 {
		return nil, "gh api takes one path"
	}
	p := c.operands[0]
	if p == "graphql" {
		return nil, "gh api graphql is not answered (a query may be a mutation); use a REST path under repos/OWNER/REPO"
	}
	p = strings.TrimPrefix(strings.TrimPrefix(p, "https://api.github.com/"), "/")
	p, query, _ := strings.Cut(p, "?")
	if p == "search/issues" {
		return ghAPISearch(c, query, fields, paginate, host)
	}
	parts := strings.Split(p, "/")
	if len(parts) < 3 || parts[0] != "repos" {
		what := "gh api " + clip.Short(p) + " is not under repos/OWNER/REPO, the only paths hookctl answers besides search/issues"
		if strings.HasPrefix(p, "search/") {
			what += "; for code, read the repository: hookctl retrieve repo OWNER/REPO --need '…'"
		}
		return nil, what
	}
	// {owner}/{repo} gh fills from the current repository (GH_REPO, the git remote); so does
	// the hook (Route.RepoMissing), unless an inline GH_REPO named it.
	if parts[1] != "{owner}" || parts[2] != "{repo}" {
		c.repo = parts[1] + "/" + parts[2]
	}
	if host != "" {
		if strings.Count(c.repo, "/") != 1 {
			return nil, "gh api --hostname needs the repository in the path"
		}
		c.repo = host + "/" + c.repo
	}
	if strings.Contains(strings.Join(parts[1:], "/"), "{") && (parts[1] != "{owner}" || parts[2] != "{repo}" || strings.Contains(strings.Join(parts[3:], "/"), "{")) ||
		strings.Contains(query, "{") {
		return nil, "gh api: only {owner} and {repo} are filled in; name the branch"
	}
	tail := parts[3:]
	if query == "" && len(fields) == 0 && accept == "" {
		if r, ok := ghAPITyped(c, tail); ok {
			return r, ""
		}
	}
	if len(tail) == 0 {
		return ghRoute(c, &retriever.GitHubOp{Op: "repo"})
	}
	op := &retriever.GitHubOp{Op: "api-get", Path: strings.Join(tail, "/"), Accept: accept}
	if query != "" {
		op.Query = strings.Split(query, "&")
	}
	for _, f := range fields {
		op.Query = append(op.Query, f[0]+"="+f[1])
	}
	if paginate {
		op.Pages = retriever.GitHubMaxPages
	}
	return ghRoute(c, op)
}

// ghAPISearch answers gh api search/issues: q (from the path's query or a field) is the search,
// per_page its limit, sort and order a sort: qualifier, as GitHub's search reads them.
func ghAPISearch(c *ghCall, query string, fields [][2]string, paginate bool, host string) (*Route, string) {
	if host != "" {
		return nil, "gh api --hostname with search/issues: name the host in hookctl retrieve github search-issues --host"
	}
	vals, err := url.ParseQuery(query)
	if err != nil {
		return nil, "gh api search/issues: the query " + clip.Short(query) + " is not KEY=VALUE pairs"
	}
	for _, f := range fields {
		vals.Add(f[0], f[1])
	}
	op := &retriever.GitHubOp{Op: "search-issues"}
	sort, order := "", ""
	for k, vs := range vals {
		if len(vs) != 1 {
			return nil, "gh api search/issues: " + clip.Short(k) + " given twice"
		}
		switch v := vs[0]; k {
		case "q":
			op.Search = v
		case "per_page":
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 || n > 100 {
				return nil, "gh api search/issues per_page: give 1 to 100"
			}
			op.Limit = n
		case "sort":
			sort = v
		case "order":
			order = v
		case "page":
			c.need = append(c.need, "gh was asked for page "+strconv.Quote(v)+" of the results")
		default:
			return nil, "gh api search/issues: the parameter " + clip.Short(k) + " is not one hookctl sends (q, per_page, sort, order, page)"
		}
	}
	if sort != "" {
		q := "sort:" + sort
		if order != "" {
			q += "-" + order
		}
		op.Search = strings.TrimSpace(op.Search + " " + q)
	}
	if paginate {
		op.Pages = retriever.GitHubMaxPages
	}
	return &Route{Kind: "github", GitHub: op, Need: strings.Join(c.need, "; ")}, ""
}

// ghAPITyped maps the REST paths the typed operations answer, whose documents are labelled for
// the distiller, rather than handing it raw JSON.
func ghAPITyped(c *ghCall, tail []string) (*Route, bool) {
	var op *retriever.GitHubOp
	switch {
	case len(tail) == 0:
		op = &retriever.GitHubOp{Op: "repo"}
	case len(tail) == 1 && tail[0] == "releases":
		op = &retriever.GitHubOp{Op: "releases"}
	case len(tail) == 2 && tail[0] == "issues" && ghNumber(tail[1]) > 0:
		op = &retriever.GitHubOp{Op: "issue", Number: ghNumber(tail[1])}
	case len(tail) == 3 && tail[0] == "issues" && ghNumber(tail[1]) > 0 && tail[2] == "comments":
		op = &retriever.GitHubOp{Op: "issue-comments", Number: ghNumber(tail[1])}
	case len(tail) == 2 && tail[0] == "pulls" && ghNumber(tail[1]) > 0:
		op = &retriever.GitHubOp{Op: "pr", Number: ghNumber(tail[1])}
	case len(tail) == 3 && tail[0] == "pulls" && ghNumber(tail[1]) > 0 && tail[2] == "files":
		op = &retriever.GitHubOp{Op: "pr-files", Number: ghNumber(tail[1])}
	case len(tail) == 3 && tail[0] == "pulls" && ghNumber(tail[1]) > 0 && tail[2] == "comments":
		op = &retriever.GitHubOp{Op: "pr-comments", Number: ghNumber(tail[1])}
	case len(tail) >= 2 && tail[0] == "contents":
		op = &retriever.GitHubOp{Op: "file", Path: strings.Join(tail[1:], "/")}
	case len(tail) == 1 && tail[0] == "branches":
		op = &retriever.GitHubOp{Op: "branches"}
	case len(tail) == 1 && tail[0] == "tags":
		op = &retriever.GitHubOp{Op: "tags"}
	}
	if op == nil {
		return nil, false
	}
	r, _ := ghRoute(c, op)
	return r, r != nil
}

// allDigits reports whether s is one or more ASCII digits.
func allDigits(s string) bool { return s != "" && strings.Trim(s, "0123456789") == "" }
