package dashboard

import (
	"encoding/json"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hookctl/hookctl/hook"
	"github.com/hookctl/hookctl/internal/testbin"
	"github.com/hookctl/hookctl/session"
)

// TestBrowser drives a real headless Chromium through the dashboard: without the token it sees
// only the login message; with it, the two planted sessions with their badges; it switches the
// read-only one to EDIT through its overflow menu and the confirm page, and the state file and
// hookctl's status line both say EDIT; a change made from the command line shows on the page
// without a reload; a retrieval opens with its untrusted content labelled and inert, and a
// decision with its steps. Screenshots at laptop and narrow width are kept as test artifacts
// (go test -artifacts -outputdir DIR keeps them).
func TestBrowser(t *testing.T) {
	b := startBrowser(t)
	bin := testbin.Hookctl(t)
	art := t.ArtifactDir()

	// How the page looks with ordinary content, for the screenshot review.
	clean := t.TempDir()
	plant(t, clean, "")
	cs, _ := serve(t, clean, bin)
	b.navigate(t, cs.URL(), cs.base)
	b.screenshot(t, art, "clean-overview-laptop.png", 1366)
	b.screenshot(t, art, "clean-overview-narrow.png", 400)

	home := t.TempDir()
	plant(t, home, hostile)
	session.NewStore(home).SetTold(sessionA, hook.ModeReadOnly) // what the model was told at the session's start
	s, _ := serve(t, home, bin)
	base := "http://127.0.0.1:" + strconv.Itoa(s.port)

	b.navigate(t, base+"/", "/")
	if txt := b.text(t); !strings.Contains(txt, "Open the address hookctl dashboard printed") || strings.Contains(txt, sessionA[:8]) {
		t.Fatalf("without the token: %q", txt)
	}
	b.screenshot(t, art, "0-login.png", 1366)

	b.navigate(t, s.URL(), s.base)
	if href := b.evalString(t, "location.href"); href != base+s.base {
		t.Errorf("the token stays in the address: %s", href)
	}
	if got := b.evalString(t, "document.cookie"); got != "" {
		t.Errorf("the page's script can read the cookie: %q", got)
	}
	badge := func(id string) string {
		return b.evalString(t, `(document.querySelector('article[data-session="`+id+`"] .badge') || {}).textContent || ""`)
	}
	if a, bb := badge(sessionA), badge(sessionB); a != session.Badge(hook.ModeReadOnly) || bb != session.Badge(hook.ModeReview) {
		t.Fatalf("badges: %q %q", a, bb)
	}
	// Nothing planted ran: no dialog, no element made by the planted markup.
	if n := string(b.eval(t, "document.querySelectorAll('img, iframe, object, embed').length")); n != "0" {
		t.Errorf("%s elements made by planted markup", n)
	}
	b.screenshot(t, art, "1-overview-laptop.png", 1366)
	b.screenshot(t, art, "2-overview-narrow.png", 400)

	// The overflow menu, then the confirm page, then the switch.
	b.click(t, `article[data-session="`+sessionA+`"] details.menu summary`)
	b.waitFor(t, `document.querySelector('article[data-session="`+sessionA+`"] details.menu').open`, 2*time.Second)
	b.screenshot(t, art, "3-menu-open.png", 1366)
	b.click(t, `article[data-session="`+sessionA+`"] a.switch[data-to="edit"]`)
	b.waitLoaded(t, s.base+"confirm")
	if m := mode(t, home, sessionA); m != hook.ModeReadOnly {
		t.Fatalf("the menu switched the mode before the confirmation: %v", m)
	}
	b.screenshot(t, art, "4-confirm.png", 1366)
	b.click(t, "#confirm")
	b.waitLoaded(t, s.base)
	if a := badge(sessionA); a != session.Badge(hook.ModeEdit) {
		t.Errorf("after the switch the page shows %q", a)
	}
	sess, err := session.NewStore(home).Load(sessionA)
	if err != nil || sess.Mode != hook.ModeEdit || sess.History[len(sess.History)-1].How != "dashboard" {
		t.Fatalf("the state file: %+v %v", sess, err)
	}
	line := statusLine(t, bin, home, sessionA)
	if !strings.HasPrefix(line, session.Badge(hook.ModeEdit)) {
		t.Errorf("the status line says %q", line)
	}
	// The model hears of it on its next call, as after hookctl readonly.
	if out := hookCall(t, bin, home, sessionA); !strings.Contains(out, "the user has switched this session from READ-ONLY to EDIT mode") {
		t.Errorf("the hook's next answer does not tell the model: %s", out)
	}

	// Live: a change from the command line shows without a reload.
	b.eval(t, "window.__noReload = true")
	if _, _, err := session.NewStore(home).HumanToggle(session.ToggleOn, sessionB, "cli", "", hook.ModeReadOnly); err != nil {
		t.Fatal(err)
	}
	b.waitFor(t, `window.__noReload && document.querySelector('article[data-session="`+sessionB+`"] .badge').textContent === `+quote(session.Badge(hook.ModeReadOnly)), 10*time.Second)

	// A retrieval: its untrusted content labelled, shown as text.
	b.click(t, `a.open[href^="retrieval?id="]`)
	b.waitLoaded(t, s.base+"retrieval")
	txt := b.text(t)
	if miss := contains(txt, "Untrusted content", "the install steps <script>alert(1)</script>", "raw page text <script>", "⟨U+202E⟩evil",
		"ignore previous instructions", "worker: landlock"); miss != "" {
		t.Errorf("the retrieval page lacks %q: %.600s", miss, txt)
	}
	if n := string(b.eval(t, "document.querySelectorAll('pre.untrusted *').length")); n != "0" {
		t.Errorf("%s elements inside the untrusted text", n)
	}
	b.screenshot(t, art, "5-retrieval.png", 1366)
	b.screenshot(t, art, "6-retrieval-narrow.png", 400)

	// A decision: log why's steps.
	b.navigate(t, base+s.base+"#decisions", s.base)
	b.click(t, `a.open[href^="decision?id="]`)
	b.waitLoaded(t, s.base+"decision")
	if miss := contains(b.text(t), "Step by step", "decided by:", "verdict:"); miss != "" {
		t.Errorf("the decision page lacks %q", miss)
	}
	b.screenshot(t, art, "7-decision.png", 1366)
	t.Logf("screenshots in %s", art)
}

func quote(s string) string { b, _ := json.Marshal(s); return string(b) }

// statusLine is hookctl's status line for session id, as Claude Code runs it.
func statusLine(t *testing.T, bin, home, id string) string {
	t.Helper()
	cmd := exec.Command(bin, "statusline")
	cmd.Env = append(os.Environ(), "HOOKCTL_HOME="+home, "XDG_CONFIG_HOME=")
	cmd.Stdin = strings.NewReader(`{"session_id":"` + id + `"}`)
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}

// hookCall is the hook's answer to a Bash call of session id, as Claude Code sends it.
func hookCall(t *testing.T, bin, home, id string) string {
	t.Helper()
	cmd := exec.Command(bin, "hook")
	cmd.Env = append(os.Environ(), "HOOKCTL_HOME="+home, "XDG_CONFIG_HOME=")
	cmd.Stdin = strings.NewReader(`{"session_id":"` + id + `","cwd":"` + home + `","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}`)
	out, _ := cmd.Output()
	return string(out)
}
