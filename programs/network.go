package programs

import (
	"net/url"
	"path"
	"strconv"
	"strings"

	"github.com/hookctl/hookctl/internal/clip"
	"github.com/hookctl/hookctl/internal/wordlist"
	"github.com/hookctl/hookctl/lexer"

	"mvdan.cc/sh/v3/syntax"
)

// Network access from the shell goes through hookctl's retriever, in every mode: raw web and
// GitHub content must never reach an agent that can read local files. A shell command that is
// exactly one plain read — a curl or wget GET, an httpie GET, gh issue/pr view, gh pr diff, a
// gh api GET — is answered by `hookctl retrieve` instead (RouteNetwork returns the Route and the
// hook rewrites the command). Every other way of reaching the network — uploads, POSTs, output
// to files, nc, ssh, scp, rsync to a host, a git clone of a URL — is refused with a pointer to
// hookctl retrieve: by RouteNetwork when it is the whole command, and, when it is part of a
// larger one (a pipeline, a substitution, a function, a wrapper, a `sh -c` string), by the
// read-only allowlist, which names no network program, or by the edit guard's network rule
// (programs/editguard), which reads the tables below.
//
// In edit mode, git may still fetch, pull and push the project's own remotes by name: they
// move the project's own history, not content for the agent to read. Package managers (npm,
// pip, go) fetch from their registries unmediated; docs/residual-risks.md says so.
//
// Refuses: the forms above. Test: TestRouteNetwork (network_test.go); editguard's TestNetwork.

// Route is a shell command the retriever answers instead.
type Route struct {
	Kind string   // "fetch" or "github"
	URL  string   // fetch
	Args []string // github: the arguments of `hookctl retrieve github`
	// RepoMissing: the command named no repository, and Args[1] is empty for the hook to fill
	// with the one gh would read — the client's GH_REPO, else the project's git remote named
	// Remote ("" for gh's choice among them). The retriever reads no files; the hook can.
	RepoMissing bool
	Remote      string
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
	sortStrings(out)
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
func RouteNetwork(cl *lexer.CommandLine) (*Route, *Refusal) {
	f, err := cl.Tree()
	if err != nil || len(f.Stmts) != 1 {
		return nil, nil
	}
	st := f.Stmts[0]
	if r, ref, ok := routeGHPipedToHead(st); ok {
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
	if r, ok := routeGitLsRemote(prog, words[1:]); ok {
		if len(st.Redirs) > 0 || len(call.Assigns) > 0 || !literal || words[0] != prog || st.Negated || st.Background {
			return nil, nil // not plainly git ls-remote: the mode's judge decides
		}
		return r, nil
	}
	if !NetworkUse(prog, words[1:]) {
		return nil, nil
	}
	router, _ := lookupNetProgram(prog)
	if router == nil {
		return nil, &Refusal{Program: prog, What: "`" + prog + "` reaches the network outside hookctl's retriever",
			Hint: RetrieveHint}
	}
	// gh reads GH_REPO from its environment; written inline, it is part of the command judged
	// here, and names the repository as -R would. No other assignment is let through.
	envRepo, assignsOK := "", len(call.Assigns) == 0
	if prog == "gh" && len(call.Assigns) == 1 {
		envRepo, assignsOK = ghRepoAssign(call.Assigns[0])
	}
	alone := literal && len(st.Redirs) == 0 && !st.Negated && !st.Background && !st.Coprocess && !st.Disown &&
		assignsOK && words[0] == prog // /usr/bin/curl, ./curl: not plainly curl
	if !alone && prog == "gh" && len(call.Assigns) == 1 && call.Assigns[0].Name.Value == "GH_CONFIG_DIR" {
		// trusty-mpm admits it before a read; here the read never runs in the shell, so the
		// variable would choose nothing, and a model that could choose the login would choose
		// the credential.
		return nil, &Refusal{Program: prog, What: "GH_CONFIG_DIR would choose gh's login, and GitHub reads are answered by hookctl's retriever with yours, not run here",
			Hint: "run the read without it, e.g. " + strings.Join(words, " ")}
	}
	if !alone {
		return nil, &Refusal{Program: prog, What: "network reads must run by themselves, as a plain `" + prog + " URL`, so that hookctl's retriever can answer them",
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
		return nil, &Refusal{Program: prog, What: why, Hint: RetrieveHint}
	}
	return r, nil
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

// ghRepoAssign reads an inline GH_REPO=OWNER/REPO: a literal value, and no other name.
func ghRepoAssign(a *syntax.Assign) (string, bool) {
	if a.Name == nil || a.Name.Value != "GH_REPO" || a.Append || a.Naked || a.Index != nil || a.Array != nil || a.Value == nil {
		return "", false
	}
	v, _, ok := lexer.Text(a.Value)
	return v, ok && v != ""
}

// routeGHPipedToHead answers `gh pr diff N | head -200` (and any routed gh read piped to a
// plain head -N, head -n N or head): the read is routed, and the head becomes part of the
// need. Anything else on the right of the pipe is the mode's judge's.
// Why: agents cut long diffs short this way; the distiller answers the same need from the
// whole diff, and no gh output reaches head or the agent. Test: TestRouteGitHubReads.
func routeGHPipedToHead(st *syntax.Stmt) (*Route, *Refusal, bool) {
	bin, ok := st.Cmd.(*syntax.BinaryCmd)
	if !ok || bin.Op != syntax.Pipe || len(st.Redirs) > 0 || st.Negated || st.Background || st.Coprocess || st.Disown {
		return nil, nil, false
	}
	left, right := bin.X, bin.Y
	lc, ok1 := left.Cmd.(*syntax.CallExpr)
	rc, ok2 := right.Cmd.(*syntax.CallExpr)
	if !ok1 || !ok2 || len(left.Redirs) > 0 || len(right.Redirs) > 0 || len(rc.Assigns) > 0 || len(lc.Assigns) > 0 || left.Negated || right.Negated {
		return nil, nil, false
	}
	lw, llit, ok1 := callWords(lc)
	rw, rlit, ok2 := callWords(rc)
	if !ok1 || !ok2 || !llit || !rlit || lw[0] != "gh" || rw[0] != "head" {
		return nil, nil, false
	}
	n := ""
	switch {
	case len(rw) == 1:
		n = "10"
	case len(rw) == 2 && strings.HasPrefix(rw[1], "-") && allDigits(rw[1][1:]):
		n = rw[1][1:]
	case len(rw) == 2 && strings.HasPrefix(rw[1], "-n") && allDigits(rw[1][2:]):
		n = rw[1][2:]
	case len(rw) == 3 && (rw[1] == "-n" || rw[1] == "--lines") && allDigits(rw[2]):
		n = rw[2]
	default:
		return nil, nil, false
	}
	r, why := routeGH(lw[1:])
	if r == nil {
		return nil, &Refusal{Program: "gh", What: why, Hint: RetrieveHint}, true
	}
	r.Need = strings.TrimPrefix(r.Need+"; gh's output was piped to head, for its first "+n+" lines", "; ")
	return r, nil, true
}

// routeGitLsRemote answers `git ls-remote --heads|--tags [REMOTE]` of one of the project's
// named remotes as a branches or tags read of the GitHub repository the hook finds behind it
// (Route.Remote). Only in read-only and review mode (ReadOnlyOnly): in edit mode git reaches
// the project's own remotes itself. A URL is networkGit's, and refused.
func routeGitLsRemote(prog string, args []string) (*Route, bool) {
	if prog != "git" || len(args) == 0 || args[0] != "ls-remote" {
		return nil, false
	}
	op, remote := "", ""
	for _, a := range args[1:] {
		switch {
		case a == "--heads" || a == "-h" || a == "--branches" || a == "-b":
			if op != "" && op != "branches" {
				return nil, false
			}
			op = "branches"
		case a == "--tags" || a == "-t":
			if op != "" && op != "tags" {
				return nil, false
			}
			op = "tags"
		case a == "--refs" || a == "-q" || a == "--quiet":
		case strings.HasPrefix(a, "-") || remote != "" || LooksLikeURL(a) || looksLikeRemoteURL(a) || strings.ContainsAny(a, "/\\"):
			return nil, false
		default:
			remote = a
		}
	}
	if op == "" {
		return nil, false // every ref, HEAD and pull requests': not one typed read
	}
	if remote == "" {
		remote = "origin"
	}
	return &Route{Kind: "github", Args: []string{op, ""}, RepoMissing: true, Remote: remote, ReadOnlyOnly: true,
		Need: "git ls-remote was asked for the " + op + " of the remote " + remote}, true
}

// RetrieveHint tells the agent how to reach the web through hookctl instead.
const RetrieveHint = "web and GitHub content comes through the quarantined retriever: " +
	"hookctl retrieve fetch URL --need 'what you need', hookctl retrieve search 'query' --need '…', " +
	"hookctl retrieve github issue|pr|pr-diff|pr-checks|issue-list|pr-list|runs|run-log-failed|file|api-get|… OWNER/REPO … --need '…'; " +
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

// plainHTTPURL returns u if it is an http or https URL.
func plainHTTPURL(u string) (string, bool) {
	p, err := url.Parse(u)
	if err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
		return "", false
	}
	return u, true
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
	u, ok := plainHTTPURL(target)
	if !ok {
		return nil, "curl needs one http or https URL"
	}
	return &Route{Kind: "fetch", URL: u}, ""
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
	u, ok := plainHTTPURL(target)
	if !ok {
		return nil, "wget needs one http or https URL"
	}
	return &Route{Kind: "fetch", URL: u}, ""
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
	u, ok := plainHTTPURL(target)
	if !ok {
		if !strings.Contains(target, "://") && target != "" {
			u, ok = plainHTTPURL("https://" + target)
		}
		if !ok {
			return nil, "needs one http or https URL"
		}
	}
	return &Route{Kind: "fetch", URL: u}, ""
}

// gh's reads, and the typed operation of `hookctl retrieve github` that answers each. What gh
// would print is answered by the retriever's distiller from the same content; the flags that
// shape gh's output (--json fields, --jq filters, --name-only, …) become part of the need
// (Route.Need), since the distiller, not jq, reads the content.
//
// Why: in read-only mode every gh read was refused, and agents fell back to asking the user to
// paste CI logs and PR lists (issue 10). What: the forms ghCommands lists, with the repository
// from -R, an inline GH_REPO=, or (Route.RepoMissing) the hook's: the client's GH_REPO, else
// the project's git remote. Every write — gh pr merge, gh api -X POST, -f/-F (which make gh
// api a POST), --input, --web, gh run rerun — and every flag not listed is refused.
// Test: TestRouteGitHubReads, TestRouteGitHubWritesRefused (network_test.go).

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
	{"pr", "list", "", "state/s limit/L author/A label/l head/H", routeGHPRList},
	{"issue", "list", "", "state/s limit/L author/A label/l", routeGHIssueList},
	{"run", "list", "", "limit/L branch/b", routeGHRunList},
	{"run", "view", "log log-failed verbose/v exit-status", "", routeGHRunView},
	{"release", "list", "exclude-drafts exclude-pre-releases", "limit/L", routeGHReleaseList},
}

// ghUsage says which gh reads are answered, for refusals.
const ghUsage = "hookctl answers gh issue view|list, gh pr view|diff|checks|list, gh run list|view, gh release list and gh api GETs under repos/OWNER/REPO"

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
		return nil, "`gh " + clip.Short(args[0]+" "+args[1]) + "` is not one of the reads hookctl answers (" + ghUsage + ")"
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

// ghRoute builds the route of an operation on the call's repository: op, the repository (or
// a slot the hook fills: RepoMissing), then rest.
func ghRoute(c *ghCall, op string, rest ...string) (*Route, string) {
	r := &Route{Kind: "github", Need: strings.Join(c.need, "; ")}
	slug, host, why := ghRepoSlug(c.repo)
	if why != "" {
		return nil, why
	}
	r.Args = append([]string{op, slug}, rest...)
	r.RepoMissing = slug == ""
	if host != "" {
		r.Args = append(r.Args, "--host", host)
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

// ghNumberOrURL routes a read of one issue or pull request, given by number or URL; a pull
// request may also be given by its head branch, or by none, meaning the current branch's (gh's
// own rule), which the hook reads (Route.CurrentBranch).
func ghNumberOrURL(c *ghCall, op, what string) (*Route, string) {
	pr := what == "pull request"
	if len(c.operands) == 0 && pr {
		r, why := ghRoute(c, op)
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
		return &Route{Kind: "github", Args: []string{op, ref}, Need: strings.Join(c.need, "; ")}, ""
	}
	n := strings.TrimPrefix(ref, "#")
	if _, err := strconv.Atoi(n); err == nil && allDigits(n) {
		return ghRoute(c, op, n)
	}
	if pr && !strings.HasPrefix(ref, "-") && !strings.Contains(ref, "://") {
		return ghRoute(c, op, "--branch="+ref)
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

// ghFilters turns gh's list flags into the operation's, which the retriever checks again.
func ghFilters(c *ghCall, rest []string) []string {
	for _, f := range []struct{ gh, op string }{{"state", "--state"}, {"limit", "--limit"}, {"author", "--author"}, {"head", "--branch"}, {"branch", "--branch"}} {
		if v := c.value(f.gh); v != "" {
			rest = append(rest, f.op+"="+v)
		}
	}
	for _, l := range c.values["label"] {
		for _, one := range strings.Split(l, ",") { // gh reads --label a,b as two labels
			rest = append(rest, "--label="+one)
		}
	}
	return rest
}

func ghList(c *ghCall, op, what string) (*Route, string) {
	if len(c.operands) != 0 {
		return nil, what + " takes no operands"
	}
	for _, v := range c.values["limit"] {
		if n, err := strconv.Atoi(v); err != nil || n < 1 || n > 100 {
			return nil, what + " --limit: give 1 to 100"
		}
	}
	return ghRoute(c, op, ghFilters(c, nil)...)
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
	if len(c.operands) != 1 || !allDigits(c.operands[0]) {
		return nil, "give the run's id: gh run view RUN-ID (hookctl does not pick one interactively; gh run list shows them)"
	}
	switch {
	case c.bools["log-failed"]:
		return ghRoute(c, "run-log-failed", c.operands[0])
	case c.bools["log"]:
		return ghRoute(c, "run-log", c.operands[0])
	}
	return ghRoute(c, "run", c.operands[0])
}

// gh api's flags that change nothing a GET reads: accepted, and dropped or put in the need.
const (
	ghAPIDropFlags  = "include/i paginate silent verbose"
	ghAPIDropValued = "cache hostname jq/q template/t method/X"
)

// routeGHAPI answers `gh api PATH` GETs: of the paths the typed operations know, by those; of
// any other path under repos/OWNER/REPO, by api-get. Fields (-f, -F, --raw-field, --field)
// make gh send a POST even with -X GET absent, and --input sends a body: both are refused, as
// are headers, previews and any method but GET.
func routeGHAPI(args []string, envRepo string) (*Route, string) {
	c := &ghCall{repo: envRepo, bools: map[string]bool{}, values: map[string][]string{}}
	host := ""
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "-") || a == "-" {
			c.operands = append(c.operands, a)
			continue
		}
		name, value, hasValue := ghFlag(a)
		if _, ok := ghFlagName(ghAPIDropFlags, name); ok && !hasValue {
			if name == "paginate" {
				c.need = append(c.need, "gh was asked for every page")
			}
			continue
		}
		long, ok := ghFlagName(ghAPIDropValued, name)
		if !ok {
			switch long, _ := ghFlagName("field/F raw-field/f input header/H preview/p", name); long {
			case "field", "raw-field":
				return nil, "gh api " + clip.Short(a) + " sends a field, which makes the request a POST"
			case "input":
				return nil, "gh api --input sends a request body"
			}
			return nil, "gh api `" + clip.Short(a) + "` is not a flag hookctl answers (headers, previews and request bodies are refused)"
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
		case "hostname":
			host = value
		case "jq":
			c.need = append(c.need, "gh was asked for the jq filter "+strconv.Quote(value))
		case "template":
			c.need = append(c.need, "gh was asked for the Go template "+strconv.Quote(value))
		}
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
	parts := strings.Split(p, "/")
	if len(parts) < 3 || parts[0] != "repos" {
		return nil, "gh api " + clip.Short(p) + " is not under repos/OWNER/REPO, the only paths hookctl answers"
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
	if query == "" {
		if r, ok := ghAPITyped(c, tail); ok {
			return r, ""
		}
	}
	rest := []string{strings.Join(tail, "/")}
	if len(tail) == 0 {
		return ghRoute(c, "repo")
	}
	if query != "" {
		for _, kv := range strings.Split(query, "&") {
			rest = append(rest, "--query="+kv)
		}
	}
	return ghRoute(c, "api-get", rest...)
}

// ghAPITyped maps the REST paths the typed operations answer, whose documents are labelled for
// the distiller, rather than handing it raw JSON.
func ghAPITyped(c *ghCall, tail []string) (*Route, bool) {
	var r *Route
	switch {
	case len(tail) == 0:
		r, _ = ghRoute(c, "repo")
	case len(tail) == 1 && tail[0] == "releases":
		r, _ = ghRoute(c, "releases")
	case len(tail) == 2 && tail[0] == "issues" && allDigits(tail[1]):
		r, _ = ghRoute(c, "issue", tail[1])
	case len(tail) == 3 && tail[0] == "issues" && allDigits(tail[1]) && tail[2] == "comments":
		r, _ = ghRoute(c, "issue-comments", tail[1])
	case len(tail) == 2 && tail[0] == "pulls" && allDigits(tail[1]):
		r, _ = ghRoute(c, "pr", tail[1])
	case len(tail) == 3 && tail[0] == "pulls" && allDigits(tail[1]) && tail[2] == "files":
		r, _ = ghRoute(c, "pr-files", tail[1])
	case len(tail) == 3 && tail[0] == "pulls" && allDigits(tail[1]) && tail[2] == "comments":
		r, _ = ghRoute(c, "pr-comments", tail[1])
	case len(tail) >= 2 && tail[0] == "contents":
		r, _ = ghRoute(c, "file", strings.Join(tail[1:], "/"))
	case len(tail) == 1 && tail[0] == "branches":
		r, _ = ghRoute(c, "branches")
	case len(tail) == 1 && tail[0] == "tags":
		r, _ = ghRoute(c, "tags")
	}
	return r, r != nil
}
