package dashboard

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hookctl/hookctl/audit"
	"github.com/hookctl/hookctl/config"
	"github.com/hookctl/hookctl/hook"
	"github.com/hookctl/hookctl/internal/clip"
	"github.com/hookctl/hookctl/internal/fsutil"
	"github.com/hookctl/hookctl/sandbox"
	"github.com/hookctl/hookctl/securerun"
	"github.com/hookctl/hookctl/session"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticRoot embed.FS

var staticFS = func() fs.FS { return staticRoot }()

var templates = template.Must(template.New("").Funcs(template.FuncMap{
	"when":      func(t time.Time) string { return when(t) },
	"clip":      func(s string) string { return clip.String(s, maxListText) },
	"badge":     session.Badge,
	"modeclass": func(m hook.Mode) string { return sessionRow{Mode: m}.ModeClass() },
}).ParseFS(templateFS, "templates/*.html"))

// Caps on what one page shows: rows of a list (the newest first; limit and offset page through
// the rest) and the length of a text in a list (the detail page shows it whole).
const (
	defaultRows = 100
	maxRows     = 500
	maxListText = 200
	maxRuns     = 200
	maxRunMeta  = 1 << 20
)

// render executes a template into a buffer and writes it with every invisible or control
// character shown as its code point (visible), so that nothing the agent wrote — a bidi
// override, a zero-width space, a terminal escape — can make text look other than it is, and
// no template can forget to. The templates themselves hold no such character.
func render(w io.Writer, name string, data any) error {
	var b bytes.Buffer
	if err := templates.ExecuteTemplate(&b, name, data); err != nil {
		return err
	}
	_, err := io.WriteString(w, clip.Visible(b.String()))
	return err
}

func when(t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	return t.Local().Format("2006-01-02 15:04:05")
}

// pageData is everything the main page shows.
type pageData struct {
	CSRF       string
	Verdicts   []string
	Sessions   []sessionRow
	SessionErr string
	Decisions  listOf[decisionRow]
	Filter     filter
	Retrievals listOf[retrievalRow]
	Runs       listOf[runRow]
	Policy     *managedPolicy // the organisation's policy, where one applies
	PolicyErr  string         // why the configuration cannot be loaded
}

// managedPolicy is what the page says of the organisation's policy: the file and the keys it sets.
type managedPolicy struct {
	Path string
	Keys []string
}

type listOf[T any] struct {
	Rows  []T
	Total int    // rows that matched, before the cap
	More  string // the query of the next page, or ""
	Err   string
	Skip  int // damaged lines skipped
}

func (s *Server) page(w http.ResponseWriter, r *http.Request) {
	d := s.collect(r, "")
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	render(w, "page", d)
}

// part is one section of the page, which the page's script fetches to update itself.
func (s *Server) part(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	switch name {
	case "sessions", "decisions", "retrievals", "runs":
	default:
		http.NotFound(w, r)
		return
	}
	d := s.collect(r, name)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	render(w, name, d)
}

// collect reads what the page (only the part named, if any) shows.
func (s *Server) collect(r *http.Request, only string) *pageData {
	d := &pageData{CSRF: s.csrf, Filter: parseFilter(r), Verdicts: []string{"allow", "deny", "ask", "pass"}}
	if only == "" {
		switch cfg, err := config.LoadConfig(s.Home); {
		case err != nil:
			d.PolicyErr = err.Error()
		case cfg.Managed != "":
			d.Policy = &managedPolicy{Path: cfg.Managed, Keys: cfg.ManagedKeys}
		}
	}
	if only == "" || only == "sessions" {
		d.Sessions, d.SessionErr = s.sessions()
	}
	if only == "" || only == "decisions" {
		d.Decisions = s.decisions(d.Filter)
	}
	if only == "" || only == "retrievals" {
		d.Retrievals = s.retrievals(d.Filter)
	}
	if only == "" || only == "runs" {
		d.Runs = s.runs()
	}
	return d
}

// sessionRow is one session as the page lists it.
type sessionRow struct {
	ID, Short, Project, Client string
	Mode                       hook.Mode
	Started, LastActive        time.Time
	Live                       bool
	Sandbox                    string // "sandboxed", "policy only" or "" (unknown)
	SandboxWhy                 string
	Plan                       bool
	Modes                      []hook.Mode // what the menu offers: the other modes
	Remotes                    string      // the hosts edit mode reaches as the project's git remotes
}

func (r sessionRow) ModeClass() string { return strings.ReplaceAll(r.Mode.String(), "-", "") }

func (s *Server) sessions() ([]sessionRow, string) {
	store := session.NewStore(s.Home)
	list, err := store.List()
	if err != nil {
		return nil, "failed to list the sessions: " + err.Error()
	}
	live := store.LiveClients(false)
	clients := s.sessionClients()
	projects := session.NewProjects(s.Home)
	st, probed := s.sandbox.get(s.Home, s.Hookctl)
	var rows []sessionRow
	for _, sess := range list {
		row := sessionRow{ID: sess.ID, Short: store.Short(sess.ID), Project: sess.Cwd, Mode: sess.Mode, Started: sess.Started,
			Live: live[sess.ID] > 0, Plan: store.InPlanMode(sess.ID), Client: clients[sess.ID]}
		if t, err := store.LastUsed(sess.ID); err == nil {
			row.LastActive = t
		}
		row.Remotes = "none recorded"
		if r, err := projects.Load(session.ProjectOf(sess.Cwd)); err == nil {
			row.Remotes = session.DescribeRemotes(r)
		}
		if probed {
			held, why := st.Available, st.Reason
			if sess.Mode == hook.ModeEdit {
				held, why = st.Edit, st.EditReason
			}
			row.Sandbox, row.SandboxWhy = "policy only", why
			if held {
				row.Sandbox, row.SandboxWhy = "sandboxed", st.Isolation
			}
		}
		for _, m := range []hook.Mode{hook.ModeReadOnly, hook.ModeEdit, hook.ModeReview} {
			if m != sess.Mode {
				row.Modes = append(row.Modes, m)
			}
		}
		rows = append(rows, row)
	}
	return rows, ""
}

// sessionClients is the client each session's decisions came from (the state file does not
// record it).
func (s *Server) sessionClients() map[string]string {
	entries, _, _ := s.decisionEntries()
	out := map[string]string{}
	for _, e := range entries {
		if e.Session != "" && e.Agent != "" {
			out[e.Session] = e.Agent
		}
	}
	return out
}

// sandboxCache keeps the sandbox probe's result a while: the page polls, and a probe runs
// hookctl twice when its cache is stale.
type sandboxCache struct {
	mu   sync.Mutex
	at   time.Time
	st   sandbox.Status
	have bool
}

func (c *sandboxCache) get(home, hookctl string) (sandbox.Status, bool) {
	if hookctl == "" {
		return sandbox.Status{}, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.have || time.Since(c.at) > 30*time.Second {
		c.st, c.at, c.have = sandbox.Current(home, hookctl), time.Now(), true
	}
	return c.st, true
}

// filter is the decision list's filter, from the query: session (an id or a unique prefix),
// verdict, tool, since (a duration such as 2h), and the page (limit, offset).
type filter struct {
	Session, Verdict, Tool, Since string
	Limit, Offset                 int
	Err                           string
}

func parseFilter(r *http.Request) filter {
	q := r.URL.Query()
	f := filter{Session: clip.String(q.Get("session"), 128), Verdict: q.Get("verdict"), Tool: clip.String(q.Get("tool"), 64),
		Since: clip.String(q.Get("since"), 32), Limit: defaultRows}
	if n, err := strconv.Atoi(q.Get("limit")); err == nil && n > 0 {
		f.Limit = min(n, maxRows)
	}
	if n, err := strconv.Atoi(q.Get("offset")); err == nil && n > 0 {
		f.Offset = n
	}
	switch f.Verdict {
	case "", "allow", "deny", "ask", "pass":
	default:
		f.Err, f.Verdict = "unknown verdict (want allow, deny, ask or pass)", ""
	}
	return f
}

func (f filter) cutoff() (time.Time, error) {
	if f.Since == "" {
		return time.Time{}, nil
	}
	d, err := time.ParseDuration(f.Since)
	if err != nil || d <= 0 {
		return time.Time{}, errors.New("since is a duration, such as 30m or 2h")
	}
	return time.Now().Add(-d), nil
}

// query is the filter as a query string, at another offset.
func (f filter) query(offset int) string {
	v := map[string]string{"session": f.Session, "verdict": f.Verdict, "tool": f.Tool, "since": f.Since}
	var parts []string
	for _, k := range []string{"session", "verdict", "tool", "since"} {
		if v[k] != "" {
			parts = append(parts, k+"="+url.QueryEscape(v[k]))
		}
	}
	parts = append(parts, "limit="+strconv.Itoa(f.Limit), "offset="+strconv.Itoa(offset))
	return "./?" + strings.Join(parts, "&") + "#decisions"
}

type decisionRow struct {
	hook.LogEntry
	Short string
	What  string
}

func (s *Server) decisions(f filter) listOf[decisionRow] {
	var out listOf[decisionRow]
	if f.Err != "" {
		out.Err = f.Err
	}
	cutoff, err := f.cutoff()
	if err != nil {
		out.Err = err.Error()
	}
	entries, damaged, err := s.decisionEntries()
	out.Skip = damaged
	if err != nil {
		out.Err = err.Error()
		return out
	}
	sid := ""
	if f.Session != "" {
		ids := make([]string, 0, len(entries))
		for _, e := range entries {
			ids = append(ids, e.Session)
		}
		if sid, err = session.MatchID(f.Session, ids); err != nil {
			out.Err = err.Error()
			return out
		}
	}
	var match []hook.LogEntry
	for i := len(entries) - 1; i >= 0; i-- { // the newest first
		e := entries[i]
		if sid != "" && e.Session != sid || f.Verdict != "" && e.Verdict != f.Verdict ||
			f.Tool != "" && e.Tool != f.Tool || e.Time.Before(cutoff) {
			continue
		}
		match = append(match, e)
	}
	out.Total = len(match)
	for i := f.Offset; i < len(match) && i < f.Offset+f.Limit; i++ {
		e := match[i]
		what := e.Command
		if e.Event == "toggle" {
			what = "(mode change)"
		} else if e.Event == "run_start" || e.Event == "run_end" {
			what = "(hookctl run: " + strings.TrimPrefix(e.Event, "run_") + ") " + e.Command
		} else if what == "" {
			what = "(" + e.Tool + ")"
		}
		out.Rows = append(out.Rows, decisionRow{LogEntry: e, Short: shortID(e.Session), What: what})
	}
	if f.Offset+f.Limit < len(match) {
		out.More = f.query(f.Offset + f.Limit)
	}
	return out
}

type retrievalRow struct {
	audit.AuditEntry
	Short string
	What  string
	Flags []string
}

func (s *Server) retrievals(f filter) listOf[retrievalRow] {
	var out listOf[retrievalRow]
	entries, damaged, err := s.auditEntries()
	out.Skip = damaged
	if err != nil {
		out.Err = err.Error()
		return out
	}
	out.Total = len(entries)
	for i := len(entries) - 1; i >= 0 && len(out.Rows) < f.Limit; i-- {
		e := entries[i]
		what, flags := e.Describe()
		out.Rows = append(out.Rows, retrievalRow{AuditEntry: e, Short: shortID(e.Session), What: what, Flags: flags})
	}
	return out
}

type runRow struct {
	Dir  string
	Meta *securerun.RunMeta
	Err  string
}

func (r runRow) Profile() string {
	if r.Meta == nil || r.Meta.Preflight == nil {
		return ""
	}
	return r.Meta.Preflight.Profile
}

func (r runRow) Command() string {
	if r.Meta == nil || r.Meta.Preflight == nil {
		return ""
	}
	return strings.Join(r.Meta.Preflight.Command, " ")
}

func (r runRow) Outcome() string {
	m := r.Meta
	var out string
	switch {
	case m == nil:
		return ""
	case m.Exit != nil && m.Exit.Signal != "":
		out = m.State + ", signal " + m.Exit.Signal
	case m.Exit != nil:
		out = fmt.Sprintf("%s, exit %d", m.State, m.Exit.Code)
	case m.NotStarted != "":
		return m.State + ": " + m.NotStarted
	default:
		out = m.State
	}
	// What a model-only run's broker saw, and what the agent's hooks decided.
	if n := m.Network; n != nil {
		out += fmt.Sprintf("; %d model requests, %d refused", n.Requests, n.Refused)
	}
	if tc := m.ToolCalls; tc != nil {
		out += fmt.Sprintf("; %d tool calls denied", tc.Denied)
	}
	return out
}

// runs are the secure runs under the default directory ($HOOKCTL_HOME/runs); a run given --out
// elsewhere is not listed.
func (s *Server) runs() listOf[runRow] {
	var out listOf[runRow]
	dir := securerun.RunsDir(s.Home)
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return out
	}
	if err != nil {
		out.Err = err.Error()
		return out
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name() > entries[j].Name() }) // ids sort by start
	out.Total = len(entries)
	for _, e := range entries {
		if len(out.Rows) >= maxRuns {
			break
		}
		if !e.IsDir() {
			continue
		}
		out.Rows = append(out.Rows, readRun(dir, e.Name()))
	}
	return out
}

func readRun(dir, name string) runRow {
	row := runRow{Dir: name}
	b, err := fsutil.ReadFile(filepath.Join(dir, name, securerun.MetaName), maxRunMeta, true)
	if err != nil {
		row.Err = err.Error()
		return row
	}
	var m securerun.RunMeta
	if err := json.Unmarshal(b, &m); err != nil {
		row.Err = "runmeta.json is damaged: " + err.Error()
		return row
	}
	row.Meta = &m
	return row
}

func shortID(s string) string {
	if len(s) > 8 {
		return s[:8]
	}
	if s == "" {
		return "—"
	}
	return s
}

// decision is one decision, step by step: `hookctl log why`'s steps (audit.WhySteps).
func (s *Server) decision(w http.ResponseWriter, r *http.Request) {
	entryPage(w, r, "decision", s.decisionEntries, func(e hook.LogEntry) string { return e.ID }, func(e hook.LogEntry) any {
		return map[string]any{"E": e, "Steps": audit.WhySteps(e, nil)}
	})
}

// retrieval is one audit entry and its transcript: the need, the answer, the injection flags,
// the isolation and, under keep_raw, the fetched text, all shown as text and labelled
// untrusted.
func (s *Server) retrieval(w http.ResponseWriter, r *http.Request) {
	entryPage(w, r, "retrieval", s.auditEntries, func(e audit.AuditEntry) string { return e.ID }, func(e audit.AuditEntry) any {
		what, flags := e.Describe()
		t, terr := audit.AuditAt(s.Home).Transcript(e.ID)
		raw, _ := json.MarshalIndent(e, "", "  ")
		data := map[string]any{"E": e, "What": what, "Flags": flags, "T": t, "Raw": string(raw)}
		if terr != nil {
			data["TErr"] = "no transcript: " + terr.Error()
		}
		return data
	})
}

// entryPage renders page with data of the entry whose ID is the request's id, or the not-found
// page when no entry has it (or id is empty).
func entryPage[E any](w http.ResponseWriter, r *http.Request, page string, read func() ([]E, int, error), id func(E) string, data func(E) any) {
	want := r.URL.Query().Get("id")
	entries, _, err := read()
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	for _, e := range entries {
		if id(e) == want && want != "" {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			render(w, page, data(e))
			return
		}
	}
	w.WriteHeader(http.StatusNotFound)
	render(w, "notfound", page)
}

// run is one secure run's RunMeta: its preflight and outcome.
func (s *Server) run(w http.ResponseWriter, r *http.Request) {
	id := r.URL.Query().Get("id")
	dir := securerun.RunsDir(s.Home)
	if id == "" || id != filepath.Base(id) || strings.HasPrefix(id, ".") {
		w.WriteHeader(http.StatusNotFound)
		render(w, "notfound", "run")
		return
	}
	row := readRun(dir, id)
	if row.Meta == nil && errors.Is(statErr(filepath.Join(dir, id)), fs.ErrNotExist) {
		w.WriteHeader(http.StatusNotFound)
		render(w, "notfound", "run")
		return
	}
	var pre []byte
	if row.Meta != nil {
		pre, _ = json.MarshalIndent(row.Meta, "", "  ")
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	render(w, "run", map[string]any{"R": row, "JSON": string(pre)})
}

func statErr(p string) error { _, err := os.Lstat(p); return err }

// confirm asks the human to confirm a mode change chosen in a session's menu; only its form
// changes anything.
func (s *Server) confirm(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	id, mode := q.Get("session"), q.Get("mode")
	if _, ok := toggles[mode]; !ok || session.ValidSessionID(id) != nil {
		http.Error(w, "unknown session or mode", http.StatusBadRequest)
		return
	}
	store := session.NewStore(s.Home)
	sess, err := store.Load(id)
	if err != nil {
		http.Error(w, "no such session", http.StatusNotFound)
		return
	}
	to, _ := hook.ParseMode(mode)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	render(w, "confirm", map[string]any{"S": sess, "Short": store.Short(id), "To": to, "ToName": mode, "CSRF": s.csrf,
		"Widens": session.Widens(sess.Mode, to)})
}

// logCache keeps a log's entries while its directory's files are unchanged (names, sizes and
// times): the page polls every few seconds, and a log rotated five times is 60 MiB to decode.
type logCache[T any] struct {
	mu      sync.Mutex
	sig     string
	entries []T
	damaged int
}

func (c *logCache[T]) get(dir string, read func() ([]T, int, error)) ([]T, int, error) {
	sig := dirSignature(dir)
	c.mu.Lock()
	defer c.mu.Unlock()
	if sig != "" && sig == c.sig {
		return c.entries, c.damaged, nil
	}
	entries, damaged, err := read()
	if err != nil {
		return nil, damaged, err
	}
	c.sig, c.entries, c.damaged = sig, entries, damaged
	return entries, damaged, nil
}

// dirSignature is the names, sizes and modification times of a directory's files, or "" if it
// cannot be read (which never matches, so the log is read again).
func dirSignature(dir string) string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return ""
	}
	var b strings.Builder
	for _, e := range entries {
		info, err := e.Info()
		if err != nil {
			return ""
		}
		fmt.Fprintf(&b, "%s %d %d\n", e.Name(), info.Size(), info.ModTime().UnixNano())
	}
	return b.String()
}

// decisionEntries are the decision log's entries, oldest first, and how many lines were damaged.
func (s *Server) decisionEntries() ([]hook.LogEntry, int, error) {
	l := audit.DecisionLogAt(s.Home)
	return s.decisionLog.get(l.Dir, l.Entries)
}

// auditEntries are the audit's entries, oldest first, and how many lines were damaged.
func (s *Server) auditEntries() ([]audit.AuditEntry, int, error) {
	a := audit.AuditAt(s.Home)
	return s.auditLog.get(a.Dir, func() ([]audit.AuditEntry, int, error) {
		e, d, err := a.Entries()
		return e, len(d), err
	})
}
