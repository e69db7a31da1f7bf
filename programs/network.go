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
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) == 0 {
		return nil, nil
	}
	words := make([]string, len(call.Args))
	literal := true
	for i, w := range call.Args {
		// The router runs none of these words: a plain read is rewritten into hookctl
		// retrieve, with the URL quoted, so a ? in it is text, not a glob.
		v, _, ok := lexer.Text(w)
		if i == 0 && !ok {
			return nil, nil // a program name that is not a literal: the mode's judge decides
		}
		words[i], literal = v, literal && ok
	}
	prog := path.Base(words[0])
	if !NetworkUse(prog, words[1:]) {
		return nil, nil
	}
	router, _ := lookupNetProgram(prog)
	if router == nil {
		return nil, &Refusal{Program: prog, What: "`" + prog + "` reaches the network outside hookctl's retriever",
			Hint: RetrieveHint}
	}
	alone := literal && len(st.Redirs) == 0 && !st.Negated && !st.Background && !st.Coprocess && !st.Disown &&
		len(call.Assigns) == 0 && words[0] == prog // /usr/bin/curl, ./curl: not plainly curl
	if !alone {
		return nil, &Refusal{Program: prog, What: "network reads must run by themselves, as a plain `" + prog + " URL`, so that hookctl's retriever can answer them",
			Hint: RetrieveHint}
	}
	r, why := router(words[1:])
	if r == nil {
		return nil, &Refusal{Program: prog, What: why, Hint: RetrieveHint}
	}
	return r, nil
}

// RetrieveHint tells the agent how to reach the web through hookctl instead.
const RetrieveHint = "web and GitHub content comes through the quarantined retriever: " +
	"hookctl retrieve fetch URL --need 'what you need', hookctl retrieve search 'query' --need '…', " +
	"hookctl retrieve github issue|pr|pr-diff|file|repo|releases OWNER/REPO … --need '…'; " +
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

// routeGH answers gh's reads of issues and pull requests, and gh api GETs of the same, as typed
// GitHub operations. Everything else gh does (create, edit, merge, auth, clone, api writes) is
// refused.
func routeGH(args []string) (*Route, string) {
	if len(args) < 2 {
		return nil, "only gh issue view, gh pr view, gh pr diff and gh api GETs are answered"
	}
	var repo string
	var rest []string
	comments := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-R" || a == "--repo":
			if i+1 >= len(args) {
				return nil, "-R needs OWNER/REPO"
			}
			repo = args[i+1]
			i++
		case strings.HasPrefix(a, "--repo="):
			repo = strings.TrimPrefix(a, "--repo=")
		case a == "--comments" || a == "-c":
			comments = true
		case strings.HasPrefix(a, "-"):
			return nil, "gh `" + clip.Short(a) + "` is not one of the reads hookctl answers"
		default:
			rest = append(rest, a)
		}
	}
	switch {
	case len(rest) == 3 && rest[0] == "issue" && rest[1] == "view":
		op := "issue"
		if comments {
			op = "issue-comments"
		}
		return ghRoute(op, repo, rest[2])
	case len(rest) == 3 && rest[0] == "pr" && rest[1] == "view":
		op := "pr"
		if comments {
			op = "pr-comments"
		}
		return ghRoute(op, repo, rest[2])
	case len(rest) == 3 && rest[0] == "pr" && rest[1] == "diff":
		return ghRoute("pr-diff", repo, rest[2])
	case len(rest) == 2 && rest[0] == "api" && !comments:
		return ghAPIRoute(rest[1])
	}
	return nil, "only gh issue view, gh pr view, gh pr diff and gh api GETs are answered"
}

func ghRoute(op, repo, ref string) (*Route, string) {
	if strings.HasPrefix(ref, "https://") {
		return &Route{Kind: "github", Args: []string{op, ref}}, ""
	}
	if _, err := strconv.Atoi(strings.TrimPrefix(ref, "#")); err != nil {
		return nil, "give the number or URL of the issue or pull request"
	}
	if repo == "" {
		return nil, "name the repository with -R OWNER/REPO (the retriever does not read your git remotes)"
	}
	return &Route{Kind: "github", Args: []string{op, repo, strings.TrimPrefix(ref, "#")}}, ""
}

// ghAPIRoute maps the REST paths of the operations the retriever knows.
func ghAPIRoute(p string) (*Route, string) {
	p = strings.TrimPrefix(strings.TrimPrefix(p, "/"), "https://api.github.com/")
	if strings.ContainsAny(p, "?#") {
		return nil, "gh api with query parameters is not answered; use hookctl retrieve github"
	}
	parts := strings.Split(p, "/")
	if len(parts) < 3 || parts[0] != "repos" {
		return nil, "gh api " + clip.Short(p) + " is not one of the reads hookctl answers"
	}
	repo := parts[1] + "/" + parts[2]
	tail := parts[3:]
	switch {
	case len(tail) == 0:
		return &Route{Kind: "github", Args: []string{"repo", repo}}, ""
	case len(tail) == 1 && tail[0] == "releases":
		return &Route{Kind: "github", Args: []string{"releases", repo}}, ""
	case len(tail) == 2 && tail[0] == "issues":
		return &Route{Kind: "github", Args: []string{"issue", repo, tail[1]}}, ""
	case len(tail) == 3 && tail[0] == "issues" && tail[2] == "comments":
		return &Route{Kind: "github", Args: []string{"issue-comments", repo, tail[1]}}, ""
	case len(tail) == 2 && tail[0] == "pulls":
		return &Route{Kind: "github", Args: []string{"pr", repo, tail[1]}}, ""
	case len(tail) == 3 && tail[0] == "pulls" && tail[2] == "files":
		return &Route{Kind: "github", Args: []string{"pr-files", repo, tail[1]}}, ""
	case len(tail) == 3 && tail[0] == "pulls" && tail[2] == "comments":
		return &Route{Kind: "github", Args: []string{"pr-comments", repo, tail[1]}}, ""
	case len(tail) >= 2 && tail[0] == "contents":
		return &Route{Kind: "github", Args: []string{"file", repo, strings.Join(tail[1:], "/")}}, ""
	}
	return nil, "gh api " + clip.Short(p) + " is not one of the reads hookctl answers"
}
