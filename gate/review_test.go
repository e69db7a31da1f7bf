package gate

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strings"
	"testing"

	"github.com/hookctl/hookctl/config"
	"github.com/hookctl/hookctl/hook"
	"github.com/hookctl/hookctl/internal/corpus"
	"github.com/hookctl/hookctl/internal/shellglob"
	"github.com/hookctl/hookctl/policy"
	"github.com/hookctl/hookctl/scrub"
	"github.com/hookctl/hookctl/session"
)

// reviewPolicy is a policy as the gate builds it, with gh at /usr/bin/gh, a scrubber that knows
// one environment secret, and the sandbox available.
func reviewPolicy() *policy.Policy {
	return &policy.Policy{World: shellglob.World{}, Config: &config.Config{ReadOnlyAgents: []string{"reviewer"}}, Client: testClient, Binary: "/bin/hookctl",
		Sandbox: func() policy.Isolation { return policy.Isolation{Available: true, Describe: "landlock"} },
		GH:      func() (string, error) { return "/usr/bin/gh", nil },
		Secrets: func() *scrub.Scrubber { return scrub.NewScrubber([]string{"NPM_TOKEN=npm_s3cretValueXYZ123456"}) }}
}

func bash(cmd string) *hook.ToolCall {
	return &hook.ToolCall{Session: "s1", Tool: "Bash", Kind: hook.KindShell, Command: cmd, Description: "review"}
}

// TestReviewModePublishAsks: a publish is asked, never allowed: the command the user confirms is
// the canonical one with gh's environment pinned and gh named by its absolute path, and the
// reason states the repository (or that gh infers it), the pull request, the verb and the
// text's length and hash, which the audit record carries too.
func TestReviewModePublishAsks(t *testing.T) {
	const pins = "GH_PAGER=cat PAGER=cat BROWSER=false GH_BROWSER=false GH_PROMPT_DISABLED=1 GH_NO_UPDATE_NOTIFIER=1 GH_HOST=github.com GH_REPO='' /usr/bin/gh "
	for _, c := range []struct {
		cmd, command, repo, verb, where string
	}{
		{`gh pr review 7 --comment -b "looks good"`, pins + "pr review 7 --comment --body 'looks good'", "inferred", "review --comment", "infers from this project's git remotes"},
		{`gh pr review -a 7 --body=ok -R cli/cli`, pins + "pr review 7 --approve --body ok --repo cli/cli", "cli/cli", "review --approve", "repository cli/cli"},
		{`gh pr comment 9 -b "it's \$5; rm -rf /"`, pins + `pr comment 9 --body 'it'"'"'s $5; rm -rf /'`, "inferred", "comment", "pull request #9"},
	} {
		d := reviewPolicy().Decide(bash(c.cmd), policy.SessionState{Mode: hook.ModeReview})
		if d.Verdict != hook.Ask || d.Command != c.command {
			t.Errorf("%q: %v %q (%s)\n want ask %q", c.cmd, d.Verdict, d.Command, d.Reason, c.command)
			continue
		}
		r := d.Publish
		if r == nil || r.Repo != c.repo || r.Verb != c.verb || r.Decision != hook.Ask || r.Scrub != "clean" || r.BodyBytes == 0 || len(r.BodySHA256) != 64 {
			t.Errorf("%q: record %+v", c.cmd, r)
			continue
		}
		for _, want := range []string{c.where, "gh pr " + c.verb, "#" + r.PR, r.BodySHA256[:16], "bytes", "outside hookctl's sandbox"} {
			if !strings.Contains(d.Reason, want) {
				t.Errorf("%q: reason %q does not say %q", c.cmd, d.Reason, want)
			}
		}
		if !strings.HasPrefix(d.Isolation, "none: ") {
			t.Errorf("%q: isolation %q", c.cmd, d.Isolation)
		}
	}
	d := reviewPolicy().Decide(bash(`gh pr comment 9 -b hello`), policy.SessionState{Mode: hook.ModeReview})
	if sum := sha256.Sum256([]byte("hello")); d.Publish == nil || d.Publish.BodySHA256 != hex.EncodeToString(sum[:]) || d.Publish.BodyBytes != 5 {
		t.Errorf("record %+v", d.Publish)
	}
}

// TestReviewModePublishSandboxed: where the publish profile holds (the read-only sandbox and the
// edit profile's namespaces), the command the user confirms is the launcher on the canonical gh
// command — the pins are the profile's, not the shell's — and the reason and the audit record say
// where it runs. Where it does not hold and the config requires the sandbox, the publish is
// refused.
func TestReviewModePublishSandboxed(t *testing.T) {
	p := reviewPolicy()
	p.Sandbox = func() policy.Isolation { return policy.Isolation{Available: true, Edit: true, Describe: "landlock"} }
	d := p.Decide(bash(`gh pr review 7 --comment -b "looks good"`), policy.SessionState{Mode: hook.ModeReview})
	const want = "/bin/hookctl sandbox --profile publish --session s1 -- /usr/bin/gh pr review 7 --comment --body 'looks good'"
	if d.Verdict != hook.Ask || d.Command != want || !strings.Contains(d.Reason, "runs in hookctl's publish sandbox") ||
		!strings.HasPrefix(d.Isolation, "publish sandbox") || d.Publish == nil || d.Publish.Isolation != d.Isolation {
		t.Errorf("%v %q %q %q %+v\n want ask %q", d.Verdict, d.Command, d.Reason, d.Isolation, d.Publish, want)
	}
	p = reviewPolicy()
	p.Sandbox = func() policy.Isolation {
		return policy.Isolation{Available: true, Edit: false, EditReason: "user namespaces are refused"}
	}
	p.Config.Sandbox = config.SandboxRequire
	d = p.Decide(bash(`gh pr comment 7 -b ok`), policy.SessionState{Mode: hook.ModeReview})
	if d.Verdict != hook.Deny || !strings.Contains(d.Reason, "user namespaces are refused") || !strings.Contains(d.Reason, "requires the sandbox") {
		t.Errorf("require without the publish sandbox: %v %q", d.Verdict, d.Reason)
	}
}

// TestReviewModeRefusals: what review mode refuses, each with a reason that says what it allows,
// and each gh refusal carries a record for the audit.
func TestReviewModeRefusals(t *testing.T) {
	for _, c := range []struct {
		call *hook.ToolCall
		want string
	}{
		{bash(`gh pr review --body-file .env 7 --comment`), "reads the text from a file"},
		{bash(`gh api -X POST repos/o/r/issues/7/comments -f body=x`), "not a publish review mode allows"},
		{bash(`gh pr merge 7`), "not a publish review mode allows"},
		{bash(`gh issue comment 7 -b x`), "not a publish review mode allows"},
		{bash(`gh pr review 7 --comment -b x | tee out`), "one simple command"},
		{bash(`echo ok && gh pr review 7 --comment -b x`), "one simple command"},
		{bash(`gh pr comment 7 -b "token npm_s3cretValueXYZ123456"`), "the value of $NPM_TOKEN in the body"},
		{bash(`gh pr comment 7 -b "ghp_0123456789abcdefghijklmnopqrstuvwxyzAB"`), "GitHub token"},
		{&hook.ToolCall{Tool: "Monitor", Kind: hook.KindShell, Command: `gh pr comment 7 -b x`, NoRewrite: true}, "cannot take back the command"},
		{&hook.ToolCall{Tool: "Bash", Kind: hook.KindShell, Command: `gh pr comment 7 -b x`, AgentType: "Explore"}, "not one of the reads"}, // a read-only agent type never publishes
		{&hook.ToolCall{Tool: "Bash", Kind: hook.KindShell, Command: `gh pr comment 7 -b x`, AgentType: "reviewer"}, "not one of the reads"},
	} {
		d := reviewPolicy().Decide(c.call, policy.SessionState{Mode: hook.ModeReview})
		if d.Verdict != hook.Deny || !strings.Contains(d.Reason, c.want) {
			t.Errorf("%s %q: %v %q, want a refusal saying %q", c.call.Tool, c.call.Command, d.Verdict, d.Reason, c.want)
		}
		if strings.Contains(d.Reason, "s3cretValue") || strings.Contains(d.Reason, "ghp_0123") {
			t.Errorf("%q: the reason quotes the secret: %q", c.call.Command, d.Reason)
		}
		if c.call.AgentType == "" && (d.Publish == nil || d.Publish.Decision != hook.Deny || d.Publish.Refused == "") {
			t.Errorf("%q: no refusal record: %+v", c.call.Command, d.Publish)
		}
	}
	// Without a scrubber or gh, nothing is published.
	for name, p := range map[string]*policy.Policy{
		"no scrubber": {Config: &config.Config{}, Client: testClient, GH: func() (string, error) { return "/usr/bin/gh", nil }},
		"no gh":       {Config: &config.Config{}, Client: testClient, Secrets: func() *scrub.Scrubber { return scrub.NewScrubber(nil) }, GH: func() (string, error) { return "", errors.New("not found") }},
		"relative gh": {Config: &config.Config{}, Client: testClient, Secrets: func() *scrub.Scrubber { return scrub.NewScrubber(nil) }, GH: func() (string, error) { return "bin/gh", nil }},
	} {
		if d := p.Decide(bash(`gh pr comment 7 -b x`), policy.SessionState{Mode: hook.ModeReview}); d.Verdict != hook.Deny {
			t.Errorf("%s: %v %q", name, d.Verdict, d.Reason)
		}
	}
}

// TestReviewModeIsReadOnlyOtherwise: every call that is not a gh publish is judged exactly as in
// read-only mode — the same verdict and the same sandboxed command (contain, not a copy of it) —
// and gh reads still go to the retriever. Only the refusals' closing sentence differs.
func TestReviewModeIsReadOnlyOtherwise(t *testing.T) {
	for _, c := range []*hook.ToolCall{
		bash("ls -la"), bash("git log --oneline -3"), bash("cd sub && rg TODO"), bash("rm -rf /"), bash("echo x > f"),
		bash("gh pr view 7 -R cli/cli"), bash("gh pr diff 7 -R cli/cli"), bash("gh issue view 3 -R cli/cli"),
		bash("curl https://example.com/"), bash("curl -d x https://example.com/"),
		{Tool: "Write", Kind: hook.KindFileWrite, Paths: []string{"/p/f"}}, {Tool: "Edit", Kind: hook.KindFileWrite},
		{Tool: "Read", Kind: hook.KindFileRead}, {Tool: "WebFetch", Kind: hook.KindWeb}, {Tool: "mcp__x__y", Kind: hook.KindOther},
		{Tool: "Skill", Kind: hook.KindSession, Skill: "readonly"}, {Tool: "CronCreate", Kind: hook.KindOther, Prompt: "/readonly review"},
	} {
		ro := reviewPolicy().Decide(c, policy.SessionState{Mode: hook.ModeReadOnly})
		rv := reviewPolicy().Decide(c, policy.SessionState{Mode: hook.ModeReview})
		if ro.Verdict != rv.Verdict || ro.Command != rv.Command || ro.Isolation != rv.Isolation || rv.Publish != nil {
			t.Errorf("%s %q: read-only %v %q, review %v %q (%s)", c.Tool, c.Command, ro.Verdict, ro.Command, rv.Verdict, rv.Command, rv.Reason)
		}
		if rv.Verdict == hook.Deny && strings.HasPrefix(rv.Reason, "hookctl read-only") && !strings.Contains(rv.Reason, "review mode") {
			t.Errorf("%s %q: the refusal does not say what review mode allows: %q", c.Tool, c.Command, rv.Reason)
		}
	}
}

// TestReviewModeCannotBeEnteredByTheModel: the model cannot reach /readonly review by the
// Skill tool or a scheduled prompt, in any mode.
func TestReviewModeCannotBeEnteredByTheModel(t *testing.T) {
	for _, mode := range []hook.Mode{hook.ModeReadOnly, hook.ModeEdit, hook.ModeReview} {
		for _, c := range []*hook.ToolCall{
			{Tool: "Skill", Kind: hook.KindSession, Skill: "readonly"},
			{Tool: "Skill", Kind: hook.KindSession, Skill: "/readonly"},
			{Tool: "CronCreate", Kind: hook.KindOther, Prompt: "/readonly review"},
			{Tool: "ScheduleWakeup", Kind: hook.KindOther, Prompt: "  /readonly review"},
		} {
			if d := reviewPolicy().Decide(c, policy.SessionState{Mode: mode}); d.Verdict != hook.Deny || !strings.Contains(d.Reason, "only the user may change") {
				t.Errorf("%s in %v: %v %q", c.Tool, mode, d.Verdict, d.Reason)
			}
		}
	}
}

// TestGateAuditsPublishes: the gate records every publish decision before answering, and refuses
// an ask it cannot record.
func TestGateAuditsPublishes(t *testing.T) {
	store := session.NewStore(t.TempDir())
	store.Record("s1", "/p", hook.ModeReview)
	var got []*hook.PublishRecord
	g := &Gate{Client: testClient, LoadConfig: func(string) (*config.Config, error) { return &config.Config{}, nil },
		Modes: session.StoreModes{Store: store}, Store: store, Binary: "/bin/hookctl",
		GH:      func(string) (string, error) { return "/usr/bin/gh", nil },
		Secrets: func() *scrub.Scrubber { return scrub.NewScrubber(nil) },
		AuditPublish: func(c *hook.ToolCall, r *hook.PublishRecord) error {
			got = append(got, r)
			return nil
		}}
	call := func(cmd string) hook.Decision {
		return g.Decide(&hook.Event{Name: hook.EventToolCall, Call: bash(cmd)}, nil)
	}
	if d := call(`gh pr comment 7 -b x`); d.Verdict != hook.Ask {
		t.Errorf("publish: %v %q", d.Verdict, d.Reason)
	}
	if d := call(`gh pr merge 7`); d.Verdict != hook.Deny {
		t.Errorf("merge: %v %q", d.Verdict, d.Reason)
	}
	call("ls")
	if len(got) != 2 || got[0].Decision != hook.Ask || got[1].Decision != hook.Deny {
		t.Errorf("audited %+v", got)
	}
	g.AuditPublish = func(*hook.ToolCall, *hook.PublishRecord) error { return errors.New("disk full") }
	if d := call(`gh pr comment 7 -b x`); d.Verdict != hook.Deny || !strings.Contains(d.Reason, "could not audit") {
		t.Errorf("unaudited publish: %v %q", d.Verdict, d.Reason)
	}
	g.AuditPublish = nil
	if d := call(`gh pr comment 7 -b x`); d.Verdict != hook.Deny {
		t.Errorf("publish without an audit: %v %q", d.Verdict, d.Reason)
	}
}

// TestReviewModeToggles: /readonly review enters review mode from either mode, on and off leave
// it, a flip (hookctl readonly toggle) from review goes to read-only (the nearer mode), every change is in the
// history, and the state file names the mode.
func TestReviewModeToggles(t *testing.T) {
	s := session.NewStore(t.TempDir())
	s.Record("s", "/p", hook.ModeReadOnly)
	steps := []struct {
		t    session.Toggle
		want hook.Mode
	}{
		{session.ToggleReview, hook.ModeReview}, {session.ToggleOff, hook.ModeEdit}, {session.ToggleReview, hook.ModeReview}, {session.ToggleOn, hook.ModeReadOnly},
		{session.ToggleReview, hook.ModeReview}, {session.ToggleFlip, hook.ModeReadOnly}, {session.ToggleFlip, hook.ModeEdit}, {session.ToggleReview, hook.ModeReview}, {session.ToggleReview, hook.ModeReview},
	}
	for i, st := range steps {
		if _, to, err := s.ApplyPrompt(st.t, "s", "prompt-"+string(rune('a'+i)), "/p", hook.ModeReadOnly); err != nil || to != st.want {
			t.Fatalf("step %d: %v %v, want %v", i, to, err, st.want)
		}
	}
	sess, err := s.Load("s")
	if err != nil {
		t.Fatal(err)
	}
	var hist []string
	for _, c := range sess.History {
		hist = append(hist, c.To.String())
	}
	if got := strings.Join(hist, " "); got != "read-only review edit review read-only review read-only edit review" {
		t.Errorf("history %s", got)
	}
	if m, _, err := s.Peek("s"); err != nil || m != hook.ModeReview {
		t.Errorf("peek %v %v", m, err)
	}
	if session.Badge(hook.ModeReview) != "👁 REVIEW" || hook.ModeReview.String() != "review" {
		t.Errorf("badge %q, name %q", session.Badge(hook.ModeReview), hook.ModeReview)
	}
}

// TestReviewToggleIsTheUsers: the gate changes the mode to review only for a trusted toggle,
// and says where the publish runs.
func TestReviewToggleIsTheUsers(t *testing.T) {
	store := session.NewStore(t.TempDir())
	store.Record("s", "/p", hook.ModeReadOnly)
	g := &Gate{Client: testClient, LoadConfig: func(string) (*config.Config, error) { return &config.Config{}, nil }, Store: store, Modes: session.StoreModes{Store: store}}
	toggle := func(tr *hook.ToggleRequest) hook.Decision {
		return g.Decide(&hook.Event{Name: hook.EventToggle, Session: "s", Cwd: "/p", Toggle: tr}, nil)
	}
	mode := func() hook.Mode { m, _, _ := store.Peek("s"); return m }
	if d := toggle(&hook.ToggleRequest{Args: "review", PromptID: "1", Source: "projectSettings"}); d.Verdict != hook.Deny || mode() != hook.ModeReadOnly {
		t.Errorf("untrusted: %q, mode %v", d.Reason, mode())
	}
	g.VerifyToggle = func(string) error { return errors.New("the /readonly command was changed") }
	if d := toggle(&hook.ToggleRequest{Args: "review", PromptID: "2", Trusted: true}); mode() != hook.ModeReadOnly || !strings.Contains(d.Reason, "was changed") {
		t.Errorf("tampered: %q, mode %v", d.Reason, mode())
	}
	g.VerifyToggle = nil
	d := toggle(&hook.ToggleRequest{Args: "review", PromptID: "3", Trusted: true})
	if mode() != hook.ModeReview || !strings.Contains(d.Reason, "now 👁 REVIEW") || !strings.Contains(d.Reason, "runs in the client's shell") {
		t.Errorf("trusted: %q, mode %v", d.Reason, mode())
	}
	st := g.Decide(&hook.Event{Name: hook.EventSessionStart, Session: "s", Cwd: "/p"}, nil)
	if !strings.Contains(st.Context, "REVIEW mode") || !strings.Contains(st.Context, "gh pr review N") ||
		!strings.Contains(st.Message, "👁 REVIEW") || !strings.Contains(st.Message, "no publish sandbox here") ||
		!strings.Contains(st.Context, "it runs outside hookctl's sandbox") {
		t.Errorf("session start: %q / %q", st.Context, st.Message)
	}
}

// TestCorpusReviewMode: every row of fixtures/corpus/review-ask is asked in review mode and
// every row of review-deny refused; and every row of the read-only corpora (allow, deny) is
// decided in review mode exactly as in read-only mode — the same verdict and the same command —
// so review mode refuses everything read-only mode refuses.
func TestCorpusReviewMode(t *testing.T) {
	for verdict, want := range map[string]hook.Verdict{"review-ask": hook.Ask, "review-deny": hook.Deny} {
		rows, err := corpus.Load(verdict)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rows {
			if d := reviewPolicy().Decide(bash(r.Command), policy.SessionState{Mode: hook.ModeReview}); d.Verdict != want {
				t.Errorf("%s: %v (%s), want %v", r, d.Verdict, d.Reason, want)
			}
		}
		t.Logf("%s: %d rows", verdict, len(rows))
	}
	rows, err := corpus.Load("allow")
	if err != nil {
		t.Fatal(err)
	}
	deny, err := corpus.Load("deny")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range append(rows, deny...) {
		ro := reviewPolicy().Decide(bash(r.Command), policy.SessionState{Mode: hook.ModeReadOnly})
		rv := reviewPolicy().Decide(bash(r.Command), policy.SessionState{Mode: hook.ModeReview})
		if ro.Verdict != rv.Verdict || ro.Command != rv.Command {
			t.Errorf("%s: read-only %v %q, review %v %q (%s)", r, ro.Verdict, ro.Command, rv.Verdict, rv.Command, rv.Reason)
		}
	}
}
