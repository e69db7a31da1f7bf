// Package scrub is hookctl's secret scrubber: it finds secrets in text that is about to leave
// the machine or be shown. Its first user is the retriever: the front, the hookctl process that
// asked for the retrieval, checks the request before the worker is started, and the worker checks
// each request a research retrieval makes, so nothing the agent chose leaves the machine until
// it has passed. The others: the hook's review mode checks what a publish would send
// (policy/review.go), the sandbox keeps a variable whose value looks like a secret out of a
// command's environment, and `hookctl run` withholds secrets from the command line it records.
// It does no I/O.
//
// Everything the retriever sends is chosen by an agent that may have read the user's files and
// may be following instructions planted in them, so a URL, a search query, a header set from the
// agent's text or the agent's need can carry a secret to whoever serves the request, runs the
// search or hosts the distiller. The scrubber looks for secrets in that text before anything is
// sent, and a hit refuses the whole retrieval.
//
// What it finds: secrets in the documented formats of the issuers in the rules table below; the
// values of the user's own secret environment variables, plain, URL-encoded or base64-encoded;
// passwords in URLs; parameters named for secrets; and random-looking values in URL query
// strings, fragments and userinfo and in search queries, which is where a secret of no known
// format travels when it is sent on purpose.
//
// Out of scope: a determined exfiltration. Text can be split, reversed, hex-encoded or spelt out,
// sent in a path segment or a hostname, or sent a few characters per request; the scrubber
// catches secrets sent as they are and in the common encodings, not every way of writing them.
// The process isolation is what keeps the retriever from reading the user's files; the scrubber
// keeps the agent from mailing them out by accident or on a first naive attempt.
//
// The prompt-injection heuristics are not here but in package worker: they read the raw content,
// which only the worker ever holds, while the scrubber reads only what the agent asked for.
package scrub

import (
	"crypto/sha256"
	"encoding/base64"
	"math"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/hookctl/hookctl/retriever"
)

// MaxScrubBytes caps the text Check examines in one field. A longer field is refused whole
// rather than checked in part: a secret past the cap would leave unseen, and no URL, search
// query or need that a retrieval legitimately sends is that long.
const MaxScrubBytes = 64 << 10

// Kinds the scrubber reports besides those in the rules table.
const (
	scrubKindTooLong     = "text too long to check for secrets"
	scrubKindPasswordURL = "password in a URL"
	scrubKindSecretParam = "secret-named parameter"
	scrubKindRandom      = "random-looking value"
)

// Scrubber finds secrets in outbound text. Its zero value knows no environment secrets and
// checks the rules only.
type Scrubber struct {
	// env holds each remembered secret value in every form it is looked for, in the order
	// they are tried: plain, URL-encoded, base64-encoded.
	env []scrubEnvForm
	// digests are secret forms known only by salted digest (WithDigests): the worker's view
	// of the caller's secrets, which it never holds.
	digests *digestSet
}

// scrubEnvForm is one way a secret environment variable's value may appear in outbound text.
type scrubEnvForm struct {
	text string // what to look for
	kind string // what to report: it names the variable, never the value
}

// Finding is a secret found: what kind, in which field. It never holds the secret, nor any part
// of it, so it can be shown to the agent and written to the audit.
type Finding struct {
	Kind  string // e.g. "GitHub token", "value of $NPM_TOKEN", "random-looking value"
	Field string // e.g. "url", "query", "need", "header X-Title", "url query", "github path"
}

// Error renders the finding as a sentence fragment: "a GitHub token in the url".
func (f *Finding) Error() string {
	return findingArticle(f.Kind) + f.Kind + " in the " + f.Field
}

// findingArticle is the article a kind takes in Error. Kinds are chosen so that the first letter
// decides, with the exceptions listed.
func findingArticle(kind string) string {
	switch {
	case kind == "":
		return ""
	case strings.HasPrefix(kind, "value of "):
		return "the " // "the value of $NPM_TOKEN": the variable is the user's own
	case strings.HasPrefix(kind, "text "):
		return "" // "text too long to check for secrets"
	case strings.HasPrefix(kind, "npm "):
		return "an "
	case strings.IndexByte("AEIOaeio", kind[0]) >= 0: // not U: "a URL-encoded value"
		return "an "
	}
	return "a "
}

// NewScrubber takes the environment (os.Environ() form) and remembers the values of the
// variables whose names say they hold a secret (secretEnvName) and whose values could be one
// (plausibleSecret). Variables sharing a value are reported under the first name in sorted order.
func NewScrubber(environ []string) *Scrubber {
	entries := slices.Clone(environ)
	slices.Sort(entries)
	s := &Scrubber{}
	seen := map[string]bool{}
	for _, kv := range entries {
		name, value, ok := strings.Cut(kv, "=")
		if !ok || !secretEnvName(name) || !plausibleSecret(value) || seen[value] {
			continue
		}
		seen[value] = true
		s.env = append(s.env, scrubEnvForm{value, "value of $" + name})
		for _, enc := range []string{url.QueryEscape(value), url.PathEscape(value)} {
			if enc != value && !slices.ContainsFunc(s.env, func(f scrubEnvForm) bool { return f.text == enc }) {
				s.env = append(s.env, scrubEnvForm{enc, "URL-encoded value of $" + name})
			}
		}
		for _, core := range base64Cores(value) {
			s.env = append(s.env, scrubEnvForm{core, "base64-encoded value of $" + name})
		}
	}
	return s
}

// secretEnvName reports whether an environment variable's name says it holds a secret.
//
// Why: the user's own API keys are the secrets most likely to be at hand for an agent (it can
// read .env files and run env), and most of them have no recognisable format.
// What: names ending in one of secretEnvSuffixes, or exactly one of secretEnvNames, compared in
// upper case. PWD and OLDPWD, the working directories, do not match: _PWD needs its underscore.
// Test: TestScrubEnvNames.
func secretEnvName(name string) bool {
	up := strings.ToUpper(name)
	if slices.Contains(secretEnvNames, up) {
		return true
	}
	for _, suf := range secretEnvSuffixes {
		if strings.HasSuffix(up, suf) {
			return true
		}
	}
	return false
}

// secretEnvNames are the names that say they hold a secret on their own, in upper case. They and
// the name tables below are slices, not maps, so that the compiler lays them out rather than
// every hookctl process building them at start-up; none holds more than thirty names.
var secretEnvNames = []string{
	"PASSWORD", "PASSWD", "SECRET", "TOKEN", "APIKEY", "API_KEY",
	"CREDENTIALS", "PASSPHRASE",
}

var secretEnvSuffixes = []string{
	"_TOKEN", "_KEY", "_SECRET", "_PASSWORD", "_PASSWD", "_PASS", "_PWD", "_APIKEY", "_API_KEY",
	"_CREDENTIALS", "_CREDENTIAL", "_AUTH", "_PAT", "_PASSPHRASE",
}

// plausibleSecret reports whether an environment value could be a secret worth looking for.
//
// Why: a secret-named variable often holds no secret (DEBUG_TOKEN=true, GOOGLE_APPLICATION_
// CREDENTIALS=/path/key.json, ENV_SECRET=production), and looking for "true" or "production" in
// every query would refuse ordinary searches.
// What: not shorter than 8 bytes; not a number; not a path (/, ~/, ./, ../, C:\); not a word of
// one letter case shorter than 12 letters (dictionary words and host names); not a placeholder.
// Test: TestScrubEnvValues.
func plausibleSecret(v string) bool {
	switch {
	case len(v) < 8:
		return false
	case scrubIsNumber(v):
		return false
	case strings.HasPrefix(v, "/"), strings.HasPrefix(v, "~/"), strings.HasPrefix(v, "./"),
		strings.HasPrefix(v, "../"):
		return false
	case len(v) >= 3 && scrubLetter(v[0]) && v[1] == ':' && (v[2] == '\\' || v[2] == '/'):
		return false
	case len(v) < 12 && (scrubAllIn(v, 'a', 'z') || scrubAllIn(v, 'A', 'Z')):
		return false
	case isPlaceholder(v):
		return false
	}
	return true
}

// base64Cores returns the part of the base64 encoding of v that appears whatever bytes surround
// v in the encoded text, at each of the three alignments v can start at, in the standard and the
// URL alphabet. The encoded characters that mix v's bits with its neighbours' are left out.
func base64Cores(v string) []string {
	var cores []string
	for k := range 3 {
		enc := base64.RawStdEncoding.EncodeToString([]byte(strings.Repeat("\x00", k) + v))
		// Character i carries bits [6i, 6i+6); v's bits are [8k, 8(k+len)).
		start, end := (8*k+5)/6, 8*(k+len(v))/6
		if end-start < 8 {
			continue
		}
		core := enc[start:end]
		cores = append(cores, core)
		if u := strings.NewReplacer("+", "-", "/", "_").Replace(core); u != core {
			cores = append(cores, u)
		}
	}
	return cores
}

// Check looks at one outbound field's text: field names where it goes ("url", "query", "need",
// "header X-Title"). It looks at the text as written and as percent-decoded (up to three times,
// for double encoding) or with JSON's escaped slashes undone, and reports the first of: the
// user's environment secrets, the rules table's known formats, passwords in URLs and
// secret-named or random-looking URL parameters and userinfo (in every URL the text contains),
// then the generic rules (bearer and basic credentials, password assignments). Text over
// MaxScrubBytes is refused unread.
func (s *Scrubber) Check(field, text string) *Finding {
	if len(text) > MaxScrubBytes {
		return &Finding{Kind: scrubKindTooLong, Field: field}
	}
	vs := scrubViews(text)
	rules := scrubRules()
	lows := make([]string, len(vs))
	for i, v := range vs {
		lows[i] = scrubLower(v)
	}
	for _, v := range vs {
		for _, f := range s.env {
			if strings.Contains(v, f.text) {
				return &Finding{Kind: f.kind, Field: field}
			}
		}
		if kind := s.digests.find(v); kind != "" {
			return &Finding{Kind: kind, Field: field}
		}
	}
	for i, v := range vs {
		for j := range rules {
			if r := &rules[j]; !r.generic && r.found(v, lows[i]) {
				return &Finding{Kind: r.kind, Field: field}
			}
		}
	}
	for _, v := range vs {
		for _, u := range scrubURLSpans(v) {
			if kind, part := scrubURL(u, 0); kind != "" {
				return &Finding{Kind: kind, Field: scrubURLField(field, part)}
			}
		}
	}
	for i, v := range vs {
		for j := range rules {
			if r := &rules[j]; r.generic && r.found(v, lows[i]) {
				return &Finding{Kind: r.kind, Field: field}
			}
		}
	}
	return nil
}

// scrubURLField names the part of a URL a finding is in: "url query" for the url field itself,
// "need's url query" for a URL inside another field's text.
func scrubURLField(field, part string) string {
	if field == "url" {
		return "url " + part
	}
	return field + "'s url " + part
}

// CheckRequest checks every outbound part of a Request: the URL (as Check does, with every query
// parameter and fragment value decoded), the search query (also for random-looking words: it is
// sent as a URL parameter), the need, and the GitHub operation's strings. Who asked (Session and
// the rest) stays local and is not checked.
func (s *Scrubber) CheckRequest(r *retriever.Request) *Finding {
	if r == nil {
		return nil
	}
	if r.URL != "" {
		u := r.URL
		if !scrubHasScheme(u) && len(u)+len("http://") <= MaxScrubBytes {
			// The fetcher refuses a URL without a scheme; read it as one anyway, so that its
			// query is still parsed should another part of the retriever add the scheme.
			u = "http://" + u
		}
		if f := s.Check("url", u); f != nil {
			return f
		}
	}
	if r.Query != "" {
		if f := s.Check("query", r.Query); f != nil {
			return f
		}
		if hasRandomRun(r.Query, minRandomLen) {
			return &Finding{Kind: scrubKindRandom, Field: "query"}
		}
	}
	if r.Need != "" {
		if f := s.Check("need", r.Need); f != nil {
			return f
		}
	}
	if g := r.GitHub; g != nil {
		parts := []struct{ field, text string }{
			{"github op", g.Op}, {"github host", g.Host}, {"github owner", g.Owner},
			{"github repo", g.Repo}, {"github path", g.Path}, {"github ref", g.Ref},
			{"github search", g.Search}, {"github author", g.Author}, {"github branch", g.Branch},
			{"github accept", g.Accept},
		}
		for _, l := range g.Labels {
			parts = append(parts, struct{ field, text string }{"github label", l})
		}
		for _, q := range g.Query {
			parts = append(parts, struct{ field, text string }{"github query", q})
		}
		for _, p := range parts {
			if p.text == "" {
				continue
			}
			if f := s.Check(p.field, p.text); f != nil {
				return f
			}
		}
	}
	return nil
}

// scrubHasScheme reports whether u begins with a scheme (RFC 3986: a letter, then letters,
// digits, + - or ., then a colon) that is not a host and port (example.com:8080).
func scrubHasScheme(u string) bool {
	if strings.Contains(u, "://") {
		return true
	}
	for i := 0; i < len(u); i++ {
		c := u[i]
		switch {
		case c == ':':
			return i > 0 && (i+1 == len(u) || u[i+1] < '0' || u[i+1] > '9')
		case scrubLetter(c), i > 0 && (scrubAlnum(c) || c == '+' || c == '-' || c == '.'):
		default:
			return false
		}
	}
	return false
}

// scrubViews are the forms of text the rules look at: as written, then each successive
// percent-decoding (three at most: a secret encoded three times over is out of scope), then with
// JSON's \/ undone. Each is no longer than text, so the work stays linear.
func scrubViews(text string) []string {
	vs := []string{text}
	for cur := text; len(vs) < 4 && strings.IndexByte(cur, '%') >= 0; {
		next := scrubDecode(cur)
		if next == cur {
			break
		}
		vs = append(vs, next)
		cur = next
	}
	if strings.Contains(text, `\/`) {
		vs = append(vs, strings.ReplaceAll(text, `\/`, "/"))
	}
	return vs
}

// scrubDecode decodes every well-formed %XX escape and leaves everything else, '+' included,
// as it is: url.QueryUnescape gives up on the first malformed escape, and an attacker can add one.
func scrubDecode(s string) string {
	if strings.IndexByte(s, '%') < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) && scrubIsHex(s[i+1]) && scrubIsHex(s[i+2]) {
			b.WriteByte(scrubUnhex(s[i+1])<<4 | scrubUnhex(s[i+2]))
			i += 2 // consumed the escape
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// scrubDecodeAll decodes until nothing changes, three times at most.
func scrubDecodeAll(s string) string {
	for range 3 {
		next := scrubDecode(s)
		if next == s {
			break
		}
		s = next
	}
	return s
}

// scrubRule is one named pattern of the table.
type scrubRule struct {
	name string // short identifier, for tests
	kind string // what the user is told was found
	// keywords are lower-case literals of which the text must contain one before the pattern
	// runs, so that most rules cost a substring search on most text. None: the pattern always runs.
	keywords []string
	// gate, if set, replaces keywords for a format with no literal part.
	gate func(lower string) bool
	re   *lazyRegexp // Go's RE2: time linear in the text
	// confirm, if set, rejects a match the pattern admits but that is no secret (an issuer's
	// documentation example, a placeholder). m holds re's submatch indexes.
	confirm func(text string, m []int) bool
	// generic rules find credentials by their context rather than their format; they run after
	// the URL checks, so that a URL parameter is reported as one.
	generic bool
}

// found reports whether the rule matches text; lower is text in ASCII lower case.
func (r *scrubRule) found(text, lower string) bool {
	if r.gate != nil && !r.gate(lower) {
		return false
	}
	if len(r.keywords) > 0 && !slices.ContainsFunc(r.keywords, func(k string) bool {
		return strings.Contains(lower, k)
	}) {
		return false
	}
	for _, m := range r.re.FindAllStringSubmatchIndex(text, -1) {
		if r.confirm == nil || r.confirm(text, m) {
			return true
		}
	}
	return false
}

// lazyRegexp is a rule's pattern, compiled the first time a text passes its keywords or gate:
// most texts pass none, and the read-only launcher checks each variable of the environment it
// passes, where compiling all 53 patterns cost each launch about a millisecond.
type lazyRegexp struct {
	src  string
	once sync.Once
	re   *regexp.Regexp
}

func lazyPattern(src string) *lazyRegexp { return &lazyRegexp{src: src} }

// FindAllStringSubmatchIndex is the pattern's; a pattern that does not compile panics, as
// MustCompile did (TestScrubRulesCompile compiles them all).
func (l *lazyRegexp) FindAllStringSubmatchIndex(s string, n int) [][]int {
	l.once.Do(func() { l.re = regexp.MustCompile(l.src) })
	return l.re.FindAllStringSubmatchIndex(s, n)
}

// ruleGroup is submatch i of m in text, or the whole match if the pattern has no such group.
func ruleGroup(text string, m []int, i int) string {
	if 2*i+1 < len(m) && m[2*i] >= 0 {
		return text[m[2*i]:m[2*i+1]]
	}
	return text[m[0]:m[1]]
}

// ruleKeywords lists a rule's keywords.
func ruleKeywords(k ...string) []string { return k }

// scrubRules are the known formats, each with the issuer's documented shape. Prefixes that issuers
// chose to be greppable (ghp_, glpat-, xoxb-, sk_live_…) are matched on their own; formats
// without a prefix (AWS secret keys, legacy Heroku keys) only next to their name. They are
// compiled on first use: every hookctl process links this package, most never retrieve, and
// compiling these and the injection rules at init cost each hook call about 4.8 ms. A sync.Once
// rather than sync.OnceValue, whose call at package level allocated when the hook started. If
// compiling panicked, every later call panics too, as with OnceValue: the scrubber never runs
// with no rules.
func scrubRules() []scrubRule {
	scrubRulesOnce.Do(func() { scrubRulesCompiled = compileScrubRules() })
	if scrubRulesCompiled == nil {
		panic("scrub: the secret rules did not compile")
	}
	return scrubRulesCompiled
}

var (
	scrubRulesOnce     sync.Once
	scrubRulesCompiled []scrubRule
)

// compileScrubRules builds the table scrubRules returns; only scrubRules calls it.
func compileScrubRules() []scrubRule {
	return []scrubRule{
		// AWS access key IDs: a four-letter prefix for the kind of principal (AKIA long-term user
		// key, ASIA temporary STS key, AGPA group, AIDA user, AROA role, ANPA/ANVA policies, AIPA
		// instance profile) and 16 upper-case letters and digits ("Unique identifiers", IAM User
		// Guide). The documentation's AKIAIOSFODNN7EXAMPLE passes.
		{name: "aws-access-key-id", kind: "AWS access key ID",
			keywords: ruleKeywords("akia", "asia", "agpa", "aida", "aroa", "anpa", "anva", "aipa"),
			re:       lazyPattern(`\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[A-Z0-9]{16}\b`),
			confirm:  notAWSExample},
		// AWS secret access keys: 40 base64 characters with no prefix, so only after their name as
		// written in ~/.aws/credentials (aws_secret_access_key), the environment
		// (AWS_SECRET_ACCESS_KEY) or API JSON (SecretAccessKey). The documentation's
		// wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY passes.
		{name: "aws-secret-access-key", kind: "AWS secret access key",
			keywords: ruleKeywords("secret_access_key", "secretaccesskey"),
			re:       lazyPattern(`(?i)secret_?access_?key["']?\s*[:=]\s*["']?([A-Za-z0-9/+]{40})(?:[^A-Za-z0-9/+=]|$)`),
			confirm:  notAWSExample},
		// GitHub tokens: ghp_ (personal access token, classic), gho_ (OAuth), ghu_ (user-to-server),
		// ghs_ (server-to-server), ghr_ (refresh) and 36 base62 characters ("About authentication to
		// GitHub", GitHub Docs; "Behind GitHub's new authentication token formats", 2021).
		{name: "github-token", kind: "GitHub token",
			keywords: ruleKeywords("ghp_", "gho_", "ghu_", "ghs_", "ghr_"),
			re:       lazyPattern(`\bgh[pousr]_[A-Za-z0-9]{36}`)},
		// GitHub fine-grained personal access tokens: github_pat_, 22 characters, _, 59 characters.
		{name: "github-fine-grained", kind: "GitHub token",
			keywords: ruleKeywords("github_pat_"),
			re:       lazyPattern(`\bgithub_pat_[A-Za-z0-9_]{50,}`)},
		// GitLab tokens: glpat- personal, gldt- deploy, glrt- runner, glptt- pipeline trigger, glft-
		// feed, glcbt- CI/CD job, glimt- incoming mail, glsoat- SCIM, gloas- OAuth application
		// secret, glagent- agent, glffct- feature flags client, glwt- workspace; 20 or more
		// characters follow ("Token overview", GitLab Docs).
		{name: "gitlab-token", kind: "GitLab token",
			keywords: ruleKeywords("glpat-", "gldt-", "glrt-", "glptt-", "glft-", "glcbt-", "glimt-", "glsoat-",
				"gloas-", "glagent-", "glffct-", "glwt-"),
			re: lazyPattern(`\bgl(?:pat|dt|rt|ptt|ft|cbt|imt|soat|oas|agent|ffct|wt)-[A-Za-z0-9_-]{20,}`)},
		// Slack tokens: xoxb- bot, xoxp- user, xoxa- workspace app, xoxr- refresh, xoxs- session,
		// xoxe- configuration, xoxo-; hyphenated numbers and a random part ("Token types", Slack API).
		{name: "slack-token", kind: "Slack token",
			keywords: ruleKeywords("xox"),
			re:       lazyPattern(`\bxox[abeoprs]-[A-Za-z0-9-]{10,}`)},
		// Slack app-level tokens: xapp-, a version number, the app ID, digits and hex.
		{name: "slack-app-token", kind: "Slack token",
			keywords: ruleKeywords("xapp-"),
			re:       lazyPattern(`\bxapp-[0-9]+-[A-Za-z0-9-]{10,}`)},
		// Slack incoming webhooks: the URL is the credential, hooks.slack.com/services/T…/B…/secret
		// ("Sending messages using incoming webhooks"); workflows and triggers URLs likewise.
		{name: "slack-webhook", kind: "Slack webhook URL",
			keywords: ruleKeywords("hooks.slack.com"),
			re:       lazyPattern(`hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/+-]{20,}`)},
		// Discord webhooks: discord.com/api/webhooks/<id>/<token> ("Webhook resource", Discord
		// Developer Portal); discordapp.com is the old host.
		{name: "discord-webhook", kind: "Discord webhook URL",
			keywords: ruleKeywords("discord"),
			re:       lazyPattern(`discord(?:app)?\.com/api/(?:v[0-9]+/)?webhooks/[0-9]{5,}/[A-Za-z0-9_-]{20,}`)},
		// Microsoft Teams incoming webhooks: <tenant>.webhook.office.com/webhookb2/… and the older
		// outlook.office.com/webhook/….
		{name: "teams-webhook", kind: "Microsoft Teams webhook URL",
			keywords: ruleKeywords("webhook.office.com", "outlook.office"),
			re:       lazyPattern(`(?:webhook\.office\.com/webhookb2|outlook\.office(?:365)?\.com/webhook)/[A-Za-z0-9@/_-]{30,}`)},
		// Stripe secret and restricted keys: sk_live_, rk_live_, and the test-mode sk_test_,
		// rk_test_ ("API keys", Stripe Docs). Test keys are refused too: they read and write the
		// account's test data. Publishable keys (pk_) are public by design and pass.
		{name: "stripe-key", kind: "Stripe secret key",
			keywords: ruleKeywords("k_live_", "k_test_"),
			re:       lazyPattern(`\b[rs]k_(?:live|test)_[A-Za-z0-9]{24,}`)},
		// Stripe webhook signing secrets: whsec_ ("Check the webhook signatures").
		{name: "stripe-webhook-secret", kind: "Stripe webhook secret",
			keywords: ruleKeywords("whsec_"),
			re:       lazyPattern(`\bwhsec_[A-Za-z0-9+/=]{24,}`)},
		// Anthropic API keys: sk-ant-api03-…, admin keys sk-ant-admin01-…, OAuth sk-ant-oat01-….
		{name: "anthropic-key", kind: "Anthropic API key",
			keywords: ruleKeywords("sk-ant-"),
			re:       lazyPattern(`\bsk-ant-[A-Za-z0-9_-]{32,}`)},
		// OpenAI project, service-account and admin keys: sk-proj-, sk-svcacct-, sk-admin-.
		{name: "openai-key", kind: "OpenAI API key",
			keywords: ruleKeywords("sk-proj-", "sk-svcacct-", "sk-admin-", "sk-none-"),
			re:       lazyPattern(`\bsk-(?:proj|svcacct|admin|None)-[A-Za-z0-9_-]{20,}`)},
		// OpenAI legacy user keys: sk- and 48 base62 characters.
		{name: "openai-legacy-key", kind: "OpenAI API key",
			keywords: ruleKeywords("sk-"),
			re:       lazyPattern(`\bsk-[A-Za-z0-9]{48}\b`)},
		// Google API keys: AIza and 35 characters ("Manage API keys", Google Cloud).
		{name: "google-api-key", kind: "Google API key",
			keywords: ruleKeywords("aiza"),
			re:       lazyPattern(`\bAIza[0-9A-Za-z_-]{35}`)},
		// Google OAuth 2.0 access tokens: ya29. and the token.
		{name: "google-oauth-token", kind: "Google OAuth token",
			keywords: ruleKeywords("ya29."),
			re:       lazyPattern(`\bya29\.[0-9A-Za-z_-]{30,}`)},
		// Google OAuth client secrets: GOCSPX- and 28 characters.
		{name: "google-client-secret", kind: "Google OAuth client secret",
			keywords: ruleKeywords("gocspx-"),
			re:       lazyPattern(`\bGOCSPX-[0-9A-Za-z_-]{28}`)},
		// npm access tokens: npm_ and 36 base62 characters ("About access tokens", npm Docs).
		{name: "npm-token", kind: "npm token",
			keywords: ruleKeywords("npm_"),
			re:       lazyPattern(`\bnpm_[A-Za-z0-9]{36}\b`)},
		// PyPI API tokens: pypi- and a macaroon, base64 beginning AgE (AgEIcHlwaS5vcmc is "pypi.org"
		// on pypi.org, AgENdGVzdC5weXBp "test.pypi" on TestPyPI) ("API tokens", PyPI help).
		{name: "pypi-token", kind: "PyPI token",
			keywords: ruleKeywords("pypi-age"),
			re:       lazyPattern(`\bpypi-AgE[A-Za-z0-9_-]{50,}`)},
		// Twilio API keys: SK and 32 hex digits ("API keys", Twilio Docs). Account SIDs (AC and 32
		// hex) name an account, appear in every API URL and pass; the auth token has no format.
		{name: "twilio-api-key", kind: "Twilio API key",
			keywords: ruleKeywords("sk"),
			re:       lazyPattern(`\bSK[0-9a-fA-F]{32}\b`)},
		// SendGrid API keys: SG., 22 characters, ., 43 characters.
		{name: "sendgrid-key", kind: "SendGrid API key",
			keywords: ruleKeywords("sg."),
			re:       lazyPattern(`\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}\b`)},
		// Mailgun private API keys, legacy form: key- and 32 hex digits.
		{name: "mailgun-key", kind: "Mailgun API key",
			keywords: ruleKeywords("key-"),
			re:       lazyPattern(`\bkey-[0-9a-f]{32}\b`)},
		// Mailgun private API keys, current form: 32 hex, -, 8 hex, -, 8 hex (a UUID is 8-4-4-4-12
		// and does not match).
		{name: "mailgun-key-v2", kind: "Mailgun API key",
			gate: func(lower string) bool { return longestHexRun(lower) >= 32 },
			re:   lazyPattern(`\b[0-9a-f]{32}-[0-9a-f]{8}-[0-9a-f]{8}\b`)},
		// Heroku API keys, current form: HRKU- and the token.
		{name: "heroku-key", kind: "Heroku API key",
			keywords: ruleKeywords("hrku-"),
			re:       lazyPattern(`\bHRKU-[A-Za-z0-9_-]{20,}`)},
		// Heroku API keys, legacy form: a UUID, so only after a name that says Heroku
		// (HEROKU_API_KEY=…, heroku_token: …). A UUID anywhere else is an identifier.
		{name: "heroku-key-legacy", kind: "Heroku API key",
			keywords: ruleKeywords("heroku"),
			re:       lazyPattern(`(?i)heroku[a-z0-9_.-]{0,24}["']?\s*[:=]\s*["']?[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b`)},
		// DigitalOcean tokens: dop_v1_ personal, doo_v1_ OAuth, dor_v1_ refresh; 64 hex digits.
		{name: "digitalocean-token", kind: "DigitalOcean token",
			keywords: ruleKeywords("_v1_"),
			re:       lazyPattern(`\bdo[opr]_v1_[0-9a-f]{64}\b`)},
		// Hugging Face user access tokens: hf_ and 34 letters ("User access tokens", Hub docs).
		{name: "huggingface-token", kind: "Hugging Face token",
			keywords: ruleKeywords("hf_"),
			re:       lazyPattern(`\bhf_[A-Za-z0-9]{34,}`)},
		// Hugging Face organisation API tokens (legacy): api_org_ and 34 characters.
		{name: "huggingface-org-token", kind: "Hugging Face token",
			keywords: ruleKeywords("api_org_"),
			re:       lazyPattern(`\bapi_org_[A-Za-z0-9]{34,}`)},
		// Shopify: shpat_ Admin API access token, shpca_ custom app, shppa_ private app, shpss_
		// shared secret; 32 hex digits.
		{name: "shopify-token", kind: "Shopify token",
			keywords: ruleKeywords("shpat_", "shpca_", "shppa_", "shpss_"),
			re:       lazyPattern(`\bshp(?:at|ca|pa|ss)_[0-9a-fA-F]{32}\b`)},
		// Azure Storage connection strings: AccountKey= and 64 bytes in base64 (86 characters and
		// ==) ("Configure Azure Storage connection strings").
		{name: "azure-storage-key", kind: "Azure storage account key",
			keywords: ruleKeywords("accountkey="),
			re:       lazyPattern(`(?i)\bAccountKey=[A-Za-z0-9+/]{86}==`)},
		// Azure Service Bus, Event Hubs and IoT Hub connection strings: SharedAccessKey= and 32
		// bytes in base64 (43 characters and =).
		{name: "azure-shared-access-key", kind: "Azure shared access key",
			keywords: ruleKeywords("sharedaccesskey="),
			re:       lazyPattern(`(?i)\bSharedAccessKey=[A-Za-z0-9+/]{43}=`)},
		// PEM private keys (RFC 7468): -----BEGIN [RSA |EC |DSA |OPENSSH |ENCRYPTED |PGP ]PRIVATE
		// KEY[ BLOCK]----- followed by a base64 body, also with the newlines written as \n (JSON,
		// .env) or the spaces as + (a form-encoded query). A header alone, as when asking what
		// one means, passes: confirm requires 40 base64 characters within 512 bytes of it.
		{name: "private-key", kind: "private key",
			keywords: ruleKeywords("private"),
			re:       lazyPattern(`-----BEGIN[ +](?:[A-Z0-9]+[ +]){0,3}PRIVATE[ +]KEY(?:[ +]BLOCK)?-----`),
			confirm:  pemBodyFollows},
		// JSON Web Tokens (RFC 7519) in compact form: base64url header and claims, each a JSON object
		// and so beginning eyJ, and a signature.
		{name: "jwt", kind: "JSON Web Token",
			keywords: ruleKeywords("eyj"),
			re:       lazyPattern(`\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{16,}`)},
		// Telegram bot tokens: the bot's numeric ID, :, AA and 33 characters ("Bot API").
		{name: "telegram-bot-token", kind: "Telegram bot token",
			keywords: ruleKeywords(":aa"),
			re:       lazyPattern(`(?:^|[^0-9])[0-9]{8,10}:AA[0-9A-Za-z_-]{33}`)}, // also in /bot<token>/
		// age identities: AGE-SECRET-KEY-1 and 58 Bech32 characters (age-encryption.org/v1).
		{name: "age-secret-key", kind: "age secret key",
			keywords: ruleKeywords("age-secret-key-1"),
			re:       lazyPattern(`\bAGE-SECRET-KEY-1[0-9A-Z]{58}\b`)},
		// Atlassian API tokens: ATATT3 and the token.
		{name: "atlassian-token", kind: "Atlassian API token",
			keywords: ruleKeywords("atatt3"),
			re:       lazyPattern(`\bATATT3[A-Za-z0-9_=-]{40,}`)},
		// Databricks personal access tokens: dapi and 32 hex digits, with an optional -N.
		{name: "databricks-token", kind: "Databricks token",
			keywords: ruleKeywords("dapi"),
			re:       lazyPattern(`\bdapi[0-9a-f]{32}(?:-[0-9])?\b`)},
		// Postman API keys: PMAK-, 24 hex, -, 34 hex.
		{name: "postman-key", kind: "Postman API key",
			keywords: ruleKeywords("pmak-"),
			re:       lazyPattern(`\bPMAK-[0-9a-f]{24}-[0-9a-f]{34}\b`)},
		// Linear API keys: lin_api_ personal, lin_oauth_ OAuth; 40 characters.
		{name: "linear-key", kind: "Linear API key",
			keywords: ruleKeywords("lin_api_", "lin_oauth_"),
			re:       lazyPattern(`\blin_(?:api|oauth)_[A-Za-z0-9]{40}\b`)},
		// Grafana service account tokens: glsa_, 32 characters, _, 8 hex (a CRC32).
		{name: "grafana-service-account", kind: "Grafana token",
			keywords: ruleKeywords("glsa_"),
			re:       lazyPattern(`\bglsa_[A-Za-z0-9]{32}_[0-9a-fA-F]{8}\b`)},
		// Grafana Cloud access policy tokens: glc_ and base64.
		{name: "grafana-cloud-token", kind: "Grafana token",
			keywords: ruleKeywords("glc_"),
			re:       lazyPattern(`\bglc_[A-Za-z0-9+/]{32,}`)},
		// Sentry tokens: sntrys_ organisation auth tokens (base64 claims and a signature), sntryu_
		// user auth tokens (64 hex digits).
		{name: "sentry-token", kind: "Sentry token",
			keywords: ruleKeywords("sntrys_", "sntryu_"),
			re:       lazyPattern(`\bsntry[su]_[A-Za-z0-9+/=_]{32,}`)},
		// Supabase personal access tokens: sbp_ and 40 hex digits.
		{name: "supabase-token", kind: "Supabase token",
			keywords: ruleKeywords("sbp_"),
			re:       lazyPattern(`\bsbp_[0-9a-f]{40}\b`)},
		// Notion integration tokens: ntn_ (current) or secret_ and 43 characters (legacy).
		{name: "notion-token", kind: "Notion token",
			keywords: ruleKeywords("ntn_", "secret_"),
			re:       lazyPattern(`\b(?:ntn_[A-Za-z0-9]{40,}|secret_[A-Za-z0-9]{43}\b)`)},
		// Doppler tokens: dp.pt. personal, dp.st. service, dp.sa. service account, dp.ct. CLI,
		// dp.scim., dp.audit.; 40 or more characters.
		{name: "doppler-token", kind: "Doppler token",
			keywords: ruleKeywords("dp."),
			re:       lazyPattern(`\bdp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9]{40,}`)},
		// Terraform Cloud / HCP Terraform API tokens: 14 characters, .atlasv1., and 60 or more.
		{name: "terraform-token", kind: "Terraform Cloud token",
			keywords: ruleKeywords(".atlasv1."),
			re:       lazyPattern(`\b[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,}`)},
		// Pulumi access tokens: pul- and 40 hex digits.
		{name: "pulumi-token", kind: "Pulumi token",
			keywords: ruleKeywords("pul-"),
			re:       lazyPattern(`\bpul-[0-9a-f]{40}\b`)},
		// HashiCorp Vault tokens: hvs. service, hvb. batch, hvr. recovery (Vault 1.10 formats).
		{name: "vault-token", kind: "Vault token",
			keywords: ruleKeywords("hvs.", "hvb.", "hvr."),
			re:       lazyPattern(`\bhv[sbr]\.[A-Za-z0-9_-]{24,}`)},
		// Mapbox secret tokens: sk. and a JWT-like body (public tokens are pk. and pass).
		{name: "mapbox-secret-token", kind: "Mapbox secret token",
			keywords: ruleKeywords("sk.eyj"),
			re:       lazyPattern(`\bsk\.eyJ[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{20,}`)},
		// The generic rules: credentials recognised by the words around them.

		// Bearer tokens (RFC 6750): "Bearer" and a token68 of 16 characters or more that looks
		// like a credential, not a placeholder (Bearer YOUR_TOKEN, Bearer $TOKEN) or a word.
		{name: "bearer", kind: "bearer token", generic: true,
			keywords: ruleKeywords("bearer"),
			re:       lazyPattern(`(?i)\bbearer\s+([A-Za-z0-9._~+/-]{16,}=*)`),
			confirm:  func(text string, m []int) bool { return credentialLike(ruleGroup(text, m, 1)) }},
		// Basic credentials (RFC 7617): "Basic" and base64 that decodes to printable user:password.
		{name: "basic-auth", kind: "basic-auth credential", generic: true,
			keywords: ruleKeywords("basic"),
			re:       lazyPattern(`(?i)\bbasic\s+([A-Za-z0-9+/]{8,}={0,2})(?:[^A-Za-z0-9+/=]|$)`),
			confirm:  func(text string, m []int) bool { return basicCredential(ruleGroup(text, m, 1)) }},
		// Assignments of credentials in config and code (password=…, "api_key": "…", DB_PASSWORD:
		// …): a name ending in a credential word, = or :, and a value that looks like a credential
		// rather than code (os.environ[…], settings.KEY) or a placeholder. Pagination names
		// (page_token, nextToken) are left to the entropy rule.
		{name: "assignment", kind: "password or key assignment", generic: true,
			keywords: ruleKeywords("pass", "pwd", "secret", "key", "token"),
			re:       lazyPattern(`(?i)(password|passwd|passphrase|pwd|secret|api_?key|access_?key|private_?key|access_?token|auth_?token|refresh_?token|token)["']?\s*[:=]\s*["']?([^\s"'&,;]{8,})`),
			confirm: func(text string, m []int) bool {
				// The name is the whole identifier the credential word ends (db_password,
				// next_page_token); the pattern starts at the word, which keeps it fast.
				start := m[0]
				for start > 0 && (scrubAlnum(text[start-1]) || text[start-1] == '_') {
					start--
				}
				name := text[start:m[3]]
				return !slices.Contains(paginationNames, normalizeParamName(name)) && credentialLike(ruleGroup(text, m, 2))
			}},
	}
}

// notAWSExample rejects AWS's documentation examples, which end in EXAMPLE or EXAMPLEKEY.
func notAWSExample(text string, m []int) bool {
	return !strings.Contains(ruleGroup(text, m, 1), "EXAMPLE")
}

// pemBodyFollows reports whether a run of 40 base64 characters follows a PEM header within 512
// bytes: a key's body has 64-character lines, a header alone has none.
func pemBodyFollows(text string, m []int) bool {
	rest := text[m[1]:min(len(text), m[1]+512)]
	run := 0
	for i := 0; i < len(rest); i++ {
		if scrubAlnum(rest[i]) || rest[i] == '+' || rest[i] == '/' {
			if run++; run >= 40 {
				return true
			}
			continue
		}
		run = 0
	}
	return false
}

// basicCredential reports whether b64 decodes to printable text user:password with a password
// that is not a placeholder.
func basicCredential(b64 string) bool {
	raw, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		raw, err = base64.RawStdEncoding.DecodeString(strings.TrimRight(b64, "="))
		if err != nil {
			return false
		}
	}
	for _, c := range raw {
		if c < 0x20 || c > 0x7e {
			return false
		}
	}
	_, pass, ok := strings.Cut(string(raw), ":")
	return ok && pass != "" && !isPlaceholder(pass)
}

// credentialLike reports whether a value next to a credential word is one: 8 bytes or more,
// neither a placeholder nor code, and either of three character classes or more (Tr0ub4dor),
// random-looking, or 32 hex digits or more.
func credentialLike(v string) bool {
	if len(v) < 8 || isPlaceholder(v) || scrubCodeLike(v) {
		return false
	}
	return scrubCharClasses(v) >= 3 || looksRandom(v) || longestHexRun(v) >= 32
}

// scrubCodeLike reports whether v is an expression rather than a literal: it has brackets, quotes
// or a variable sigil, or is a dotted name (settings.SECRET_KEY, process.env.TOKEN).
func scrubCodeLike(v string) bool {
	if strings.ContainsAny(v, "()[]{}<>$%`\\") {
		return true
	}
	parts := strings.Split(v, ".")
	if len(parts) < 2 {
		return false
	}
	for _, p := range parts {
		if p == "" || !(scrubLetter(p[0]) || p[0] == '_') {
			return false
		}
		for i := 0; i < len(p); i++ {
			if !scrubAlnum(p[i]) && p[i] != '_' {
				return false
			}
		}
	}
	return true
}

// isPlaceholder reports whether v stands for a secret rather than being one: a template
// (<token>, {token}, ${TOKEN}, $TOKEN, %TOKEN%, [token]), a mask (****, xxxxxxxx), an
// UPPER_SNAKE name (YOUR_API_KEY), or text saying so (your-token-here, changeme, redacted).
func isPlaceholder(v string) bool {
	v = strings.TrimSpace(v)
	if v == "" {
		return true
	}
	lower := strings.ToLower(v)
	if slices.Contains(scrubPlaceholderWords, lower) {
		return true
	}
	for _, w := range []string{"your", "placeholder", "redacted", "changeme", "example", "dummy", "xxxx", "****"} {
		if strings.Contains(lower, w) {
			return true
		}
	}
	first, last := v[0], v[len(v)-1]
	switch {
	case len(v) > 2 && (first == '<' && last == '>' || first == '{' && last == '}' ||
		first == '[' && last == ']' || first == '%' && last == '%') && placeholderName(v[1:len(v)-1]):
		return true // <token>, {api key}, [password], %TOKEN%
	case first == '$' && (strings.HasPrefix(v, "${") && last == '}' || placeholderName(v[1:])):
		return true // ${TOKEN}, $TOKEN
	case strings.HasPrefix(v, "{{") && strings.HasSuffix(v, "}}"):
		return true // a template
	case strings.Count(v, v[:1]) == len(v):
		return true // one character repeated
	}
	snake := strings.IndexByte(v, '_') >= 0
	for i := 0; i < len(v); i++ {
		if c := v[i]; !(c >= 'A' && c <= 'Z') && c != '_' {
			snake = false
			break
		}
	}
	return snake
}

// placeholderName reports whether s is a name inside a placeholder's brackets: letters, digits,
// spaces, _ - and ., beginning with a letter or _.
func placeholderName(s string) bool {
	if s == "" || !(scrubLetter(s[0]) || s[0] == '_') {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !scrubAlnum(c) && c != '_' && c != '-' && c != '.' && c != ' ' {
			return false
		}
	}
	return true
}

var scrubPlaceholderWords = []string{
	"password", "passwd", "pass", "secret", "token", "apikey",
	"api_key", "api-key", "true", "false", "null", "none",
	"nil", "undefined", "hidden", "masked", "sample", "test",
	"enabled", "disabled", "default", "required", "optional",
}

// scrubCharClasses counts the classes present in v: lower case, upper case, digits, other.
func scrubCharClasses(v string) int {
	var lower, upper, digit, other int
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case c >= 'a' && c <= 'z':
			lower = 1
		case c >= 'A' && c <= 'Z':
			upper = 1
		case c >= '0' && c <= '9':
			digit = 1
		default:
			other = 1
		}
	}
	return lower + upper + digit + other
}

// longestHexRun is the length of the longest run of hex digits in v.
func longestHexRun(v string) int {
	best, run := 0, 0
	for i := 0; i < len(v); i++ {
		if scrubIsHex(v[i]) {
			run++
			best = max(best, run)
		} else {
			run = 0
		}
	}
	return best
}

// scrubURLSpans returns the URLs in text: each scheme://… up to whitespace, a quote or an angle
// bracket. A URL nested in another's query is checked by scrubURL, not listed twice, so the
// spans do not overlap and the scan is linear.
func scrubURLSpans(text string) []string {
	var spans []string
	for i := 0; i < len(text); {
		j := strings.Index(text[i:], "://")
		if j < 0 {
			break
		}
		j += i
		start := j
		for start > i && j-start < 32 && scrubSchemeByte(text[start-1]) {
			start-- // back over the scheme
		}
		end := j + 3
		for end < len(text) && !scrubEndsURL(text[end]) {
			end++ // over the rest of the URL
		}
		for start < j && !scrubLetter(text[start]) {
			start++ // a scheme begins with a letter: 1https:// is https://
		}
		if start < j {
			spans = append(spans, text[start:end])
		}
		i = end // every iteration consumes at least "://"
	}
	return spans
}

func scrubSchemeByte(c byte) bool { return scrubAlnum(c) || c == '+' || c == '-' || c == '.' }

func scrubEndsURL(c byte) bool {
	return c <= ' ' || c == 0x7f || c == '"' || c == '\'' || c == '<' || c == '>' || c == '`'
}

// scrubMaxURLDepth bounds the nesting of URLs in query values (a redirect_uri holding a URL holding
// another) that scrubURL follows.
const scrubMaxURLDepth = 3

// scrubURL looks at the parts of one URL where a secret travels by name or by randomness: the
// userinfo, the query and the fragment. It returns the kind found and the part ("userinfo",
// "query", "fragment"), or "". The path and host are only searched for known formats and
// environment secrets (by Check), not for randomness: content hashes, commit SHAs and document
// IDs live there.
func scrubURL(u string, depth int) (kind, part string) {
	rest := u
	if i := strings.Index(rest, "://"); i >= 0 {
		rest = rest[i+3:]
	}
	authEnd := strings.IndexAny(rest, `/?#\`)
	if authEnd < 0 {
		authEnd = len(rest)
	}
	auth, after := rest[:authEnd], rest[authEnd:]
	host := auth
	// Passwords in URLs (RFC 3986 userinfo, user:password@host): database and proxy URLs carry
	// them. A placeholder password (<password>, ${PASS}, ****) passes; so does a user alone
	// (ssh://git@host) unless it looks random.
	if at := strings.LastIndexByte(auth, '@'); at >= 0 {
		user, pass, hasPass := strings.Cut(auth[:at], ":")
		user = scrubDecodeAll(user)
		if hasPass && !isPlaceholder(scrubDecodeAll(pass)) {
			return scrubKindPasswordURL, "userinfo"
		}
		if hasRandomRun(user, minRandomLen) {
			return scrubKindRandom, "userinfo"
		}
		host = auth[at+1:]
	}
	host = scrubHostName(host)
	var query, fragment string
	if h := strings.IndexByte(after, '#'); h >= 0 {
		after, fragment = after[:h], after[h+1:]
	}
	if q := strings.IndexByte(after, '?'); q >= 0 {
		query = after[q+1:]
	}
	if kind := scrubParams(host, query, depth); kind != "" {
		return kind, "query"
	}
	if fragment != "" {
		if strings.IndexByte(fragment, '=') < 0 {
			// A fragment without parameters is one value: #section-name, #L10-L20, or a token.
			if hasRandomRun(scrubDecodeAll(fragment), minRandomLen) {
				return scrubKindRandom, "fragment"
			}
		} else if kind := scrubParams(host, fragment, depth); kind != "" {
			return kind, "fragment"
		}
	}
	return "", ""
}

// scrubHostName is the lower-case host of an authority, without userinfo, port or a final dot.
func scrubHostName(auth string) string {
	h := strings.ToLower(auth)
	if strings.HasPrefix(h, "[") {
		if i := strings.IndexByte(h, ']'); i >= 0 {
			return h[:i+1]
		}
	}
	if i := strings.LastIndexByte(h, ':'); i >= 0 {
		h = h[:i]
	}
	return strings.TrimSuffix(h, ".")
}

// scrubParams checks each name=value of a query or fragment (& or ; separated), decoded. It
// returns the kind found or "".
//
// Why: a URL parameter is how a secret is sent to a web server, and most secrets have no known
// format. The parameter's name often says what it holds (access_token=, api_key=, password=),
// and an unnamed secret is still a long random string, which ordinary parameters are not.
// What, for each parameter in order:
//   - a name in secretParamNames, or ending in one of secretParamSuffixes (pagination names like
//     page_token excepted), with a value that is not trivial (6 bytes or more, not a placeholder);
//   - a name in weakSecretParamNames (key, auth, session, sig, sid, pass, which also name
//     ordinary things) with a random-looking run of 12 or more or 32 hex digits;
//   - a value (of any name, or none) holding a random-looking run of minRandomLen or more
//     (looksRandom), unless the name is a click or share identifier on trackingParams or
//     siteParams for the host;
//   - a value that is itself a URL is checked as one, to scrubMaxURLDepth.
//
// OAuth's code and state are deliberately not secret names: code is also a language, a country
// or a status, and state a region. An authorization code is long and random and falls to the
// randomness rule; a state is a nonce, not a credential.
// Test: TestScrubRows (the url rows), TestScrubEntropyCalibration.
func scrubParams(host, params string, depth int) string {
	var site []string // the host's exempt names, looked up once
	for i := range siteParams {
		if sp := &siteParams[i]; sp.on(host) {
			site = append(site, sp.params...)
		}
	}
	for params != "" {
		var piece string
		if i := strings.IndexAny(params, "&;"); i >= 0 {
			piece, params = params[:i], params[i+1:]
		} else {
			piece, params = params, ""
		}
		rawName, rawValue, hasValue := strings.Cut(piece, "=")
		if !hasValue {
			rawName, rawValue = "", rawName
		}
		name := scrubDecodeAll(rawName)
		value := scrubDecodeAll(rawValue)
		norm := normalizeParamName(name)
		switch {
		case secretParam(norm) && !trivialParamValue(value):
			return secretParamKind(name)
		case slices.Contains(weakSecretParamNames, norm) && (hasRandomRun(value, minWeakRandomLen) || longestHexRun(value) >= 32):
			return secretParamKind(name)
		case exemptParam(site, name):
		case hasRandomRun(value, minRandomLen):
			return scrubKindRandom
		}
		if depth < scrubMaxURLDepth && strings.Contains(value, "://") {
			for _, u := range scrubURLSpans(value) {
				if kind, _ := scrubURL(u, depth+1); kind != "" {
					return kind
				}
			}
		}
	}
	return ""
}

// secretParamKind names the parameter when its name is short and plain, so that the user can
// find it: `secret-named parameter "access_token"`.
func secretParamKind(name string) string {
	if len(name) > 40 {
		return scrubKindSecretParam
	}
	for i := 0; i < len(name); i++ {
		if c := name[i]; !scrubAlnum(c) && c != '_' && c != '-' && c != '.' {
			return scrubKindSecretParam
		}
	}
	return scrubKindSecretParam + ` "` + name + `"`
}

// normalizeParamName lower-cases a parameter name and drops _ - . and spaces: X-Amz-Signature,
// x_amz_signature and xAmzSignature are one name.
func normalizeParamName(name string) string {
	var b strings.Builder
	for i := 0; i < len(name); i++ {
		switch c := name[i]; {
		case c == '_' || c == '-' || c == '.' || c == ' ':
		case c >= 'A' && c <= 'Z':
			b.WriteByte(c + 'a' - 'A')
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// secretParam reports whether a normalized parameter name says it holds a credential.
func secretParam(norm string) bool {
	if slices.Contains(secretParamNames, norm) {
		return true
	}
	if slices.Contains(paginationNames, norm) {
		return false
	}
	for _, suf := range secretParamSuffixes {
		if strings.HasSuffix(norm, suf) {
			return true
		}
	}
	return false
}

// secretParamNames are parameter names (normalized) that hold credentials: OAuth and API
// tokens, API keys, passwords, signatures of signed URLs (AWS SigV4 X-Amz-Signature, Azure SAS
// sig is weak below), session identifiers.
var secretParamNames = []string{
	"token", "apikey", "xapikey", "apisecret", "secret",
	"clientsecret", "appsecret", "secretkey", "accesskey",
	"accesskeyid", "awsaccesskeyid", "privatekey", "password",
	"passwd", "pwd", "passphrase", "signature", "credential",
	"credentials", "xamzcredential", "authorization", "jwt",
	"sessionid", "jsessionid", "phpsessid", "sessid", "subscriptionkey",
	"ocpapimsubscriptionkey", "otp", "bearer",
}

// secretParamSuffixes: a normalized name ending in one of these holds a credential too
// (access_token, oauth_token, X-Amz-Security-Token, client_secret, db_password, oauth_signature).
var secretParamSuffixes = []string{"token", "secret", "password", "passwd", "apikey", "signature",
	"sessionid", "privatekey", "secretkey", "accesskey"}

// paginationNames end in "token" but hold a position in a list, not a credential.
var paginationNames = []string{
	"pagetoken", "nextpagetoken", "nexttoken", "prevtoken",
	"previoustoken", "continuationtoken", "synctoken", "paginationtoken",
	"resumptiontoken", "cursortoken",
}

// weakSecretParamNames name credentials in some APIs and ordinary things in others
// (?key=PROJ-1, ?session=keynote): their values must also look random.
var weakSecretParamNames = []string{"key", "auth", "session", "sig", "sid", "pass"}

// trivialParamValue reports whether a secret-named parameter's value is too short or too plainly a
// placeholder to be a secret: ?token=, ?key=value, ?api_key=YOUR_API_KEY.
func trivialParamValue(v string) bool {
	return len(strings.TrimSpace(v)) < 6 || isPlaceholder(v)
}

// exemptParam reports whether a parameter is a click or share identifier (site holds the
// exempt names of the URL's host): random-looking but naming a click, a share or a search
// session, not a credential. Known formats and environment secrets are still looked for in its
// value; only the randomness rule skips it.
//
// Why: links that users paste carry them (fbclid on every link out of Facebook, YouTube's
// playlist list= and share si=, Google's ved/ei), and refusing those refuses ordinary reading.
// What: the names on trackingParams (any host, and utm_*), and siteParams' names on their sites.
// An agent can use these names to carry a secret of no known format to any host; so can it a
// path segment or a hostname, which the scrubber does not read either (out of scope).
// Test: the youtube, google, fbclid and x.com rows of TestScrubRows.
func exemptParam(site []string, name string) bool {
	n := strings.ToLower(name)
	return slices.Contains(trackingParams, n) || strings.HasPrefix(n, "utm_") || slices.Contains(site, n)
}

// trackingParams are click identifiers added to links by ad and mail platforms.
var trackingParams = []string{
	"fbclid", "gclid", "gclsrc", "gbraid", "wbraid", "dclid",
	"msclkid", "yclid", "twclid", "ttclid", "li_fat_id",
	"mc_cid", "mc_eid", "_ga", "_gl", "igshid", "igsh",
	"srsltid", "_hsenc", "_hsmi", "mkt_tok", "oly_anon_id",
	"oly_enc_id", "vero_id", "ref_src", "s_cid", "epik", "rdt",
}

// siteParams are public identifiers of one site's pages and searches.
var siteParams = []siteParam{
	// Google search: session, result and suggestion identifiers.
	{brand: "google", params: []string{"ved", "ei", "sca_esv", "sca_upv", "gs_lcrp", "gs_lp", "gs_ssp",
		"sxsrf", "uact", "iflsig", "aqs", "sclient", "rlz", "sa", "source", "sourceid", "oq", "fbs",
		"bih", "biw", "dpr", "client", "ictx", "usg", "opi", "stick", "csui"}},
	// YouTube: playlist, share, channel and position identifiers.
	{domains: []string{"youtube.com", "youtu.be"}, params: []string{"list", "si", "pp", "feature", "ab_channel",
		"index", "t", "start_radio"}},
	// X (Twitter): share source and tracking.
	{domains: []string{"x.com", "twitter.com"}, params: []string{"s", "t"}},
	// Amazon: recommendation and search tracking.
	{brand: "amazon", params: []string{"pd_rd_r", "pd_rd_w", "pd_rd_wg", "pd_rd_i", "pf_rd_r", "pf_rd_p",
		"pf_rd_s", "pf_rd_t", "pf_rd_i", "pf_rd_m", "dib", "dib_tag", "crid", "sprefix", "qid",
		"content-id", "ref_", "psc", "th"}},
	// Bing search: conversation and form identifiers.
	{domains: []string{"bing.com"}, params: []string{"form", "cvid", "sp", "ghc", "qs", "pq", "sc", "sk", "ghsh",
		"ghacc", "ghpl"}},
	// LinkedIn: tracking.
	{domains: []string{"linkedin.com"}, params: []string{"trk", "trackingid", "refid", "lipi"}},
	// Spotify, Instagram, Reddit: share identifiers.
	{domains: []string{"spotify.com"}, params: []string{"si"}},
	{domains: []string{"instagram.com"}, params: []string{"igsh"}},
	{domains: []string{"reddit.com"}, params: []string{"share_id"}},
}

// siteParam is one site's exempt names. The site is data (domains or a brand) rather than a
// matching closure, so that the compiler lays the table out: closures over their arguments
// were allocated when every hookctl process started.
type siteParam struct {
	domains []string // matched with their subdomains (siteDomain)
	brand   string   // when set, matched under any country suffix instead (siteBrand)
	params  []string
}

// on reports whether host is the site's.
func (sp *siteParam) on(host string) bool {
	if sp.brand != "" {
		return siteBrand(sp.brand, host)
	}
	return siteDomain(sp.domains, host)
}

// siteDomain matches the named domains and their subdomains.
func siteDomain(names []string, host string) bool {
	for _, d := range names {
		if host == d || strings.HasSuffix(host, "."+d) {
			return true
		}
	}
	return false
}

// siteBrand matches a company's domains under any country suffix: google.com, www.google.co.uk,
// amazon.de. The label must sit directly on a public suffix of one or two labels, so
// google.evil.example is not Google.
func siteBrand(label, host string) bool {
	labels := strings.Split(host, ".")
	for i, l := range labels {
		if l != label {
			continue
		}
		switch rest := labels[i+1:]; len(rest) {
		case 1:
			return rest[0] != ""
		case 2:
			return (rest[0] == "co" || rest[0] == "com") && len(rest[1]) == 2
		}
	}
	return false
}

// The randomness rule.
//
// Why: a secret with no known format (an internal service's key, a session cookie, a password
// manager's generated password) is still a long string of characters chosen at random, and
// ordinary URL parameters are words, numbers, identifiers and hashes.
// What: a run of base64 and separator characters (scrubTokenByte) of minRandomLen or more, or a
// separator-delimited segment of it that long, is random-looking when
//   - it is not hex-like (every segment hex digits, 0x-hex, or 4 characters or fewer: commit
//     SHAs, UUIDs, content hashes, trace IDs and Iv1.8a61f9b3a7aba766-style client IDs pass), and
//   - its average token length is at most maxRandomTokenLen, where tokens split at changes
//     between lower case, upper case and digits, separators ignored (words and camelCase
//     identifiers make long tokens: getElementsByClassName averages 4.4; random base62 about
//     1.8), and
//   - its Shannon entropy is at least entropyRatio × log2(min(n, A)) bits per character, where
//     A is the alphabet its character classes imply (26 per letter case, 10 digits, one per
//     separator kind): that is the ceiling for a string of that length from that alphabet, and
//     the ratio drops strings that repeat themselves.
//
// Calibration (TestScrubEntropyCalibration, 5000 seeded strings per cell): random base62 and
// base64 strings of 20 to 64 characters are flagged 98.5 % of the time or more, lower-case or
// upper-case base36 strings about 80 % (their runs of letters look like short words), letters
// only about 85 %; no string of the benign corpus is flagged. The entropy ratio of 0.8 keeps
// 99.9 % of random base62 at every length; 0.85 would lose 18 % at 64 characters.
// Test: TestScrubEntropyCalibration, TestScrubRows.
const (
	minRandomLen      = 20
	minWeakRandomLen  = 12
	maxRandomTokenLen = 3.0
	entropyRatio      = 0.8
)

// scrubTokenByte reports whether c is one of the characters random tokens are written in: the
// standard and URL-safe base64 alphabets and the usual separators.
func scrubTokenByte(c byte) bool {
	return scrubAlnum(c) || c == '+' || c == '/' || c == '=' || c == '_' || c == '-' || c == '.' || c == '~'
}

func scrubSeparator(c byte) bool { return scrubTokenByte(c) && !scrubAlnum(c) }

// hasRandomRun reports whether text holds a random-looking run of token characters at least
// minLen long, or a random-looking separator-delimited segment of one: a random secret padded
// with words (docs-aB3x…) is found by its segment.
func hasRandomRun(text string, minLen int) bool {
	for i := 0; i < len(text); {
		if !scrubTokenByte(text[i]) {
			i++ // outside a run
			continue
		}
		j := i
		for j < len(text) && scrubTokenByte(text[j]) {
			j++ // over the run
		}
		if j-i >= minLen && randomRun(text[i:j], minLen) {
			return true
		}
		i = j
	}
	return false
}

func randomRun(run string, minLen int) bool {
	if looksRandom(run) {
		return true
	}
	for i := 0; i < len(run); {
		if scrubSeparator(run[i]) {
			i++ // between segments
			continue
		}
		j := i
		for j < len(run) && !scrubSeparator(run[j]) {
			j++ // over the segment
		}
		if j-i >= minLen && j-i < len(run) && looksRandom(run[i:j]) {
			return true
		}
		i = j
	}
	return false
}

// looksRandom applies the randomness rule to one run of token characters.
func looksRandom(s string) bool {
	if scrubHexLike(s) {
		return false
	}
	var counts [256]int
	var lower, upper, digit bool
	seps, sepTotal := 0, 0 // separator kinds, separators
	for i := 0; i < len(s); i++ {
		c := s[i]
		if scrubSeparator(c) {
			if counts[c] == 0 {
				seps++
			}
			sepTotal++
		}
		counts[c]++
		switch {
		case c >= 'a' && c <= 'z':
			lower = true
		case c >= 'A' && c <= 'Z':
			upper = true
		case c >= '0' && c <= '9':
			digit = true
		}
	}
	if !lower && !upper {
		return false // digits and separators: numbers, dates, versions
	}
	if 5*sepTotal > len(s) {
		return false // more than one separator in five: versions and paths (2.0.0-rc.1+build.123)
	}
	if averageTokenLen(s) > maxRandomTokenLen {
		return false
	}
	alphabet := seps
	if lower {
		alphabet += 26
	}
	if upper {
		alphabet += 26
	}
	if digit {
		alphabet += 10
	}
	n := float64(len(s))
	h := 0.0
	for _, k := range counts {
		if k > 0 {
			p := float64(k) / n
			h -= p * math.Log2(p)
		}
	}
	return h >= entropyRatio*math.Log2(min(n, float64(alphabet)))
}

// averageTokenLen is the letters and digits of s divided by its tokens: a token starts after a
// separator is skipped, at a change between letters and digits, at an upper-case letter after
// a lower-case one, and at a lower-case letter after two upper-case ones (HTTPServer: HTTP,
// Server, counting the S with the later token's start).
func averageTokenLen(s string) float64 {
	const none, lo, up, dig = 0, 1, 2, 3
	class := func(c byte) int {
		switch {
		case c >= 'a' && c <= 'z':
			return lo
		case c >= 'A' && c <= 'Z':
			return up
		case c >= '0' && c <= '9':
			return dig
		}
		return none
	}
	tokens, chars := 0, 0
	prev, prev2 := none, none
	for i := 0; i < len(s); i++ {
		c := class(s[i])
		if c == none {
			continue // separators neither start nor end a token
		}
		chars++
		switch {
		case prev == none, (c == dig) != (prev == dig), c == up && prev == lo, c == lo && prev == up && prev2 == up:
			tokens++
		}
		prev2, prev = prev, c
	}
	if tokens == 0 {
		return 0
	}
	return float64(chars) / float64(tokens)
}

// scrubHexLike reports whether every separator-delimited segment of s is hex digits (after an
// optional 0x) or 4 characters or fewer.
func scrubHexLike(s string) bool {
	for _, seg := range strings.FieldsFunc(s, func(r rune) bool { return r < 0x80 && scrubSeparator(byte(r)) }) {
		if len(seg) <= 4 {
			continue
		}
		if len(seg) > 2 && seg[0] == '0' && (seg[1] == 'x' || seg[1] == 'X') {
			seg = seg[2:]
		}
		for i := 0; i < len(seg); i++ {
			if !scrubIsHex(seg[i]) {
				return false
			}
		}
	}
	return true
}

func scrubIsHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func scrubUnhex(c byte) byte {
	switch {
	case c >= '0' && c <= '9':
		return c - '0'
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}

func scrubLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func scrubAlnum(c byte) bool { return scrubLetter(c) || c >= '0' && c <= '9' }

func scrubAllIn(s string, lo, hi byte) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < lo || s[i] > hi {
			return false
		}
	}
	return true
}

// scrubIsNumber reports whether s is a decimal number, with sign, point and digit separators.
func scrubIsNumber(s string) bool {
	digits := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9':
			digits++
		case c == '.' || c == ',' || c == '_' || c == '-' || c == '+' || c == 'e' || c == 'E':
		default:
			return false
		}
	}
	return digits > 0
}

// scrubLower lower-cases ASCII letters only, so that byte offsets are unchanged.
func scrubLower(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if b[j] >= 'A' && b[j] <= 'Z' {
					b[j] += 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}

// The caller's secrets by digest. The front knows the caller's environment; the worker, which
// holds the network and the raw content, must not, yet the research loop sends text a model
// chose and must scrub it as the front scrubs the agent's. So the front hands the worker a salted
// SHA-256 of each secret form with its length, and the worker hashes every window of that length
// of what it would send. A digest holds no value a page could read back, and the salt, new for
// every retrieval, makes a table of guesses useless.

// digestSet is the worker's side: digests by length.
type digestSet struct {
	salt   []byte
	byLen  map[int]map[[32]byte]string // length → digest → kind
	maxLen int
}

// Digests returns the salted digests of every secret form s remembers, for WithDigests in
// another process.
func (s *Scrubber) Digests(salt []byte) *retriever.SecretDigests {
	d := &retriever.SecretDigests{Salt: salt}
	for _, f := range s.env {
		sum := saltedSum(salt, f.text)
		d.Entries = append(d.Entries, retriever.SecretDigest{Len: len(f.text), Sum: sum[:], Kind: f.kind})
	}
	return d
}

// WithDigests returns s also finding the secret forms d digests.
func (s *Scrubber) WithDigests(d *retriever.SecretDigests) *Scrubber {
	if d == nil || len(d.Entries) == 0 {
		return s
	}
	set := &digestSet{salt: d.Salt, byLen: map[int]map[[32]byte]string{}}
	for _, e := range d.Entries {
		if e.Len <= 0 || e.Len > MaxScrubBytes || len(e.Sum) != sha256.Size {
			continue
		}
		if set.byLen[e.Len] == nil {
			set.byLen[e.Len] = map[[32]byte]string{}
		}
		set.byLen[e.Len][[32]byte(e.Sum)] = e.Kind
		set.maxLen = max(set.maxLen, e.Len)
	}
	out := *s
	out.digests = set
	return &out
}

func saltedSum(salt []byte, text string) [32]byte {
	h := sha256.New()
	h.Write(salt)
	h.Write([]byte(text))
	return [32]byte(h.Sum(nil))
}

// find returns the kind of the first digested secret text holds, or "".
func (d *digestSet) find(text string) string {
	if d == nil {
		return ""
	}
	for n, sums := range d.byLen {
		for i := 0; i+n <= len(text); i++ {
			if kind, ok := sums[saltedSum(d.salt, text[i:i+n])]; ok {
				return kind
			}
		}
	}
	return ""
}
