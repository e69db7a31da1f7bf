package policy

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/hookctl/hookctl/config"
	"github.com/hookctl/hookctl/hook"
	"github.com/hookctl/hookctl/lexer"
	"github.com/hookctl/hookctl/programs"
	"github.com/hookctl/hookctl/route"
)

// Review mode is read-only mode plus two publishing verbs: a review or a comment on a pull
// request, with the text inline (programs.JudgePublish). Everything read-only mode refuses stays
// refused, reads of issues, pull requests and diffs still come through the quarantined retriever,
// and admitted read-only commands still run in the sandbox (contain). A publish is never
// allowed outright: the hook answers ask, so that the client shows the user the exact command
// and the user decides; the gate audits the decision before the hook answers.
//
// The publish itself runs in the sandbox's publish profile (`hookctl sandbox --profile publish
// -- GH ARGS…`): the user's files read-only, gh's environment reduced to its credentials and the
// pins below, and a network of its own whose one way out is the egress proxy, admitting
// api.github.com:443 alone. Where that profile cannot apply, it runs in the client's shell with
// the pins, and the session start, the toggle's answer and the status line say so.

// PublishEnv pins gh's environment for a publish. Each was read in gh's source (cli/cli
// 44ee177, cli/go-gh v2): GH_PAGER and PAGER (the pager; GH_PAGER wins over the config's
// pager), GH_BROWSER and BROWSER (go-gh's browser.resolveLauncher: GH_BROWSER, then the config,
// then BROWSER), GH_PROMPT_DISABLED (any value: never prompt), GH_NO_UPDATE_NOTIFIER (any
// value: no release check), GH_HOST (the host an OWNER/REPO resolves on: github.com, as the
// confirmation says) and GH_REPO (empty: no repository from the environment; with -R absent gh
// infers it from the git remotes, as the confirmation says).
var PublishEnv = []string{
	"GH_PAGER=cat", "PAGER=cat", "BROWSER=false", "GH_BROWSER=false",
	"GH_PROMPT_DISABLED=1", "GH_NO_UPDATE_NOTIFIER=1", "GH_HOST=github.com", "GH_REPO=",
}

// PublishWhere tells the user where a confirmed publish runs, for the session start message,
// the toggle's answer and `hookctl readonly review`.
func PublishWhere(iso Isolation, cfg *config.Config) string {
	held, why := iso.Publish()
	switch {
	case held:
		return "a publish you approve runs in hookctl's publish sandbox: your files read-only, the network only to " +
			"api.github.com through hookctl's egress proxy, with your gh credentials and nothing else of your environment"
	case cfg != nil && cfg.Sandbox == config.SandboxRequire:
		return "⚠ no publish sandbox here (" + why + "), and your config requires the sandbox: every publish is refused"
	case iso.Failing || iso.EditFailing:
		return "⚠ " + why + ": every publish is refused until it holds again"
	}
	return "⚠ no publish sandbox here (" + why + "): a publish you approve runs in the client's shell, with your gh credentials"
}

// review answers, in review mode, a shell command that runs gh and is not a read the retriever
// answers: a publish for the user to confirm, or a refusal that says what review mode allows.
// Anything else is not its business (false). rt is the command's route, if any.
func (p *Policy) review(c *hook.ToolCall, cl *lexer.CommandLine, rt *route.Route) (hook.Decision, bool) {
	if cl == nil || c.Kind != hook.KindShell && c.Kind != hook.KindOther {
		return hook.Decision{}, false
	}
	if rt != nil {
		return hook.Decision{}, false // a read: network() hands it to the retriever
	}
	if !programs.UsesGH(cl) {
		return hook.Decision{}, false
	}
	rec := &hook.PublishRecord{Decision: hook.Deny}
	refuse := func(what string) (hook.Decision, bool) {
		rec.Refused = what
		return hook.Decision{Verdict: hook.Deny, Reason: "hookctl review mode: " + what + ". Reads of issues, pull requests and diffs " +
			"come through the quarantined retriever (gh pr view N -R OWNER/REPO, gh pr diff N -R OWNER/REPO, hookctl retrieve github …).",
			Publish: rec}, true
	}
	pub, r := programs.JudgePublish(cl)
	if r != nil {
		return refuse(r.Error())
	}
	sum := sha256.Sum256([]byte(pub.Body))
	rec.Repo, rec.PR, rec.Verb = pub.Repo, pub.PR, pub.Verb
	if rec.Repo == "" {
		rec.Repo = "inferred"
	}
	rec.BodyBytes, rec.BodySHA256 = len(pub.Body), hex.EncodeToString(sum[:])
	switch {
	case c.Kind != hook.KindShell || c.NoRewrite:
		return refuse("`" + c.Tool + "` cannot take back the command with hookctl's pins; publish with the shell tool")
	case p.Secrets == nil:
		return refuse("hookctl cannot check the text for secrets here, so it publishes nothing")
	case p.GH == nil:
		return refuse("hookctl cannot find gh here")
	}
	sc := p.Secrets()
	if sc == nil {
		return refuse("hookctl cannot check the text for secrets here, so it publishes nothing")
	}
	if f := sc.Check("body", pub.Body); f != nil {
		rec.Scrub = f.Kind
		return refuse("the text holds " + f.Error() + "; nothing is published (remove it and try again)")
	}
	rec.Scrub = "clean"
	gh, err := p.GH()
	switch {
	case err != nil:
		return refuse("hookctl finds no gh it trusts (" + err.Error() + "), so it publishes nothing")
	case !strings.HasPrefix(gh, "/"):
		return refuse("hookctl cannot find gh as an absolute path on PATH, so it publishes nothing")
	}
	held, why := p.isolation(c).Publish()
	if !held && p.Config.Sandbox == config.SandboxRequire {
		return refuse("your config requires the sandbox (sandbox = \"require\"), and the publish sandbox cannot apply here: " + why)
	}
	if iso := p.isolation(c); !held && (iso.Failing || iso.EditFailing) {
		return refuse(why + "; nothing runs without it until it holds again")
	}
	words := make([]string, 0, len(PublishEnv)+12)
	isolation := "publish sandbox: files read-only, network only to api.github.com through the egress proxy"
	if held {
		words = append(words, lexer.Quote(p.Binary), "sandbox", "--profile", "publish", "--session", lexer.Quote(c.Session), "--")
	} else {
		for _, kv := range PublishEnv {
			name, val, _ := strings.Cut(kv, "=")
			words = append(words, name+"="+lexer.Quote(val))
		}
		isolation = "none: " + why
	}
	words = append(words, lexer.Quote(gh))
	for _, a := range pub.Args() {
		words = append(words, lexer.Quote(a))
	}
	rec.Decision, rec.Isolation = hook.Ask, isolation
	return hook.Decision{Verdict: hook.Ask, Reason: askReason(pub, rec, held), Command: strings.Join(words, " "),
		Isolation: isolation, Publish: rec}, true
}

// askReason is what the user reads beside the command when asked: where it goes, what it is,
// how long the text is and its hash (the audit's), and where it runs.
func askReason(pub *programs.Publish, rec *hook.PublishRecord, sandboxed bool) string {
	where := "repository " + pub.Repo
	if pub.Repo == "" {
		where = "the repository gh infers from this project's git remotes (no -R given: check it)"
	}
	runs := "It runs in hookctl's publish sandbox (your files read-only, the network only to api.github.com) with your gh credentials."
	if !sandboxed {
		runs = "It runs outside hookctl's sandbox with your gh credentials."
	}
	return fmt.Sprintf("hookctl review mode: publish to GitHub? gh pr %s on pull request #%s of %s; text %d bytes, sha256 %s. "+
		"%s Approve only if the command shows what you want posted.",
		pub.Verb, pub.PR, where, rec.BodyBytes, rec.BodySHA256[:16], runs)
}
