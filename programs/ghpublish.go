package programs

import (
	"fmt"
	"path"
	"strings"
	"unicode/utf8"

	"github.com/hookctl/hookctl/internal/clip"
	"github.com/hookctl/hookctl/lexer"

	"mvdan.cc/sh/v3/syntax"
)

// Review mode's publishing verbs: the only writes review mode admits, each confirmed by the
// human (the hook answers ask) and audited.
//
// Why: a reviewing agent's work product is a review, and asking the human to copy it into
// GitHub by hand is what pushes people to edit mode, where the agent can do far more. Publishing
// is a write that leaves the machine, so it is narrowed to the two verbs a review needs, with the
// text inline in the command (what the human is shown is exactly what is sent) and nothing a
// file, an editor, a browser or a pager could add.
//
// What: exactly one simple command — no pipe, chain, redirection, NAME=VALUE prefix,
// substitution or path to the program — of one of these forms (options in any order, as gh's
// flag parser permutes them):
//
//	gh pr review N (--comment|-c|--approve|-a|--request-changes|-r) (-b|--body) TEXT [-R|--repo OWNER/REPO]
//	gh pr comment N (-b|--body) TEXT [-R|--repo OWNER/REPO]
//
// with --body=TEXT and --repo=OWNER/REPO accepted too. N is a decimal number; TEXT is literal
// (quoted or bare, no expansion of any kind), not empty, at most MaxPublishBody bytes, valid
// UTF-8 with no control character but newline and tab, and no bidi or zero-width character that
// could make the confirmation show something other than what is sent. Every other option —
// --body-file/-F, --editor/-e, --web/-w, --edit-last, --delete-last, --yes, -- — and every
// other spelling (-bTEXT, -R=X, clusters, a repeated option, --comment=false) is refused, as is
// every other gh subcommand.
//
// Test: TestJudgePublish (ghpublish_test.go).

// MaxPublishBody caps a published body. The whole command is capped at lexer.MaxTreeLen (64
// KiB), so the cap is below it, and far above any review comment a person reads.
const MaxPublishBody = 32 << 10

// Publish is one publish review mode may ask the human to confirm.
type Publish struct {
	// Verb is what is published: "review --comment", "review --approve", "review
	// --request-changes" (gh pr review) or "comment" (gh pr comment).
	Verb string
	PR   string // the pull request's number
	// Repo is OWNER/REPO as given with -R, or "": gh infers it from the local git remotes.
	Repo string
	Body string
}

// Args are gh's arguments for the publish, in one canonical order and spelling.
func (p *Publish) Args() []string {
	sub, flag, _ := strings.Cut(p.Verb, " ")
	out := []string{"pr", sub, p.PR}
	if flag != "" {
		out = append(out, flag)
	}
	out = append(out, "--body", p.Body)
	if p.Repo != "" {
		out = append(out, "--repo", p.Repo)
	}
	return out
}

// publishVerbForms names what review mode publishes, for messages.
const publishVerbForms = "`gh pr review N --comment|--approve|--request-changes -b 'TEXT'` " +
	"and `gh pr comment N -b 'TEXT'` (optionally -R OWNER/REPO), each alone as one simple command with the text inline"

// publishForms is the hint of every refusal of a publish.
const publishForms = "review mode publishes only " + publishVerbForms

// PublishForms names what review mode publishes, for messages.
func PublishForms() string { return publishVerbForms }

// publishVerbs are the verb flags of gh pr review, each spelling with its canonical form.
var publishVerbs = []struct{ name, verb string }{
	{"--comment", "review --comment"}, {"-c", "review --comment"},
	{"--approve", "review --approve"}, {"-a", "review --approve"},
	{"--request-changes", "review --request-changes"}, {"-r", "review --request-changes"},
}

// publishRefused names options of gh pr review and gh pr comment that review mode refuses,
// with why, so that the refusal says what the option would have done.
var publishRefused = Refusals{
	{"--body-file", "reads the text from a file the confirmation would not show"},
	{"-F", "reads the text from a file the confirmation would not show"},
	{"--editor", "opens an editor"}, {"-e", "opens an editor"},
	{"--web", "opens a browser"}, {"-w", "opens a browser"},
	{"--edit-last", "edits an earlier comment"}, {"--delete-last", "deletes an earlier comment"},
	{"--yes", "skips gh's own confirmation"}, {"--create-if-none", "creates a comment by another route"},
	{"--", "ends gh's options, which the judge does not model"},
}

// UsesGH reports whether a command line runs gh anywhere, as a program name hookctl can read:
// review mode answers every such command with its own rule, so that a refusal says what it
// allows.
func UsesGH(cl *lexer.CommandLine) bool {
	f, err := cl.Tree()
	if err != nil {
		return false
	}
	found := false
	syntax.Walk(f, func(n syntax.Node) bool {
		if call, ok := n.(*syntax.CallExpr); ok && len(call.Args) > 0 {
			if v, ok := lexer.Literal(call.Args[0]); ok && path.Base(v) == "gh" {
				found = true
			}
		}
		return !found
	})
	return found
}

// JudgePublish reads a command as one of review mode's publishes. It returns the publish, or a
// refusal saying what is wrong and what review mode allows.
func JudgePublish(cl *lexer.CommandLine) (*Publish, *Refusal) {
	refusal := func(format string, args ...any) (*Publish, *Refusal) {
		r := refuse("gh", format, args...)
		r.Hint = publishForms
		return nil, r
	}
	f, err := cl.Tree()
	if err != nil {
		return refusal("the command does not parse")
	}
	if len(f.Stmts) != 1 {
		return refusal("a publish must be the whole command, not one of several")
	}
	st := f.Stmts[0]
	call, ok := st.Cmd.(*syntax.CallExpr)
	switch {
	case !ok || len(call.Args) == 0:
		return refusal("a publish must be one simple command: no pipe, chain, group or substitution")
	case len(st.Redirs) > 0:
		return refusal("a publish takes no redirection")
	case st.Negated || st.Background || st.Coprocess || st.Disown:
		return refusal("a publish must run plainly in the foreground")
	case len(call.Assigns) > 0:
		return refusal("a publish takes no NAME=VALUE prefix (hookctl sets gh's environment itself)")
	}
	words := make([]string, len(call.Args))
	for i, w := range call.Args {
		v, ok := lexer.Literal(w)
		if !ok {
			return refusal("every word must be literal text: no $, `…`, globs, ~ or {…} (argument %d)", i)
		}
		words[i] = v
	}
	if words[0] != "gh" {
		return refusal("run gh by its name, `gh`; hookctl resolves it (`%s` is not plainly gh)", clip.Short(words[0]))
	}
	args := words[1:]
	if len(args) < 2 || args[0] != "pr" || args[1] != "review" && args[1] != "comment" {
		what := "this gh command"
		if len(args) > 0 {
			what = "`gh " + clip.Short(strings.Join(args[:min(2, len(args))], " ")) + "`"
		}
		return refusal("%s is not a publish review mode allows", what)
	}
	p := &Publish{Verb: "comment"}
	review := args[1] == "review"
	var body, repo, verb, pr *string
	set := func(dst **string, v, name string) *Refusal {
		if *dst != nil {
			return refuse("gh", "%s is given twice", name)
		}
		*dst = &v
		return nil
	}
	for i := 2; i < len(args); i++ {
		a := args[i]
		valued := func(name string) (string, *Refusal) {
			if i+1 >= len(args) {
				return "", refuse("gh", "%s needs a value", name)
			}
			i++
			return args[i], nil
		}
		var r *Refusal
		switch {
		case a == "-b" || a == "--body":
			var v string
			if v, r = valued(a); r == nil {
				r = set(&body, v, "the body")
			}
		case strings.HasPrefix(a, "--body="):
			r = set(&body, strings.TrimPrefix(a, "--body="), "the body")
		case a == "-R" || a == "--repo":
			var v string
			if v, r = valued(a); r == nil {
				r = set(&repo, v, "the repository")
			}
		case strings.HasPrefix(a, "--repo="):
			r = set(&repo, strings.TrimPrefix(a, "--repo="), "the repository")
		case review && publishVerb(a) != "":
			r = set(&verb, publishVerb(a), "the review's verb")
		case strings.HasPrefix(a, "-"):
			name, _, _ := strings.Cut(a, "=")
			if why, ok := publishRefused.why(name); ok {
				return refusal("`%s` %s", clip.Short(name), why)
			}
			return refusal("`%s` is not an option review mode allows (only -b/--body, -R/--repo, and for a review one of --comment, --approve, --request-changes, each spelt exactly)", clip.Short(a))
		default:
			r = set(&pr, a, "the pull request")
		}
		if r != nil {
			r.Hint = publishForms
			return nil, r
		}
	}
	switch {
	case pr == nil:
		return refusal("name the pull request by its number")
	case !prNumber(*pr):
		return refusal("`%s` is not a pull request number (give the number; name the repository with -R OWNER/REPO)", clip.Short(*pr))
	case review && verb == nil:
		return refusal("a review needs one of --comment, --approve or --request-changes (without one gh asks interactively)")
	case body == nil:
		return refusal("give the text inline with -b 'TEXT' (without it gh opens an editor or asks)")
	case repo != nil && !ownerRepo(*repo):
		return refusal("`%s` is not OWNER/REPO on github.com", clip.Short(*repo))
	}
	if why := publishBodyProblem(*body); why != "" {
		return refusal("the text %s", why)
	}
	if review {
		p.Verb = *verb
	}
	p.PR, p.Body = *pr, *body
	if repo != nil {
		p.Repo = *repo
	}
	return p, nil
}

func publishVerb(a string) string {
	for _, v := range publishVerbs {
		if v.name == a {
			return v.verb
		}
	}
	return ""
}

// prNumber: 1 to 10 decimal digits, no leading zero.
func prNumber(s string) bool {
	if s == "" || len(s) > 10 || s[0] == '0' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// ownerRepo: OWNER/REPO as GitHub spells them (letters, digits, '-', '_', '.'), not a host
// (HOST/OWNER/REPO sends the user's token for that host), not a URL, not "." or "..".
func ownerRepo(s string) bool {
	owner, repo, ok := strings.Cut(s, "/")
	return ok && ghName(owner) && ghName(repo)
}

func ghName(s string) bool {
	if s == "" || len(s) > 100 || s == "." || s == ".." || s[0] == '-' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}

// publishBodyProblem says what is wrong with a body, or "". The human confirms the body by
// reading it in the client's dialog, so nothing may make that reading differ from what is sent:
// control characters (escape sequences, carriage returns), bidi controls and zero-width
// characters are refused.
func publishBodyProblem(b string) string {
	switch {
	case strings.TrimSpace(b) == "":
		return "is empty"
	case len(b) > MaxPublishBody:
		return fmt.Sprintf("is %d bytes, over the %d-byte cap", len(b), MaxPublishBody)
	case !utf8.ValidString(b):
		return "is not valid UTF-8"
	}
	for _, r := range b {
		switch {
		case r == '\n' || r == '\t':
		case r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0:
			return fmt.Sprintf("holds a control character (U+%04X), which could make the confirmation show something else", r)
		case r == 0x061c || r == 0x200e || r == 0x200f || r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069:
			return fmt.Sprintf("holds a bidi control (U+%04X), which could make the confirmation show something else", r)
		case r >= 0x200b && r <= 0x200d || r == 0x2060 || r == 0xfeff || r == 0x00ad:
			return fmt.Sprintf("holds an invisible character (U+%04X), which could make the confirmation show something else", r)
		}
	}
	return ""
}
