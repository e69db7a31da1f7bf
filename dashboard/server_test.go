package dashboard

import (
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hookctl/hookctl/audit"
	"github.com/hookctl/hookctl/config"
	"github.com/hookctl/hookctl/hook"
	"github.com/hookctl/hookctl/session"
)

// pages are every address that shows data or changes it.
var pages = []string{"/", "/part/sessions", "/part/decisions", "/part/retrievals", "/part/runs",
	"/decision?id=x", "/retrieval?id=" + auditID, "/run?id=" + runID, "/confirm?session=" + sessionA + "&mode=edit"}

// TestNoTokenNoData: without the token every address answers 401 with the login message and
// nothing from the home; a wrong token, a cookie of another value, and a token in a POST's
// query change nothing.
func TestNoTokenNoData(t *testing.T) {
	ts := newTestServer(t, "")
	for _, p := range pages {
		for _, r := range []req{{path: p}, {path: p, cookie: "wrong"}, {path: p + sep(p) + "token=wrong"}, {path: p + sep(p) + "once=wrong"}} {
			w := ts.do(r)
			body := w.Body.String()
			if w.Code != http.StatusUnauthorized || !strings.Contains(body, "Open the address") ||
				strings.Contains(body, sessionA[:8]) || strings.Contains(body, "ls -la") || strings.Contains(body, ts.csrf) {
				t.Errorf("%+v: %d %.200q", r, w.Code, body)
			}
			if w.Header().Get("Set-Cookie") != "" {
				t.Errorf("%+v: set a cookie", r)
			}
		}
	}
	form := url.Values{"csrf": {ts.csrf}, "session": {sessionA}, "mode": {"edit"}}
	w := ts.do(req{method: "POST", path: "/mode?token=" + ts.token, origin: selfOrigin, form: form})
	if w.Code != http.StatusUnauthorized {
		t.Errorf("POST with the token in the query: %d", w.Code)
	}
	if mode(t, ts.home, sessionA) != hook.ModeReadOnly {
		t.Error("a POST without the cookie changed the mode")
	}
}

func sep(p string) string {
	if strings.Contains(p, "?") {
		return "&"
	}
	return "?"
}

// TestTokenBecomesCookie: the token in the address sets an HttpOnly, SameSite=Strict cookie and
// sends the browser to the same address without it, keeping the rest of the query.
func TestTokenBecomesCookie(t *testing.T) {
	ts := newTestServer(t, "")
	w := ts.do(req{path: "/?verdict=deny&token=" + ts.token})
	if w.Code != http.StatusSeeOther || w.Header().Get("Location") != ts.base+"?verdict=deny" {
		t.Fatalf("%d, Location %q", w.Code, w.Header().Get("Location"))
	}
	// The printed address is the root; the page, and the cookie's Path, are the base path.
	if !strings.HasPrefix(ts.URL(), "http://127.0.0.1:"+strconv.Itoa(testPort)+"/?token=") || strings.Contains(ts.URL(), ts.base) {
		t.Errorf("URL %s", ts.URL())
	}
	w = ts.do(req{path: "/?token=" + ts.token, raw: true})
	if w.Code != http.StatusSeeOther || w.Header().Get("Location") != ts.base {
		t.Fatalf("login at the root: %d, Location %q", w.Code, w.Header().Get("Location"))
	}
	c := w.Result().Cookies()
	if len(c) != 1 || c[0].Name != CookieName || c[0].Value != ts.token || !c[0].HttpOnly || c[0].SameSite != http.SameSiteStrictMode ||
		c[0].Path != ts.base || len(ts.base) < 20 {
		t.Fatalf("cookie %+v", c)
	}
	// Outside the base path nothing is served, cookie or not.
	for _, p := range []string{"/", "/part/sessions", "/decision?id=x"} {
		if w := ts.do(req{path: p, raw: true, cookie: ts.token}); w.Code != http.StatusNotFound || strings.Contains(w.Body.String(), sessionA[:8]) {
			t.Errorf("%s outside the base: %d", p, w.Code)
		}
	}
	if w := ts.get("/"); w.Code != http.StatusOK || !strings.Contains(w.Body.String(), sessionA[:8]) {
		t.Errorf("with the cookie: %d", w.Code)
	}
}

// TestOneTimeToken: --open's address logs in once; the same address again gets nothing.
func TestOneTimeToken(t *testing.T) {
	ts := newTestServer(t, "")
	u, err := ts.OneTimeURL()
	if err != nil {
		t.Fatal(err)
	}
	path := strings.TrimPrefix(u, "http://127.0.0.1:"+strconv.Itoa(testPort))
	if strings.Contains(u, ts.token) {
		t.Fatal("the one-time address carries the login token")
	}
	if w := ts.do(req{path: path, raw: true}); w.Code != http.StatusSeeOther || len(w.Result().Cookies()) != 1 {
		t.Fatalf("first use: %d", w.Code)
	}
	if w := ts.do(req{path: path, raw: true}); w.Code != http.StatusUnauthorized {
		t.Errorf("second use: %d", w.Code)
	}
}

// TestHostIsTheDashboards: a Host other than 127.0.0.1 or localhost with the dashboard's port —
// a rebound DNS name, another port, no port — is refused before the token is looked at.
func TestHostIsTheDashboards(t *testing.T) {
	ts := newTestServer(t, "")
	p := strconv.Itoa(testPort)
	for _, host := range []string{"evil.example:" + p, "127.0.0.1", "127.0.0.1:1", "localhost", "127.0.0.2:" + p, "[::1]:" + p,
		"127.0.0.1:" + p + ".evil.example", "LOCALHOST:" + p + "x"} {
		for _, r := range []req{{path: "/", host: host, cookie: ts.token}, {path: "/?token=" + ts.token, host: host}} {
			w := ts.do(r)
			if w.Code != http.StatusMisdirectedRequest || strings.Contains(w.Body.String(), sessionA[:8]) || len(w.Result().Cookies()) > 0 {
				t.Errorf("Host %q: %d", host, w.Code)
			}
		}
	}
	for _, host := range []string{"127.0.0.1:" + p, "localhost:" + p} {
		if w := ts.do(req{path: "/", host: host, cookie: ts.token}); w.Code != http.StatusOK {
			t.Errorf("Host %q: %d", host, w.Code)
		}
	}
}

// TestModeChangeNeedsOriginAndCSRF: a POST that a page elsewhere could make — no Origin,
// another origin, "null", no or a wrong CSRF token, a GET — changes nothing; the dashboard's
// own form switches the mode, recorded as the dashboard's in the session's history.
func TestModeChangeNeedsOriginAndCSRF(t *testing.T) {
	ts := newTestServer(t, "")
	form := func(csrf string) url.Values {
		return url.Values{"csrf": {csrf}, "session": {sessionA}, "mode": {"edit"}}
	}
	for _, r := range []req{
		{method: "POST", path: "/mode", cookie: ts.token, form: form(ts.csrf)},
		{method: "POST", path: "/mode", cookie: ts.token, origin: "http://evil.example", form: form(ts.csrf)},
		{method: "POST", path: "/mode", cookie: ts.token, origin: "null", form: form(ts.csrf)},
		{method: "POST", path: "/mode", cookie: ts.token, origin: "http://127.0.0.1:1", form: form(ts.csrf)},
		{method: "POST", path: "/mode", cookie: ts.token, origin: selfOrigin, form: form("")},
		{method: "POST", path: "/mode", cookie: ts.token, origin: selfOrigin, form: form("wrong")},
		{method: "POST", path: "/mode", cookie: ts.token, origin: selfOrigin, form: form(ts.token)},
		{method: "GET", path: "/mode?csrf=" + ts.csrf + "&session=" + sessionA + "&mode=edit", cookie: ts.token},
		{method: "PUT", path: "/mode", cookie: ts.token, origin: selfOrigin, form: form(ts.csrf)},
	} {
		w := ts.do(r)
		if w.Code < 400 {
			t.Errorf("%s %s origin %q: %d", r.method, r.path, r.origin, w.Code)
		}
		if mode(t, ts.home, sessionA) != hook.ModeReadOnly {
			t.Fatalf("%s origin %q csrf %q changed the mode", r.method, r.origin, r.form.Get("csrf"))
		}
	}
	w := ts.do(req{method: "POST", path: "/mode", cookie: ts.token, origin: selfOrigin, form: form(ts.csrf)})
	if w.Code != http.StatusSeeOther {
		t.Fatalf("the dashboard's form: %d %s", w.Code, w.Body)
	}
	sess, err := session.NewStore(ts.home).Load(sessionA)
	if err != nil || sess.Mode != hook.ModeEdit {
		t.Fatalf("after the toggle: %v %v", sess, err)
	}
	if last := sess.History[len(sess.History)-1]; last.How != "dashboard" || last.From != hook.ModeReadOnly || last.To != hook.ModeEdit {
		t.Errorf("history: %+v", last)
	}
	for _, bad := range []url.Values{
		{"csrf": {ts.csrf}, "session": {"ffffffff-0000-4000-8000-000000000000"}, "mode": {"edit"}}, // never seen: not created
		{"csrf": {ts.csrf}, "session": {"../x"}, "mode": {"edit"}},
		{"csrf": {ts.csrf}, "session": {sessionB}, "mode": {"root"}},
	} {
		if w := ts.do(req{method: "POST", path: "/mode", cookie: ts.token, origin: selfOrigin, form: bad}); w.Code < 400 {
			t.Errorf("%v: %d", bad, w.Code)
		}
	}
	if ids, _ := session.NewStore(ts.home).List(); len(ids) != 2 {
		t.Errorf("%d sessions after the refused toggles", len(ids))
	}
}

// TestToggleChecksAsTheCLIDoes: the dashboard's toggle is the command line's (Store.HumanToggle):
// from inside one session it does not widen another, and it narrows any.
func TestToggleChecksAsTheCLIDoes(t *testing.T) {
	ts := newTestServer(t, "")
	ts.Inside = sessionB
	post := func(m string) int {
		return ts.do(req{method: "POST", path: "/mode", cookie: ts.token, origin: selfOrigin,
			form: url.Values{"csrf": {ts.csrf}, "session": {sessionA}, "mode": {m}}}).Code
	}
	if code := post("edit"); code != http.StatusConflict || mode(t, ts.home, sessionA) != hook.ModeReadOnly {
		t.Errorf("widening another session from inside one: %d", code)
	}
	session.NewStore(ts.home).HumanToggle(session.ToggleOff, sessionA, "cli", "", hook.ModeReadOnly)
	if code := post("read-only"); code != http.StatusSeeOther || mode(t, ts.home, sessionA) != hook.ModeReadOnly {
		t.Errorf("narrowing: %d", code)
	}
}

func mode(t testing.TB, home, id string) hook.Mode {
	t.Helper()
	m, _, err := session.NewStore(home).Peek(id)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestSecurityHeaders: every answer, refusals included, carries the CSP (no inline script, no
// framing), and none a CORS header; a preflight is refused.
func TestSecurityHeaders(t *testing.T) {
	ts := newTestServer(t, "")
	for _, r := range []req{{path: "/", cookie: ts.token}, {path: "/"}, {path: "/", host: "evil:1"}, {path: "/static/app.js"},
		{method: "OPTIONS", path: "/mode", origin: "http://evil.example"}} {
		w := ts.do(r)
		csp := w.Header().Get("Content-Security-Policy")
		for _, want := range []string{"default-src 'none'", "script-src 'self'", "frame-ancestors 'none'"} {
			if !strings.Contains(csp, want) {
				t.Errorf("%+v: CSP %q lacks %q", r, csp, want)
			}
		}
		if strings.Contains(csp, "unsafe-inline") || w.Header().Get("X-Frame-Options") != "DENY" || w.Header().Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("%+v: headers %v", r, w.Header())
		}
		for k := range w.Header() {
			if strings.HasPrefix(strings.ToLower(k), "access-control-") {
				t.Errorf("%+v: CORS header %s", r, k)
			}
		}
		if r.method == "OPTIONS" && w.Code != http.StatusMethodNotAllowed {
			t.Errorf("preflight: %d", w.Code)
		}
	}
}

// inlineScript finds a script element with content, or one that loads anything but the page's
// own file, and event-handler attributes.
var (
	scriptTag    = regexp.MustCompile(`(?i)<script\b[^>]*>`)
	handlerAttr  = regexp.MustCompile(`(?i)<[a-z][^>]*\son[a-z]+\s*=`)
	quoted       = regexp.MustCompile(`"[^"]*"`)
	jsURL        = regexp.MustCompile(`(?i)(href|src|action)\s*=\s*["']?\s*javascript:`)
	rawHostile   = []string{"<script>alert", "<img src=x", "<a href=\"javascript:", "\u202E", "\u202C", "\u2066", "\u2069", "\u200B", "\u200D", "\uFEFF", "\x1b"}
	shownHostile = []string{"&lt;script&gt;alert(1)&lt;/script&gt;", "⟨U+202E⟩", "⟨U+200B⟩", "⟨U+FEFF⟩", "⟨U+001B⟩"}
)

// TestEscapesEverything plants markup, scripts, javascript: URLs, bidi and zero-width
// characters and an escape in every field (sessions, decisions, retrievals, transcripts, runs)
// and reads every page: nothing of it is markup, no script but the page's own file, and every
// invisible character is shown as its code point.
func TestEscapesEverything(t *testing.T) {
	ts := newTestServer(t, hostile)
	entries, _, _ := audit.DecisionLogAt(ts.home).Entries()
	paths := []string{"/", "/part/sessions", "/part/decisions", "/part/retrievals", "/part/runs", "/retrieval?id=" + auditID,
		"/run?id=" + runID, "/confirm?session=" + sessionA + "&mode=edit", "/?session=" + url.QueryEscape(hostile) + "&tool=" + url.QueryEscape(hostile) +
			"&since=" + url.QueryEscape(hostile) + "&verdict=" + url.QueryEscape(hostile)}
	for _, e := range entries {
		paths = append(paths, "/decision?id="+url.QueryEscape(e.ID))
	}
	seen := 0
	for _, p := range paths {
		w := ts.get(p)
		body := w.Body.String()
		if w.Code != http.StatusOK {
			t.Errorf("%s: %d", p, w.Code)
			continue
		}
		for _, m := range scriptTag.FindAllString(body, -1) {
			if m != `<script src="static/app.js" defer>` {
				t.Errorf("%s: script element %q", p, m)
			}
		}
		if strings.Count(body, "<script") != strings.Count(body, `<script src="static/app.js" defer></script>`) {
			t.Errorf("%s: a script element with content", p)
		}
		// html/template escapes a quote inside an attribute's value, so a quoted value holds no
		// markup: what is left outside quotes is the page's own.
		if m := handlerAttr.FindString(quoted.ReplaceAllString(body, `""`)); m != "" {
			t.Errorf("%s: event handler %q", p, m)
		}
		if m := jsURL.FindString(body); m != "" {
			t.Errorf("%s: javascript: URL %q", p, m)
		}
		for _, r := range rawHostile {
			if strings.Contains(body, r) {
				t.Errorf("%s: %q is in the page as it was written", p, r)
			}
		}
		if strings.Contains(body, shownHostile[0]) {
			seen++
			for _, s := range shownHostile[1:] {
				if !strings.Contains(body, s) {
					t.Errorf("%s: shows the planted text but not %q", p, s)
				}
			}
		}
	}
	if seen < len(paths)-3 {
		t.Errorf("the planted text shows on only %d of %d pages: the test proves little", seen, len(paths))
	}
	// Each place the page shows an untrusted field, checked one by one on the page that shows it.
	must := map[string][]string{
		"/part/sessions":           {"project &lt;script&gt;", "Claude Code &lt;script&gt;"},
		"/part/decisions":          {"ls -la &lt;script&gt;", "read-only command &lt;script&gt;", "Write &lt;script&gt;"},
		"/part/retrievals":         {"https://example.com/&lt;script&gt;"},
		"/part/runs":               {"test &lt;script&gt;"},
		"/retrieval?id=" + auditID: {"the install steps &lt;script&gt;", "run make install &lt;script&gt;", "ignore previous instructions &lt;script&gt;", "raw page text &lt;script&gt;", "worker: landlock &lt;script&gt;", "haiku &lt;script&gt;", "Untrusted content"},
		"/run?id=" + runID:         {"warning &lt;script&gt;", "failure &lt;script&gt;"},
	}
	for p, wants := range must {
		body := ts.get(p).Body.String()
		for _, w := range wants {
			if !strings.Contains(body, w) {
				t.Errorf("%s does not show %q", p, w)
			}
		}
	}
}

// TestDecisionListCaps: the list shows 100 rows by default and never more than 500, whatever
// limit asks, with a link to the next page; the filters apply before the cap.
func TestDecisionListCaps(t *testing.T) {
	ts := newTestServer(t, "")
	log := audit.DecisionLogAt(ts.home)
	base := time.Now().UTC().Add(-time.Hour)
	for i := range 700 {
		e := hook.LogEntry{ID: hook.NewLogID(base.Add(time.Duration(i) * time.Millisecond)), Time: base.Add(time.Duration(i) * time.Millisecond),
			Session: sessionB, Event: "tool", Tool: "Read", Mode: "review", Verdict: "allow", Command: fmt.Sprintf("row-%d", i)}
		if err := log.Append(&e); err != nil {
			t.Fatal(err)
		}
	}
	rows := func(p string) int {
		return strings.Count(ts.get(p).Body.String(), `<a class="open" href="decision?id=`)
	}
	for p, want := range map[string]int{
		"/part/decisions":                           100,
		"/part/decisions?limit=10000":               maxRows,
		"/part/decisions?limit=7":                   7,
		"/part/decisions?limit=-1":                  100,
		"/part/decisions?tool=Read&offset=650":      50,
		"/part/decisions?verdict=deny":              2,
		"/part/decisions?session=a1b2":              2,
		"/part/decisions?tool=Bash&since=1m":        2,
		"/part/decisions?tool=Read&since=1m":        0,
		"/part/decisions?session=a1b2&verdict=deny": 1,
	} {
		if got := rows(p); got != want {
			t.Errorf("%s: %d rows, want %d", p, got, want)
		}
	}
	body := ts.get("/part/decisions?tool=Read&limit=100").Body.String()
	if !strings.Contains(body, "100 of 700") || !strings.Contains(body, `href="./?tool=Read&amp;limit=100&amp;offset=100#decisions"`) {
		t.Errorf("no next page link: %.400s", body)
	}
	if !strings.Contains(body, "row-699") || strings.Contains(body, "row-599<") {
		t.Error("not the newest first")
	}
	if w := ts.get("/part/decisions?verdict=bogus"); !strings.Contains(w.Body.String(), "unknown verdict") {
		t.Error("a bad verdict is not reported")
	}
	if w := ts.get("/part/nothing"); w.Code != http.StatusNotFound {
		t.Errorf("/part/nothing: %d", w.Code)
	}
}

// TestDecisionShowsLogWhy: a decision's page is log why's steps.
func TestDecisionShowsLogWhy(t *testing.T) {
	ts := newTestServer(t, "")
	entries, _, _ := audit.DecisionLogAt(ts.home).Entries()
	e := entries[1]
	body := ts.get("/decision?id=" + e.ID).Body.String()
	for _, step := range audit.WhySteps(e, nil) {
		if !strings.Contains(body, "<li>"+template.HTMLEscapeString(step)+"</li>") {
			t.Errorf("step %q not shown", step)
		}
	}
	if w := ts.get("/decision?id=nope"); w.Code != http.StatusNotFound {
		t.Errorf("unknown decision: %d", w.Code)
	}
	if w := ts.get("/run?id=../../etc"); w.Code != http.StatusNotFound {
		t.Errorf("run outside the runs directory: %d", w.Code)
	}
}

// TestSessionsShowBadges: each session with its mode's badge, and the menu offers the others,
// through the confirm page, whose form carries the CSRF token.
func TestSessionsShowBadges(t *testing.T) {
	ts := newTestServer(t, "")
	body := ts.get("/part/sessions").Body.String()
	for id, m := range map[string]hook.Mode{sessionA: hook.ModeReadOnly, sessionB: hook.ModeReview} {
		i := strings.Index(body, `data-session="`+id+`"`)
		if i < 0 {
			t.Fatalf("session %s not listed", id)
		}
		card := body[i:]
		if j := strings.Index(card, "</article>"); j > 0 {
			card = card[:j]
		}
		if !strings.Contains(card, session.Badge(m)+"</span>") || !strings.Contains(card, "confirm?session="+id+"&amp;mode=edit") {
			t.Errorf("session %s: %s", id, card)
		}
	}
	c := ts.get("/confirm?session=" + sessionA + "&mode=edit").Body.String()
	if !strings.Contains(c, `name="csrf" value="`+ts.csrf+`"`) || !strings.Contains(c, `action="mode"`) {
		t.Errorf("confirm page: %s", c)
	}
	if mode(t, ts.home, sessionA) != hook.ModeReadOnly {
		t.Error("the confirm page changed the mode")
	}
}

// TestLogCacheSeesAppends: the cached decision log is read again once the log changes.
func TestLogCacheSeesAppends(t *testing.T) {
	ts := newTestServer(t, "")
	if body := ts.get("/part/decisions").Body.String(); !strings.Contains(body, "3 of 3") {
		t.Fatalf("before: %.300s", body)
	}
	now := time.Now().UTC()
	audit.DecisionLogAt(ts.home).Append(&hook.LogEntry{ID: hook.NewLogID(now), Time: now, Session: sessionA, Event: "tool", Tool: "Read", Verdict: "allow", Command: "appended-later"})
	if body := ts.get("/part/decisions").Body.String(); !strings.Contains(body, "4 of 4") || !strings.Contains(body, "appended-later") {
		t.Errorf("after an append: %.300s", body)
	}
}

// TestRunRecordsListed: a hookctl run's start and end are listed as what they are, with the
// run's command.
func TestRunRecordsListed(t *testing.T) {
	ts := newTestServer(t, "")
	now := time.Now().UTC()
	code := 3
	log := audit.DecisionLogAt(ts.home)
	log.Append(&hook.LogEntry{ID: hook.NewLogID(now), Time: now, Event: "run_start", Run: "r1", Verdict: "allow", Command: "claude -p review"})
	log.Append(&hook.LogEntry{ID: hook.NewLogID(now), Time: now, Event: "run_end", Run: "r1", Verdict: "allow", State: "finished", Exit: &code, Command: "claude -p review"})
	body := ts.get("/part/decisions").Body.String()
	for _, want := range []string{"(hookctl run: start) claude -p review", "(hookctl run: end) claude -p review"} {
		if !strings.Contains(body, want) {
			t.Errorf("the list lacks %q: %.600s", want, body)
		}
	}
}

// TestPageShowsManagedPolicy: the page says which keys the organisation's policy sets, and that
// every call is refused while the configuration cannot be loaded. (The managed file's place is
// fixed: cmd/hookctl's TestManagedPolicyBindsEveryUser mounts one there for the binary.)
func TestPageShowsManagedPolicy(t *testing.T) {
	var b strings.Builder
	if err := render(&b, "page", &pageData{Policy: &managedPolicy{Path: config.ManagedConfigPath, Keys: []string{"default_mode", "sandbox"}}}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "<code>"+config.ManagedConfigPath+"</code> sets <code>default_mode</code>, <code>sandbox</code>") {
		t.Errorf("the page does not name the managed keys:\n%s", b.String())
	}
	b.Reset()
	render(&b, "page", &pageData{PolicyErr: "the organisation's policy is refused"})
	if !strings.Contains(b.String(), "every tool call is refused until it is fixed: the organisation&#39;s policy is refused") {
		t.Errorf("the page hides a broken configuration:\n%s", b.String())
	}
}
