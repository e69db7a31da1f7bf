// Package dashboard is hookctl's local web page: every session's mode, with a toggle, the
// decision log, the retrieval audit and the secure runs. It runs in its own executable,
// hookctl-dashboard (which `hookctl dashboard` starts), because it links net/http and the hook
// process must link no network code (internal/buildcheck); it opens no outbound connection, only a
// listener on 127.0.0.1 (buildcheck's TestDashboardDialsNothing).
//
// Threat model (docs/dashboard.md): the page can change a session's mode, so it is part of the
// boundary between the agent and the human. Whoever holds the token is the human. The token is
// made here, kept in memory and printed once to the terminal; the agent's shell cannot reach the
// listener (its sandboxes refuse loopback connections), a web page the human visits cannot read
// the dashboard (no CORS, Host checked against DNS rebinding) nor make it act (SameSite=Strict
// cookie, Origin and a CSRF token on every POST), and what the page shows of the agent's world
// (commands, URLs, fetched text) is escaped and its invisible characters shown, so it cannot
// script the page or disguise itself.
package dashboard

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hookctl/hookctl/audit"
	"github.com/hookctl/hookctl/config"
	"github.com/hookctl/hookctl/hook"
	"github.com/hookctl/hookctl/sandbox"
	"github.com/hookctl/hookctl/session"
)

// CookieName is the cookie that carries the token after the first visit.
const CookieName = "hookctl_dashboard"

// Server serves the dashboard of hookctl's home directory.
type Server struct {
	Home string
	// Hookctl is hookctl's executable, whose sandbox probe says whether a session's commands
	// run sandboxed or on the policy alone; "" shows the sandbox state as unknown.
	Hookctl string
	// Inside is the session the dashboard process runs inside, or "" (hookctl dashboard refuses
	// to start inside one; the toggle's check sees it all the same).
	Inside string

	token string // the login secret: cookie value
	csrf  string // the form secret: every POST carries it
	port  int    // the Host and Origin requests must name
	// base is the path every page is under, random, and the cookie's Path: a browser sends a
	// cookie of 127.0.0.1 to every port of it, so another server there (one the agent started,
	// say) would receive the token whenever the human visits it; under this path, only if it
	// knew the path, which only the redirect that sets the cookie tells.
	base string

	mu   sync.Mutex
	once map[string]bool // one-time login nonces (--open), spent on use

	sandbox     sandboxCache
	decisionLog logCache[hook.LogEntry]
	auditLog    logCache[audit.AuditEntry]
}

// New returns a server for home, listening (once Serve is called) on port of 127.0.0.1.
func New(home, hookctl string, port int) (*Server, error) {
	tok, err := secret()
	if err != nil {
		return nil, err
	}
	csrf, err := secret()
	if err != nil {
		return nil, err
	}
	base, err := secret()
	if err != nil {
		return nil, err
	}
	return &Server{Home: home, Hookctl: hookctl, token: tok, csrf: csrf, port: port, base: "/" + base[:22] + "/", once: map[string]bool{}}, nil
}

// secret is 256 bits from the kernel, URL-safe.
func secret() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("failed to make a token: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// URL is the login address with the token, which hookctl dashboard prints once.
func (s *Server) URL() string {
	return fmt.Sprintf("http://127.0.0.1:%d/?token=%s", s.port, s.token)
}

// OneTimeURL is a login address whose token works once, for --open: a browser started with a
// URL shows it in its command line, which any process of the user can read, so what it carries
// must be spent by the time anything else could use it.
func (s *Server) OneTimeURL() (string, error) {
	n, err := secret()
	if err != nil {
		return "", err
	}
	s.mu.Lock()
	s.once[n] = true
	s.mu.Unlock()
	return fmt.Sprintf("http://127.0.0.1:%d/?once=%s", s.port, n), nil
}

// Listen opens the dashboard's listener on 127.0.0.1:port (0: a free port) and returns it, the
// server's port set to the one it got.
func Listen(port int) (net.Listener, int, error) {
	l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		return nil, 0, fmt.Errorf("failed to listen on 127.0.0.1:%d: %w", port, err)
	}
	return l, l.Addr().(*net.TCPAddr).Port, nil
}

// Serve serves l until it fails.
func (s *Server) Serve(l net.Listener) error {
	srv := &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second,
		WriteTimeout: 60 * time.Second, MaxHeaderBytes: 64 << 10}
	return srv.Serve(l)
}

// Handler is the dashboard: every request passes the guard first.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	b := s.base
	mux.HandleFunc("GET "+b+"{$}", s.page)
	mux.HandleFunc("GET "+b+"part/{name}", s.part)
	mux.HandleFunc("GET "+b+"decision", s.decision)
	mux.HandleFunc("GET "+b+"retrieval", s.retrieval)
	mux.HandleFunc("GET "+b+"run", s.run)
	mux.HandleFunc("GET "+b+"confirm", s.confirm)
	mux.HandleFunc("POST "+b+"mode", s.setMode)
	files := http.FileServerFS(staticFS)
	mux.Handle("GET /static/", files) // for the login page, which is not under the base
	mux.Handle("GET "+b+"static/", http.StripPrefix(b[:len(b)-1], files))
	return s.guard(mux)
}

// Security headers of every response: nothing runs but the page's own script file, nothing
// frames it, nothing is cached or sent on as a referrer.
var securityHeaders = map[string]string{
	"Content-Security-Policy": "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
		"form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
	"X-Frame-Options":              "DENY",
	"X-Content-Type-Options":       "nosniff",
	"Referrer-Policy":              "no-referrer",
	"Cache-Control":                "no-store",
	"Cross-Origin-Opener-Policy":   "same-origin",
	"Cross-Origin-Resource-Policy": "same-origin",
}

// guard checks, in order: the Host (a page on another name that resolves to 127.0.0.1 — DNS
// rebinding — is refused before it learns anything), the token (a one-time or the login token
// in the query becomes the cookie, and the address loses it; otherwise the cookie), and, for a
// POST, the Origin and the CSRF token. It answers no preflight: there is no CORS.
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for k, v := range securityHeaders {
			w.Header().Set(k, v)
		}
		if !s.loopbackHost(r.Host) {
			http.Error(w, "hookctl dashboard: this address is not the dashboard's (open the http://127.0.0.1 address it printed)", http.StatusMisdirectedRequest)
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodPost {
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		if r.Method == http.MethodGet && (strings.HasPrefix(r.URL.Path, "/static/") || strings.HasPrefix(r.URL.Path, s.base+"static/")) {
			next.ServeHTTP(w, r) // the page's own stylesheet and script: no data, and the login page needs them
			return
		}
		if r.Method == http.MethodGet && s.login(w, r) {
			return
		}
		if !s.hasToken(r) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.WriteHeader(http.StatusUnauthorized)
			render(w, "login", nil)
			return
		}
		if r.Method == http.MethodPost {
			if why := s.checkPost(r); why != "" {
				http.Error(w, "hookctl dashboard: refused: "+why, http.StatusForbidden)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// loopbackHost reports whether a Host header names the dashboard: 127.0.0.1 or localhost, with
// its port.
func (s *Server) loopbackHost(host string) bool {
	p := ":" + strconv.Itoa(s.port)
	return host == "127.0.0.1"+p || host == "localhost"+p
}

// login turns a token in the query into the cookie and sends the browser to the page without
// it, under the base path, so it stays out of the history, the address bar and any Referer; it
// reports whether it answered. A wrong or spent token falls through to the cookie check.
func (s *Server) login(w http.ResponseWriter, r *http.Request) bool {
	q := r.URL.Query()
	tok, once := q.Get("token"), q.Get("once")
	if tok == "" && once == "" {
		return false
	}
	ok := tok != "" && equal(tok, s.token)
	if once != "" {
		s.mu.Lock()
		ok = s.once[once]
		delete(s.once, once)
		s.mu.Unlock()
	}
	if !ok {
		return false
	}
	http.SetCookie(w, &http.Cookie{Name: CookieName, Value: s.token, Path: s.base, HttpOnly: true, SameSite: http.SameSiteStrictMode})
	q.Del("token")
	q.Del("once")
	path := r.URL.Path
	if !strings.HasPrefix(path, s.base) {
		path = s.base
	}
	u := url.URL{Path: path, RawQuery: q.Encode()}
	http.Redirect(w, r, u.String(), http.StatusSeeOther)
	return true
}

func (s *Server) hasToken(r *http.Request) bool {
	c, err := r.Cookie(CookieName)
	return err == nil && equal(c.Value, s.token)
}

// checkPost returns why a state-changing request is refused, or "": its Origin must be the
// dashboard's own (a form on another site that the browser still sends the cookie with cannot
// pass), and its form must carry the CSRF token the page was rendered with.
func (s *Server) checkPost(r *http.Request) string {
	origin := r.Header.Get("Origin")
	p := ":" + strconv.Itoa(s.port)
	if origin != "http://127.0.0.1"+p && origin != "http://localhost"+p {
		return "the request does not come from the dashboard's page (Origin)"
	}
	if r.ContentLength > maxForm {
		return "the form is too large"
	}
	r.Body = http.MaxBytesReader(nil, r.Body, maxForm)
	if err := r.ParseForm(); err != nil {
		return "the form cannot be read"
	}
	if !equal(r.PostForm.Get("csrf"), s.csrf) {
		return "the form's CSRF token is missing or wrong: reload the page"
	}
	return ""
}

const maxForm = 4 << 10

func equal(a, b string) bool { return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1 }

// setMode is the toggle: the human confirmed it on the confirm page. It goes through the
// command line's own toggle (Store.HumanToggle), recorded in the session's history as
// "dashboard"; the status line and the model's next request see it as they see that one.
func (s *Server) setMode(w http.ResponseWriter, r *http.Request) {
	id := r.PostForm.Get("session")
	t, ok := toggles[r.PostForm.Get("mode")]
	if !ok {
		http.Error(w, "unknown mode: want read-only, edit or review", http.StatusBadRequest)
		return
	}
	store := session.NewStore(s.Home)
	// A damaged state file is rewritten by the toggle, as `readonly on --session` does; one the
	// store has never seen is refused, never created.
	if _, err := store.Load(id); session.ValidSessionID(id) != nil || errors.Is(err, session.ErrNoSession) {
		http.Error(w, "no such session", http.StatusNotFound)
		return
	}
	cfg, err := config.LoadConfig(s.Home)
	if err != nil {
		http.Error(w, "hookctl's config cannot be loaded: "+err.Error(), http.StatusInternalServerError)
		return
	}
	from, to, err := store.HumanToggle(t, id, "dashboard", s.Inside, cfg.SessionDefault())
	if err != nil {
		http.Error(w, "the mode did not change: "+err.Error(), http.StatusConflict)
		return
	}
	if from == hook.ModeEdit && to != hook.ModeEdit {
		sandbox.EndEdit(s.Home, id) // what edit mode's commands left running ends with it
	}
	store.LiveClients(true)
	http.Redirect(w, r, s.base+"#sessions", http.StatusSeeOther)
}

// toggles are the modes the page offers, by the name its form sends.
var toggles = map[string]session.Toggle{"read-only": session.ToggleOn, "edit": session.ToggleOff, "review": session.ToggleReview}
