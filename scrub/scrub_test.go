package scrub

import (
	"encoding/base64"
	"fmt"
	"math/rand/v2"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hookctl/hookctl/retriever"
)

// Every secret below is fake: a fixed cycle of characters in the issuer's format, or seeded
// random characters for the randomness rule. None was ever issued.

// scrubTestEnv is the environment of the row tests' scrubber: three secrets it must remember, in
// forms that need URL encoding, and variables it must ignore.
var scrubTestEnv = []string{
	"MY_SERVICE_TOKEN=Zq8+Vt3/Lw9=Rx2Kp7Mn",
	"DB_PASSWORD=Corr3ct Horse Battery!",
	"INTERNAL_API_KEY=ik-7Hq2Wm9Xc4Vb8Nr3",
	"PWD=/home/user/proj",
	"OLDPWD=/home/user",
	"GOOGLE_APPLICATION_CREDENTIALS=/home/user/key.json",
	"DEBUG_TOKEN=true",
	"RETRY_KEY=12345678",
	"REDIS_PASS=short",
	"ENV_SECRET=production",
	"PATH=/usr/local/bin:/usr/bin:/bin",
	"HOME=/home/user",
	"LANG=en_US.UTF-8",
}

// Fake secret builders: n characters of a fixed cycle.
const (
	fakeAlnumCycle = "F4KEabcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	fakeUpperCycle = "FAKE0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	fakeHexCycle   = "deadbeef0123456789abcdefc0ffee"
	fakeB64Cycle   = "FAKE/abcdefghijklmnop+qrstuvwxyz0123456789/ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	fakeAgeCycle   = "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L"
)

func fkCycle(s string, n int) string { return strings.Repeat(s, n/len(s)+1)[:n] }
func fkA(n int) string               { return fkCycle(fakeAlnumCycle, n) }
func fkU(n int) string               { return fkCycle(fakeUpperCycle, n) }
func fkH(n int) string               { return fkCycle(fakeHexCycle, n) }
func fkB(n int) string               { return fkCycle(fakeB64Cycle, n) }

// fr is n seeded random base62 characters: what a secret of no known format looks like.
func fkR(seed uint64, n int) string {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	r := rand.New(rand.NewPCG(seed, 0x5c7b))
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[r.IntN(len(alphabet))]
	}
	return string(b)
}

func fkB64(s string) string    { return base64.StdEncoding.EncodeToString([]byte(s)) }
func fkB64URL(s string) string { return base64.URLEncoding.EncodeToString([]byte(s)) }

// The JWT rows' token: header {"alg":"HS256","typ":"JWT"}, claims {"sub":"FAKE","name":"fake"}.
var fkJWT = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJGQUtFIiwibmFtZSI6ImZha2UifQ." + fkA(43)

// scrubRow is one outbound text and what the scrubber must find in it.
type scrubRow struct {
	field string // url, query, need and github * go through CheckRequest; others through Check
	text  string
	kind  string // the kind the finding must report; "" for text that must pass
	// secret is the part of text between « and » in the row: the finding must not contain it
	// or any 6 bytes of it.
	secret string
}

// blocked is a row the scrubber must refuse as kind; the secret in marked is between « and ».
func blocked(kind, field, marked string) scrubRow {
	before, rest, ok1 := strings.Cut(marked, "«")
	secret, after, ok2 := strings.Cut(rest, "»")
	if !ok1 || !ok2 {
		panic("blocked row without «secret»: " + marked)
	}
	return scrubRow{field: field, text: before + secret + after, kind: kind, secret: secret}
}

// passes is a row the scrubber must let through.
func passes(field, text string) scrubRow { return scrubRow{field: field, text: text} }

// run checks the row's text as the retriever would send it in its field.
func (x scrubRow) run(s *Scrubber) *Finding {
	switch x.field {
	case "url":
		return s.CheckRequest(&retriever.Request{Kind: retriever.KindFetch, URL: x.text})
	case "query":
		return s.CheckRequest(&retriever.Request{Kind: retriever.KindSearch, Query: x.text})
	case "need":
		return s.CheckRequest(&retriever.Request{Kind: retriever.KindFetch, Need: x.text})
	case "github path":
		return s.CheckRequest(&retriever.Request{Kind: retriever.KindGitHub, GitHub: &retriever.GitHubOp{Op: "file", Owner: "o", Repo: "r", Path: x.text}})
	case "github owner":
		return s.CheckRequest(&retriever.Request{Kind: retriever.KindGitHub, GitHub: &retriever.GitHubOp{Op: "repo", Owner: x.text, Repo: "r"}})
	}
	return s.Check(x.field, x.text)
}

// scrubReporter is the part of *testing.T that checkScrub uses, so its own test can count misses.
type scrubReporter interface {
	Helper()
	Errorf(format string, args ...any)
}

// checkScrub runs every row and reports every miss, not only the first: a row refused for
// another kind or field, a finding that echoes the secret, and a row seen twice.
func checkScrub(t scrubReporter, s *Scrubber, rows ...scrubRow) {
	t.Helper()
	seen := map[string]bool{}
	for _, x := range rows {
		key := x.field + "\x00" + x.text
		if seen[key] {
			t.Errorf("duplicate row: %s %q", x.field, x.text)
			continue
		}
		seen[key] = true
		f := x.run(s)
		switch {
		case x.kind == "" && f != nil:
			t.Errorf("%s %q: refused (%s), want it to pass", x.field, x.text, f.Error())
		case x.kind == "":
		case f == nil:
			t.Errorf("%s %q: PASSED, want refused as %q", x.field, x.text, x.kind)
		case f.Kind != x.kind:
			t.Errorf("%s %q: refused as %q, want %q", x.field, x.text, f.Kind, x.kind)
		case !strings.HasPrefix(f.Field, x.field):
			t.Errorf("%s %q: found in field %q", x.field, x.text, f.Field)
		default:
			if leak := echoed(f.Error(), x.secret); leak != "" {
				t.Errorf("%s %q: the finding %q echoes %q of the secret", x.field, x.text, f.Error(), leak)
			}
		}
	}
}

// echoed returns the secret, or a 6-byte part of it, if msg contains it.
func echoed(msg, secret string) string {
	if len(secret) < 6 {
		if strings.Contains(msg, secret) {
			return secret
		}
		return ""
	}
	for i := 0; i+6 <= len(secret); i++ {
		if strings.Contains(msg, secret[i:i+6]) {
			return secret[i : i+6]
		}
	}
	return ""
}

// scrubBlocked are secrets that must not leave, one shape per row.
var scrubBlocked = []scrubRow{
	blocked("GitHub token", "url", "https://api.github.com/user?access_token=«ghp_"+fkA(36)+"»"),                               // classic PAT in a query parameter
	blocked("GitHub token", "need", "use «gho_"+fkA(36)+"» as the oauth credential"),                                           // OAuth token in prose
	blocked("GitHub token", "query", "«ghu_"+fkA(36)+"»"),                                                                      // user-to-server token searched for
	blocked("GitHub token", "header X-Title", "«ghs_"+fkA(36)+"»"),                                                             // installation token in a header
	blocked("GitHub token", "need", "refresh with «ghr_"+fkA(36)+"»"),                                                          // refresh token
	blocked("GitHub token", "url", "https://«ghp_"+fkA(36)+"»@github.com/owner/repo.git"),                                      // token as URL userinfo
	blocked("GitHub token", "need", "«github_pat_"+fkA(22)+"_"+fkA(59)+"»"),                                                    // fine-grained PAT
	blocked("GitHub token", "url", "https://example.com/?q=«%2567hp_"+fkA(36)+"»"),                                             // double percent-encoded
	blocked("GitHub token", "github path", "«ghp_"+fkA(36)+"».txt"),                                                            // token in a GitHub file path
	blocked("GitLab token", "url", "https://gitlab.com/api/v4/projects?private_token=«glpat-"+fkA(20)+"»"),                     // personal access token
	blocked("GitLab token", "need", "«gldt-"+fkA(20)+"»"),                                                                      // deploy token
	blocked("GitLab token", "query", "runner «glrt-"+fkA(24)+"»"),                                                              // runner token
	blocked("Slack token", "need", "«xoxb-123456789012-1234567890123-"+fkA(24)+"»"),                                            // bot token
	blocked("Slack token", "header X-Note", "«xoxp-123456789012-123456789012-123456789012-"+fkH(32)+"»"),                       // user token
	blocked("Slack token", "query", "«xapp-1-A0FAKE12345-1234567890123-"+fkH(64)+"»"),                                          // app-level token
	blocked("Slack webhook URL", "url", "«https://hooks.slack.com/services/T0FAKE000/B0FAKE000/"+fkA(24)+"»"),                  // incoming webhook
	blocked("Slack webhook URL", "need", `{"url":"«https:\/\/hooks.slack.com\/services\/T0FAKE000\/B0FAKE000\/`+fkA(24)+`»"}`), // JSON-escaped slashes
	blocked("Discord webhook URL", "url", "https://discord.com/api/webhooks/123456789012345678/«"+fkA(68)+"»"),                 // Discord webhook
	blocked("Microsoft Teams webhook URL", "url", "https://contoso.webhook.office.com/webhookb2/00000000-0000-0000-0000-000000000000@00000000-0000-0000-0000-000000000000/IncomingWebhook/«"+fkH(32)+"»/00000000-0000-0000-0000-000000000000"), // Teams webhook
	blocked("Stripe secret key", "need", "«sk_live_"+fkA(24)+"»"),                                                                                                        // live secret key
	blocked("Stripe secret key", "url", "https://api.stripe.com/v1/charges?key=«rk_live_"+fkA(32)+"»"),                                                                   // restricted key
	blocked("Stripe secret key", "query", "«sk_test_"+fkA(24)+"»"),                                                                                                       // test-mode secret key: still account access
	blocked("Stripe webhook secret", "need", "«whsec_"+fkA(32)+"»"),                                                                                                      // webhook signing secret
	blocked("Anthropic API key", "header X-Title", "«sk-ant-api03-"+fkA(93)+"AA»"),                                                                                       // Anthropic key
	blocked("OpenAI API key", "need", "«sk-proj-"+fkA(48)+"»"),                                                                                                           // project key
	blocked("OpenAI API key", "query", "«sk-"+fkA(48)+"»"),                                                                                                               // legacy user key
	blocked("Google API key", "url", "https://maps.googleapis.com/maps/api/geocode/json?address=Paris&key=«AIza"+fkA(35)+"»"),                                            // Maps key
	blocked("Google OAuth token", "header X-Title", "«ya29."+fkA(60)+"»"),                                                                                                // access token
	blocked("Google OAuth client secret", "need", "«GOCSPX-"+fkA(28)+"»"),                                                                                                // client secret
	blocked("npm token", "need", "//registry.npmjs.org/:_authToken=«npm_"+fkA(36)+"»"),                                                                                   // .npmrc line
	blocked("PyPI token", "need", "«pypi-AgEIcHlwaS5vcmc"+fkA(60)+"»"),                                                                                                   // upload token
	blocked("Twilio API key", "url", "https://api.twilio.com/2010-04-01/Accounts?sid=«SK"+fkH(32)+"»"),                                                                   // API key SID
	blocked("SendGrid API key", "need", "«SG."+fkA(22)+"."+fkA(43)+"»"),                                                                                                  // SendGrid
	blocked("Mailgun API key", "need", "api:«key-"+fkH(32)+"»"),                                                                                                          // legacy Mailgun key
	blocked("Mailgun API key", "query", "«"+fkH(32)+"-"+fkH(8)+"-"+fkH(8)+"»"),                                                                                           // current Mailgun key
	blocked("Heroku API key", "need", "«HRKU-"+fkA(60)+"»"),                                                                                                              // current Heroku key
	blocked("Heroku API key", "need", "HEROKU_API_KEY=«01234567-89ab-cdef-0123-456789abcdef»"),                                                                           // legacy UUID key, by name
	blocked("DigitalOcean token", "need", "«dop_v1_"+fkH(64)+"»"),                                                                                                        // personal token
	blocked("Hugging Face token", "url", "https://huggingface.co/api/models?hf_token=«hf_"+fkA(34)+"»"),                                                                  // user token
	blocked("Hugging Face token", "need", "«api_org_"+fkA(34)+"»"),                                                                                                       // legacy org token
	blocked("Shopify token", "header X-Title", "«shpat_"+fkH(32)+"»"),                                                                                                    // Admin API token
	blocked("Shopify token", "need", "«shpss_"+fkH(32)+"»"),                                                                                                              // shared secret
	blocked("Azure storage account key", "need", "DefaultEndpointsProtocol=https;AccountName=fakeacct;AccountKey=«"+fkB(86)+"==»;EndpointSuffix=core.windows.net"),       // storage connection string
	blocked("Azure shared access key", "need", "Endpoint=sb://fake.servicebus.windows.net/;SharedAccessKeyName=Root;«SharedAccessKey="+fkB(43)+"=»"),                     // Service Bus connection string
	blocked("private key", "need", "«-----BEGIN RSA PRIVATE KEY-----\n"+fkB(64)+"\n"+fkB(64)+"\n-----END RSA PRIVATE KEY-----»"),                                         // PEM with newlines
	blocked("private key", "need", `{"private_key": "«-----BEGIN PRIVATE KEY-----\n`+fkB(64)+`\n-----END PRIVATE KEY-----\n»"}`),                                         // service-account JSON, escaped \n
	blocked("private key", "url", "https://paste.example/?text=«-----BEGIN+OPENSSH+PRIVATE+KEY-----%0A"+fkB(70)+"»"),                                                     // form-encoded OpenSSH key
	blocked("private key", "need", "«-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n"+fkB(64)+"»"),                                                                             // PGP secret key block
	blocked("private key", "query", "«-----BEGIN EC PRIVATE KEY----- "+fkB(64)+"»"),                                                                                      // EC key on one line
	blocked("private key", "url", "https://paste.example/?text=«%2D%2D%2D%2D%2DBEGIN%20PRIVATE%20KEY%2D%2D%2D%2D%2D%0A"+fkB(64)+"»"),                                     // fully percent-encoded
	blocked("JSON Web Token", "need", "«"+fkJWT+"»"),                                                                                                                     // JWT in prose
	blocked("JSON Web Token", "url", "https://app.example.com/callback#id_token=«"+fkJWT+"»"),                                                                            // implicit-grant fragment
	blocked("password in a URL", "url", "https://admin:«Tr0ub4dor-Fake-9»@example.com/"),                                                                                 // basic auth in userinfo
	blocked("password in a URL", "need", "connect to postgres://app:«s3cr3tFAKEpw»@db.example.com:5432/app"),                                                             // database URL in prose
	blocked("password in a URL", "url", "redis://:«FakeRedisPw123»@cache.example.com:6379/0"),                                                                            // password with empty user
	blocked("password in a URL", "url", "https://github.com:«443»@evil.example/"),                                                                                        // userinfo made to look like a host
	blocked("bearer token", "header X-Title", "Authorization: Bearer «"+fkR(1, 40)+"»"),                                                                                  // bearer header copied into a header
	blocked("bearer token", "need", "curl -H 'Authorization: Bearer «Fk3.Xy9_Zq2-Lm8~Vb4+Nc7/Wd1=»'"),                                                                    // token68 punctuation
	blocked("basic-auth credential", "need", "Authorization: Basic «"+fkB64("fakeuser:Fake-Pass-123")+"»"),                                                               // RFC 7617 credentials
	blocked("AWS access key ID", "need", "«AKIA"+fkU(16)+"»"),                                                                                                            // long-term key ID
	blocked("AWS access key ID", "url", "https://s3.amazonaws.com/b/f?X-Amz-Credential=«ASIA"+fkU(16)+"»%2F20240101%2Fus-east-1%2Fs3%2Faws4_request"),                    // presigned URL credential
	blocked("AWS secret access key", "need", "aws_secret_access_key = «"+fkB(40)+"»"),                                                                                    // ~/.aws/credentials line
	blocked("AWS secret access key", "header X-Title", `{"SecretAccessKey": "«`+fkB(40)+`»"}`),                                                                           // STS JSON
	blocked("Telegram bot token", "url", "https://api.telegram.org/bot«123456789:AA"+fkA(33)+"»/getMe"),                                                                  // bot token in a path
	blocked("age secret key", "need", "«AGE-SECRET-KEY-1"+fkCycle(fakeAgeCycle, 58)+"»"),                                                                                 // age identity
	blocked("Atlassian API token", "need", "«ATATT3"+fkA(60)+"»"),                                                                                                        // Atlassian
	blocked("Databricks token", "header X-Title", "«dapi"+fkH(32)+"»"),                                                                                                   // Databricks PAT
	blocked("Postman API key", "need", "«PMAK-"+fkH(24)+"-"+fkH(34)+"»"),                                                                                                 // Postman
	blocked("Linear API key", "need", "«lin_api_"+fkA(40)+"»"),                                                                                                           // Linear
	blocked("Grafana token", "need", "«glsa_"+fkA(32)+"_"+fkH(8)+"»"),                                                                                                    // service account token
	blocked("Grafana token", "need", "«glc_"+fkB(40)+"»"),                                                                                                                // Grafana Cloud token
	blocked("Sentry token", "need", "«sntrys_"+fkA(64)+"»"),                                                                                                              // org auth token
	blocked("Supabase token", "need", "«sbp_"+fkH(40)+"»"),                                                                                                               // Supabase PAT
	blocked("Notion token", "need", "«ntn_"+fkA(46)+"»"),                                                                                                                 // current Notion token
	blocked("Notion token", "need", "«secret_"+fkA(43)+"»"),                                                                                                              // legacy Notion token
	blocked("Doppler token", "need", "«dp.pt."+fkA(43)+"»"),                                                                                                              // Doppler personal token
	blocked("Terraform Cloud token", "need", "«"+fkA(14)+".atlasv1."+fkA(67)+"»"),                                                                                        // HCP Terraform token
	blocked("Pulumi token", "need", "«pul-"+fkH(40)+"»"),                                                                                                                 // Pulumi
	blocked("Vault token", "need", "«hvs."+fkA(90)+"»"),                                                                                                                  // Vault service token
	blocked("Mapbox secret token", "url", "https://api.mapbox.com/styles/v1?access_token=«sk.eyJ1IjoiZmFrZSIsImEiOiJmYWtlIn0."+fkA(22)+"»"),                              // Mapbox sk.
	blocked(`secret-named parameter "token"`, "url", "https://example.com/api?token=«abc123def456»"),                                                                     // named token, no known format
	blocked(`secret-named parameter "password"`, "url", "https://example.com/login?user=jane&password=«hunter2Xq»"),                                                      // password in a query
	blocked(`secret-named parameter "client_secret"`, "url", "https://oauth.example.com/t?grant_type=client_credentials&client_id=app&client_secret=«n0tS0PublicV4lue»"), // OAuth client secret
	blocked(`secret-named parameter "api-key"`, "url", "https://api.example.com/v1/items?api-key=«live-8f2k-31xq»"),                                                      // hyphenated name
	blocked(`secret-named parameter "X-Amz-Signature"`, "url", "https://bucket.s3.amazonaws.com/f.txt?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Date=20240101T000000Z&X-Amz-Expires=3600&X-Amz-SignedHeaders=host&X-Amz-Signature=«"+fkH(64)+"»"), // presigned URL
	blocked(`secret-named parameter "sig"`, "url", "https://fakeacct.blob.core.windows.net/c/f.txt?sv=2022-11-02&ss=b&sp=r&se=2030-01-01T00:00:00Z&spr=https&sig=«"+fkR(2, 43)+"%3D»"),                                                         // Azure SAS
	blocked(`secret-named parameter "key"`, "url", "https://api.example.com/data?key=«"+fkR(3, 24)+"»"),                                                                                                                                        // weak name, random value
	blocked(`secret-named parameter "session"`, "url", "https://example.com/app?session=«"+fkH(32)+"»"),                                                                                                                                        // weak name, hex session ID
	blocked(`secret-named parameter "access_token"`, "url", "https://app.example.com/#access_token=«Fake-Implicit-Grant-Value»&token_type=bearer"),                                                                                             // fragment parameter
	blocked(`secret-named parameter "oauth_token"`, "url", "https://api.example.com/1.1/statuses?oauth_token=«12345-FakeOAuthTok»"),                                                                                                            // OAuth 1 token
	blocked(`secret-named parameter "access_token"`, "url", "https://example.com/login?next=https%3A%2F%2Fevil.example%2F%3Faccess_token%3D«abcdef123456»"),                                                                                    // URL nested in a parameter
	blocked(`secret-named parameter "token"`, "need", "fetch https://internal.example/export?token=«q1w2e3r4t5y6»"),                                                                                                                            // URL inside the need
	blocked(`secret-named parameter "token"`, "need", "see 9https://internal.example/export?token=«z1x2c3v4b5n6»"),                                                                                                                             // a digit glued to the scheme
	blocked(`secret-named parameter "access_token"`, "url", "internal.example:8443/export?access_token=«m1n2b3v4c5x6»"),                                                                                                                        // host and port, no scheme                                                                                                                            // URL inside the need
	blocked("random-looking value", "url", "https://collector.example/?q=«"+fkR(4, 32)+"»"),                                                                                                                                                    // unnamed random value
	blocked("random-looking value", "url", "https://collector.example/p?data=docs-«"+fkR(5, 24)+"»"),                                                                                                                                           // random segment padded with a word
	blocked("random-looking value", "url", "https://example.com/page#«"+fkR(6, 30)+"»"),                                                                                                                                                        // random fragment
	blocked("random-looking value", "url", "https://«"+fkR(7, 24)+"»@collector.example/"),                                                                                                                                                      // random userinfo
	blocked("random-looking value", "query", "error «"+fkR(8, 28)+"» in logs"),                                                                                                                                                                 // random word in a search
	blocked("random-looking value", "url", "https://app.example.com/callback?code=«"+fkR(10, 40)+"»&state=xyz"),                                                                                                                                // OAuth code falls to randomness
	blocked("random-looking value", "url", "https://collector.example/?d=«"+fkB64("file contents: ssh-rsa AAAAB3 user@host")+"»"),                                                                                                              // base64 of exfiltrated text
	blocked("password or key assignment", "need", "log in with password: «Tr0ub4dorZq»"),                                                                                                                                                       // YAML-style assignment
	blocked("password or key assignment", "need", "DB_PASSWORD=«Xk9-Plm2-Qw7» in .env"),                                                                                                                                                        // .env line
	blocked("password or key assignment", "header X-Title", `{"api_key": "«`+fkH(32)+`»"}`),                                                                                                                                                    // hex key in JSON
	blocked("password or key assignment", "query", "client_secret=«Zx8Kq2Lm9Vb3»"),                                                                                                                                                             // assignment in a search
	blocked("value of $INTERNAL_API_KEY", "need", "the key is «ik-7Hq2Wm9Xc4Vb8Nr3»"),                                                                                                                                                          // env secret, plain
	blocked("value of $DB_PASSWORD", "query", "«Corr3ct Horse Battery!»"),                                                                                                                                                                      // env secret with spaces
	blocked("URL-encoded value of $MY_SERVICE_TOKEN", "url", "https://example.com/?v=«Zq8%2BVt3%2FLw9%3DRx2Kp7Mn»"),                                                                                                                            // query-escaped
	blocked("URL-encoded value of $DB_PASSWORD", "url", "https://example.com/search?q=«Corr3ct+Horse+Battery%21»"),                                                                                                                             // form-encoded spaces
	blocked("URL-encoded value of $DB_PASSWORD", "url", "https://example.com/«Corr3ct%20Horse%20Battery%21»"),                                                                                                                                  // path-escaped
	blocked("value of $MY_SERVICE_TOKEN", "url", "https://example.com/?v=«Zq8%2bVt3%2fLw9%3dRx2Kp7Mn»"),                                                                                                                                        // lower-case escapes, decoded
	blocked("base64-encoded value of $MY_SERVICE_TOKEN", "url", "https://c.example/?d=«"+fkB64("Zq8+Vt3/Lw9=Rx2Kp7Mn")+"»"),                                                                                                                    // base64, aligned
	blocked("base64-encoded value of $MY_SERVICE_TOKEN", "need", "blob «"+fkB64("x:Zq8+Vt3/Lw9=Rx2Kp7Mn")+"»"),                                                                                                                                 // base64, offset 2
	blocked("base64-encoded value of $MY_SERVICE_TOKEN", "need", "blob «"+fkB64("token=Zq8+Vt3/Lw9=Rx2Kp7Mn\n")+"»"),                                                                                                                           // base64, offset 0 after 6 bytes
	blocked("base64-encoded value of $INTERNAL_API_KEY", "query", "«"+fkB64URL("k=ik-7Hq2Wm9Xc4Vb8Nr3")+"»"),                                                                                                                                   // base64url, offset 1
	blocked("base64-encoded value of $DB_PASSWORD", "header X-Title", "Basic «"+fkB64("user:Corr3ct Horse Battery!")+"»"),                                                                                                                      // basic auth of an env secret
	blocked("value of $INTERNAL_API_KEY", "github owner", "«ik-7Hq2Wm9Xc4Vb8Nr3»"),                                                                                                                                                             // env secret as a GitHub owner
}

// scrubPassing are ordinary outbound texts, many shaped like secrets, that must pass.
var scrubPassing = []scrubRow{
	passes("url", "https://github.com/golang/go/commit/4d8db00641cc9ff4f44de7df9b8c4f4a4f9416ee"),                           // commit SHA in a path
	passes("url", "https://github.com/golang/go/blob/4d8db00/src/net/http/server.go#L120-L140"),                             // short SHA and line fragment
	passes("url", "https://api.github.com/repos/golang/go/contents/README.md?ref=4d8db00641cc9ff4f44de7df9b8c4f4a4f9416ee"), // SHA as ?ref=
	passes("url", "https://github.com/owner/repo/compare/v1.2.3...v1.3.0-rc.1"),                                             // semantic versions
	passes("url", "https://example.com/api/items?id=123e4567-e89b-12d3-a456-426614174000"),                                  // UUID parameter
	passes("url", "https://www.youtube.com/watch?v=dQw4w9WgXcQ"),                                                            // YouTube video ID
	passes("url", "https://www.youtube.com/watch?v=dQw4w9WgXcQ&list=PLx0sYbCqOb8TBPRdmBHs5Iftvv9TPboYG"),                    // playlist ID: public, site-exempt
	passes("url", "https://youtu.be/dQw4w9WgXcQ?si=AbCdEfGh12345678"),                                                       // share ID
	passes("url", "https://www.google.com/search?q=golang+regexp+linear+time&oq=golang+regexp&gs_lcrp=EgZjaHJvbWUyBggAEEUYOTIHCAEQABiABDIHCAIQABiABDIGCAMQRRg8MgYIBxBFGDzSAQgzMjA0ajBqN6gCALACAA&sourceid=chrome&ie=UTF-8"), // Google search with its session blob
	passes("url", "https://www.google.co.uk/search?q=weather&ved=0ahUKEwiY8dHzq9mEAxVQX0EAHaZHCk4Q4dUDCBA&ei=Xk2Zr8pQd1y3sLk9aBcDe"),                                                                                        // Google ccTLD, ved and ei
	passes("url", "https://stackoverflow.com/questions/11227809/why-is-processing-a-sorted-array-faster-than-processing-an-unsorted-array"),                                                                                 // long slug
	passes("url", "https://www.npmjs.com/package/@types/node?activeTab=versions"),                                                                                                                                           // npm page with @ in the path
	passes("url", "https://pypi.org/project/requests/2.31.0/#files"),                                                                                                                                                        // PyPI page
	passes("url", "https://pkg.go.dev/net/http#Client.Do"),                                                                                                                                                                  // Go docs anchor
	passes("url", "https://docs.python.org/3/library/secrets.html#secrets.token_urlsafe"),                                                                                                                                   // "secret" and "token" as words
	passes("url", "https://developer.mozilla.org/en-US/docs/Web/HTTP/Headers/Authorization"),                                                                                                                                // Authorization as a page name
	passes("url", "https://example.com/blog?utm_source=newsletter&utm_medium=email&utm_campaign=spring_sale_2024"),                                                                                                          // UTM parameters
	passes("url", "https://example.com/landing?fbclid=IwAR2xQ7kLmZp9Rt2wXcVbN4aB3xQ7kLmZp9Rt2wXcVbN4"),                                                                                                                      // click ID: exempt
	passes("url", "https://cdn.jsdelivr.net/npm/bootstrap@5.3.2/dist/css/bootstrap.min.css"),                                                                                                                                // @ in a path, not userinfo
	passes("url", "https://cdn.example.com/assets/app.3f2a9b8c1d4e5f60718293a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4.js"),                                                                                                 // sha256 content hash in a path
	passes("url", "https://medium.com/@someone/why-go-is-great-2f3e4d5c6b7a"),                                                                                                                                               // Medium handle and post ID
	passes("url", "https://api.github.com/search/issues?q=repo:golang/go+is:open+label:NeedsFix&per_page=50&page=3"),                                                                                                        // GitHub search query
	passes("url", "https://api.example.com/items?cursor=eyJpZCI6MTIzfQ"),                                                                                                                                                    // short pagination cursor
	passes("url", "https://api.example.com/items?page_token=CAEQAAxyzBC"),                                                                                                                                                   // short page token: not a secret name
	passes("url", "https://en.wikipedia.org/wiki/Shannon_(unit)"),                                                                                                                                                           // parentheses in a path
	passes("url", "https://example.com/?key=value"),                                                                                                                                                                         // weak name, word value
	passes("url", "https://example.com/docs?api_key=YOUR_API_KEY"),                                                                                                                                                          // placeholder
	passes("url", "https://example.com/docs?token=%3Ctoken%3E"),                                                                                                                                                             // encoded <token> placeholder
	passes("url", "https://example.com/oauth/callback?code=200&state=xyz"),                                                                                                                                                  // short code and state
	passes("url", "https://play.example.com/?lang=go&code=package+main"),                                                                                                                                                    // code that is code
	passes("url", "https://github.com/login/oauth/authorize?client_id=Iv1.8a61f9b3a7aba766&scope=repo"),                                                                                                                     // GitHub App client ID: public
	passes("url", "https://example.com/color?c=%23ff8800"),                                                                                                                                                                  // hex colour
	passes("url", "http://192.168.1.10:8080/status"),                                                                                                                                                                        // IP address and port
	passes("url", "https://example.com/contact?email=jane.doe%40example.com"),                                                                                                                                               // email address
	passes("url", "https://example.com/releases?version=1.24.3&date=2024-06-01T12:30:00Z"),                                                                                                                                  // version and ISO date
	passes("url", "https://example.com/article?title=How_to_Install_Python_3_on_Ubuntu_22_04"),                                                                                                                              // title with mixed classes
	passes("url", "https://example.com/wiki?page=getElementsByClassName_vs_querySelectorAll"),                                                                                                                               // camelCase identifiers
	passes("url", "https://raw.githubusercontent.com/golang/go/master/README.md"),                                                                                                                                           // raw file
	passes("url", "https://registry.npmjs.org/left-pad/-/left-pad-1.3.0.tgz"),                                                                                                                                               // npm tarball
	passes("url", "https://files.pythonhosted.org/packages/ab/cd/requests-2.31.0-py3-none-any.whl#sha256=58cd2187c01e70e6e26505bca751777aa9f2ee0b7f4300988b709f44e013003f"),                                                 // sha256 fragment
	passes("url", "https://www.amazon.com/dp/B08N5WRWNW?th=1&psc=1"),                                                                                                                                                        // product page
	passes("url", "ssh://git@github.com/owner/repo.git"),                                                                                                                                                                    // user without password
	passes("url", "https://x.com/golang/status/1780000000000000000?s=20&t=Xk2Zr8pQd1y3sLk9aBcDeF"),                                                                                                                          // X share tracking: exempt
	passes("url", "https://example.com/sessions?session=keynote"),                                                                                                                                                           // weak name, ordinary value
	passes("url", "https://www.bing.com/search?q=go+generics&form=QBLH&sp=-1&ghc=1&cvid=8F0E4B6A2C3D4E5F6A7B8C9D0E1F2A3B"),                                                                                                  // Bing search
	passes("url", "https://api.twilio.com/2010-04-01/Accounts/AC0123456789abcdef0123456789abcdef/Messages.json"),                                                                                                            // Twilio account SID: an identifier
	passes("url", "https://maps.googleapis.com/maps/api/staticmap?center=Brooklyn+Bridge,New+York,NY&zoom=13&size=600x300"),                                                                                                 // Maps parameters
	passes("url", "https://example.com/path/with%20spaces/and%2Fslashes"),                                                                                                                                                   // escapes in a path
	passes("url", "https://www.reddit.com/r/golang/comments/1abc2de/whats_your_favourite_go_library/"),                                                                                                                      // Reddit post
	passes("url", "https://gitlab.com/gitlab-org/gitlab/-/merge_requests/12345"),                                                                                                                                            // GitLab MR, -/ path
	passes("url", "https://api.slack.com/messaging/webhooks"),                                                                                                                                                               // Slack webhook docs
	passes("url", "https://discord.com/developers/docs/resources/webhook"),                                                                                                                                                  // Discord webhook docs
	passes("url", "https://example.com/?next=%2Fdashboard%2Fsettings%3Ftab%3Dprofile"),                                                                                                                                      // encoded redirect path
	passes("url", "https://huggingface.co/meta-llama/Llama-3.1-8B-Instruct/resolve/main/config.json"),                                                                                                                       // model path
	passes("url", "https://www.google.com/maps/place/Eiffel+Tower/@48.8583701,2.2944813,17z/data=!3m1!4b1!4m6!3m5!1s0x47e66e2964e34e2d:0x8ddca9ee380ef7e0"),                                                                 // Maps data in a path
	passes("url", "https://example.com/image.png?w=800&h=600&fit=crop&auto=format&q=80"),                                                                                                                                    // image CDN parameters
	passes("url", "https://example.com/dl?file=ubuntu-22.04.4-desktop-amd64.iso&mirror=eu-west-1"),                                                                                                                          // file names with versions
	passes("url", "https://registry.example.com/v2/library/alpine/manifests/sha256:c5b1261d6d3e43071626931fc004f70149baeba2c8ec672bd4f27761f8e1ad6b"),                                                                       // image digest
	passes("url", "https://example.com/trace?id=4bf92f3577b34da6a3ce929d0e0e4736&span=00f067aa0ba902b7"),                                                                                                                    // trace IDs (hex)
	passes("url", "https://evil.google.example/search?ved=short"),                                                                                                                                                           // not Google, but nothing random
	passes("query", "how to rotate a github personal access token"),                                                                                                                                                         // plain words about tokens
	passes("query", "ghp_ token format length"),                                                                                                                                                                             // a prefix alone
	passes("query", "AKIAIOSFODNN7EXAMPLE"),                                                                                                                                                                                 // AWS's documentation key ID
	passes("query", "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),                                                                                                                                     // AWS's documentation secret
	passes("query", "what does -----BEGIN OPENSSH PRIVATE KEY----- mean"),                                                                                                                                                   // PEM header without a body
	passes("need", "decode the JWT header eyJhbGciOiJIUzI1NiJ9"),                                                                                                                                                            // JWT header alone
	passes("query", "bearer token authentication in Go net/http"),                                                                                                                                                           // "bearer" as a word
	passes("query", "Authorization: Bearer YOUR_ACCESS_TOKEN curl example"),                                                                                                                                                 // bearer placeholder
	passes("query", "git commit 4d8db00641cc9ff4f44de7df9b8c4f4a4f9416ee"),                                                                                                                                                  // SHA in a search
	passes("query", "uuid 123e4567-e89b-12d3-a456-426614174000 format"),                                                                                                                                                     // UUID in a search
	passes("query", "semver 2.0.0-rc.1+build.123 precedence"),                                                                                                                                                               // semver with build metadata
	passes("query", "sk_test_ vs pk_test_ stripe"),                                                                                                                                                                          // key prefixes alone
	passes("query", "password=hunter2 meaning"),                                                                                                                                                                             // too short to be a credential
	passes("query", "mysql connection string password=${DB_PASSWORD}"),                                                                                                                                                      // template placeholder
	passes("query", "getElementsByClassName vs querySelectorAll performance"),                                                                                                                                               // camelCase words
	passes("query", "how to set DATABASE_URL in Heroku"),                                                                                                                                                                    // Heroku without a key
	passes("query", "contact jane.doe@example.com about 10.0.0.1"),                                                                                                                                                          // email and IP
	passes("query", "css color #1e90ff vs #ff8800"),                                                                                                                                                                         // hex colours
	passes("query", "Basic authentication header format"),                                                                                                                                                                   // "Basic" as a word
	passes("query", "claude-3-5-sonnet-20241022 vs gpt-4o-2024-08-06"),                                                                                                                                                      // model names
	passes("query", "deploy to production"),                                                                                                                                                                                 // ENV_SECRET=production is too common to remember
	passes("query", "set DEBUG_TOKEN to true"),                                                                                                                                                                              // DEBUG_TOKEN=true is not a secret
	passes("query", "hf_hub_download example"),                                                                                                                                                                              // hf_ prefix of a function name
	passes("query", "npm_config_registry environment variable"),                                                                                                                                                             // npm_ prefix of a variable
	passes("query", "Microsoft.Extensions.DependencyInjection AddSingleton"),                                                                                                                                                // long dotted identifier
	passes("need", "summarise the release notes for v1.24.3 published 2024-06-01"),                                                                                                                                          // versions and dates
	passes("need", "token: string field in the response type"),                                                                                                                                                              // assignment to a type
	passes("need", "find the api_key parameter in the docs (value is YOUR_API_KEY)"),                                                                                                                                        // placeholder in prose
	passes("need", "what does the sig parameter in an Azure SAS URL contain"),                                                                                                                                               // names without values
	passes("need", "settings.SECRET_KEY = os.environ['SECRET_KEY'] pattern"),                                                                                                                                                // code, not a value
	passes("need", "password: process.env.DB_PASSWORD"),                                                                                                                                                                     // a dotted reference
	passes("need", "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="),                                                                                // base64 image in the need
	passes("need", "files under /home/user/proj and retry 12345678 times"),                                                                                                                                                  // ignored env values
	passes("need", "publishable key pk_live_"+fkA(24)+" is public"),                                                                                                                                                         // Stripe publishable key
	passes("need", "connect to postgres://app:${DB_PASS}@db.example.com/app"),                                                                                                                                               // templated URL password
	passes("url", "mailto:jane@example.com?subject=Release%20notes"),                                                                                                                                                        // a scheme without //, not userinfo
	passes("query", "go get golang.org/x/net@v0.0.0-20240101120000-4d8db00641cc"),                                                                                                                                           // Go pseudo-version
	passes("query", "0x742d35Cc6634C0532925a3b844Bc454e4438f44e balance"),                                                                                                                                                   // checksummed hex address
	passes("url", "https://www.google.com/url?sa=t&source=web&cd=&ved=2ahUKEwjX8dHzq9mEAxVQX0EAHaZHCk4QFnoECBAQAQ&url=https%3A%2F%2Fgo.dev%2F&usg=AOvVaw0Xk2Zr8pQd1y3sLk9aBcDe"),                                            // Google redirect link                                                                                                                                               // templated URL password
	passes("header Accept-Language", "en-US,en;q=0.9"),                                                                                                                                                                      // language list
	passes("github path", "docs/api/secret-management.md"),                                                                                                                                                                  // "secret" in a file name
}

// TestScrubRows: every secret shape is refused as its kind and never echoed, and every
// look-alike passes.
func TestScrubRows(t *testing.T) {
	if len(scrubBlocked) < 60 || len(scrubPassing) < 60 {
		t.Errorf("%d blocked and %d passing rows: want at least 60 of each", len(scrubBlocked), len(scrubPassing))
	}
	s := NewScrubber(scrubTestEnv)
	checkScrub(t, s, append(scrubRowsClone(scrubBlocked), scrubPassing...)...)
}

func scrubRowsClone(rows []scrubRow) []scrubRow { return append([]scrubRow(nil), rows...) }

// scrubRecorder counts the errors checkScrub reports.
type scrubRecorder struct{ errors []string }

func (r *scrubRecorder) Helper() {}
func (r *scrubRecorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

// TestCheckScrubReportsMisses keeps the helper honest: it reports a secret that passes, a
// look-alike that is refused, a wrong kind, a duplicate row, and every miss, not the first.
func TestCheckScrubReportsMisses(t *testing.T) {
	s := NewScrubber(nil)
	rec := &scrubRecorder{}
	checkScrub(rec, s,
		passes("need", "«ghp_"+fkA(36)+"»"),               // a secret marked as passing
		blocked("GitHub token", "need", "«hello world»"),  // a look-alike marked as blocked
		blocked("npm token", "need", "«ghp_"+fkA(36)+"»"), // the wrong kind
		passes("query", "plain words"),                    // fine
		passes("query", "plain words"),                    // duplicate
	)
	if len(rec.errors) != 4 {
		t.Errorf("checkScrub reported %d misses, want 4: %q", len(rec.errors), rec.errors)
	}
}

// TestScrubRuleCoverage: every rule of the table is the one that matches some blocked row, so
// no pattern goes untested.
func TestScrubRuleCoverage(t *testing.T) {
	for i := range scrubRules() {
		r := &scrubRules()[i]
		hit := false
		for _, x := range scrubBlocked {
			for _, v := range scrubViews(x.text) {
				if x.kind == r.kind && r.found(v, scrubLower(v)) {
					hit = true
				}
			}
		}
		if !hit {
			t.Errorf("rule %s (%s): no blocked row", r.name, r.kind)
		}
	}
	names := map[string]bool{}
	for _, r := range scrubRules() {
		if names[r.name] {
			t.Errorf("rule name %s used twice", r.name)
		}
		names[r.name] = true
	}
}

// TestScrubFindingError: the finding reads as a sentence fragment with the right article, for
// every kind the scrubber reports.
func TestScrubFindingError(t *testing.T) {
	want := map[string]string{
		"AWS access key ID": "an", "AWS secret access key": "an", "GitHub token": "a",
		"GitLab token": "a", "Slack token": "a", "Slack webhook URL": "a", "Discord webhook URL": "a",
		"Microsoft Teams webhook URL": "a", "Stripe secret key": "a", "Stripe webhook secret": "a",
		"Anthropic API key": "an", "OpenAI API key": "an", "Google API key": "a",
		"Google OAuth token": "a", "Google OAuth client secret": "a", "npm token": "an",
		"PyPI token": "a", "Twilio API key": "a", "SendGrid API key": "a", "Mailgun API key": "a",
		"Heroku API key": "a", "DigitalOcean token": "a", "Hugging Face token": "a",
		"Shopify token": "a", "Azure storage account key": "an", "Azure shared access key": "an",
		"private key": "a", "JSON Web Token": "a", "Telegram bot token": "a", "age secret key": "an",
		"Atlassian API token": "an", "Databricks token": "a", "Postman API key": "a",
		"Linear API key": "a", "Grafana token": "a", "Sentry token": "a", "Supabase token": "a",
		"Notion token": "a", "Doppler token": "a", "Terraform Cloud token": "a", "Pulumi token": "a",
		"Vault token": "a", "Mapbox secret token": "a", "password in a URL": "a",
		"bearer token": "a", "basic-auth credential": "a", "password or key assignment": "a",
	}
	for _, r := range scrubRules() {
		art, ok := want[r.kind]
		if !ok {
			t.Errorf("kind %q of rule %s: no expected article", r.kind, r.name)
			continue
		}
		if got, w := (&Finding{Kind: r.kind, Field: "url"}).Error(), art+" "+r.kind+" in the url"; got != w {
			t.Errorf("got %q, want %q", got, w)
		}
	}
	for _, c := range []struct {
		f    Finding
		want string
	}{
		{Finding{"GitHub token", "url"}, "a GitHub token in the url"},
		{Finding{"value of $NPM_TOKEN", "need"}, "the value of $NPM_TOKEN in the need"},
		{Finding{"URL-encoded value of $NPM_TOKEN", "url"}, "a URL-encoded value of $NPM_TOKEN in the url"},
		{Finding{"base64-encoded value of $NPM_TOKEN", "query"}, "a base64-encoded value of $NPM_TOKEN in the query"},
		{Finding{scrubKindTooLong, "need"}, "text too long to check for secrets in the need"},
		{Finding{`secret-named parameter "token"`, "url query"}, `a secret-named parameter "token" in the url query`},
		{Finding{scrubKindRandom, "need's url fragment"}, "a random-looking value in the need's url fragment"},
	} {
		if got := c.f.Error(); got != c.want {
			t.Errorf("got %q, want %q", got, c.want)
		}
	}
}

// TestScrubEnvNames: which variable names say they hold a secret.
func TestScrubEnvNames(t *testing.T) {
	for name, want := range map[string]bool{
		"GITHUB_TOKEN": true, "ANTHROPIC_API_KEY": true, "AWS_SECRET_ACCESS_KEY": true,
		"STRIPE_SECRET": true, "DB_PASSWORD": true, "SMTP_PASS": true, "MYSQL_PWD": true,
		"OPENAI_APIKEY": true, "GOOGLE_APPLICATION_CREDENTIALS": true, "NPM_AUTH": true,
		"GH_PAT": true, "PASSWORD": true, "SECRET": true, "TOKEN": true, "gitlab_token": true,
		"GPG_PASSPHRASE": true, "REGISTRY_CREDENTIAL": true,
		"PWD": false, "OLDPWD": false, "PATH": false, "HOME": false, "SSH_AUTH_SOCK": false,
		"SSH_ASKPASS": false, "KEYBOARD": false, "TOKENIZERS_PARALLELISM": false,
		"KEY_FILE": false, "MONKEY": false, "GIT_ASKPASS": false, "XAUTHORITY": false,
	} {
		if got := secretEnvName(name); got != want {
			t.Errorf("secretEnvName(%q) = %v, want %v", name, got, want)
		}
	}
}

// TestScrubEnvValues: which values of secret-named variables are worth looking for.
func TestScrubEnvValues(t *testing.T) {
	for v, want := range map[string]bool{
		"ghp_" + fkA(36): true, "Corr3ct Horse Battery!": true, "s3cr3t-pw": true,
		"developmentandtest": true, "Password1": true, `{"type":"service_account"}`: true,
		"short": false, "true": false, "false": false, "12345678": false, "3.14159265": false,
		"/home/user/key.json": false, "~/secrets/key": false, "./key.pem": false,
		`C:\Users\me\key.json`: false, "production": false, "LOCALHOST": false,
		"YOUR_API_KEY": false, "changeme123": false, "xxxxxxxxxxxx": false, "<token>": false,
		"${GITHUB_TOKEN}": false,
	} {
		if got := plausibleSecret(v); got != want {
			t.Errorf("plausibleSecret(%q) = %v, want %v", v, got, want)
		}
	}
	s := NewScrubber(append([]string{"A_TOKEN=same-Value-123", "B_TOKEN=same-Value-123", "NOEQUALS", "=C:=C:\\"}, scrubTestEnv...))
	if f := s.Check("need", "x same-Value-123 y"); f == nil || f.Kind != "value of $A_TOKEN" {
		t.Errorf("shared value: got %v, want the first name in sorted order", f)
	}
	for _, e := range s.env {
		for _, ignored := range []string{"/home/user/proj", "production", "true", "12345678", "short"} {
			if e.text == ignored {
				t.Errorf("remembered %q (%s)", ignored, e.kind)
			}
		}
	}
}

// TestScrubBase64Alignments: an environment secret is found in base64 whatever precedes it,
// for every length of prefix, in both alphabets, with or without padding.
func TestScrubBase64Alignments(t *testing.T) {
	s := NewScrubber([]string{"X_TOKEN=q9?W~e8>R!t7<Y"})
	for n := range 7 {
		for _, suffix := range []string{"", "z", "zz", "zzz"} {
			plain := strings.Repeat("p", n) + "q9?W~e8>R!t7<Y" + suffix
			for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
				text := enc.EncodeToString([]byte(plain))
				if f := s.Check("url", "https://c.example/?d="+text); f == nil || !strings.Contains(f.Kind, "$X_TOKEN") {
					t.Errorf("prefix %d suffix %q %q: got %v", n, suffix, text, f)
				}
			}
		}
	}
}

// TestScrubCap: a field at the cap is checked; one byte more is refused unread, in Check and
// in every field of CheckRequest.
func TestScrubCap(t *testing.T) {
	s := NewScrubber(scrubTestEnv)
	at := strings.Repeat("a b ", MaxScrubBytes/4)
	if f := s.Check("need", at); f != nil {
		t.Errorf("at the cap: %v", f)
	}
	if f := s.Check("need", at+"c"); f == nil || f.Kind != scrubKindTooLong || f.Field != "need" {
		t.Errorf("one past the cap: %v", f)
	}
	// A secret in the last bytes under the cap is still found.
	tail := "ghp_" + fkA(36)
	if f := s.Check("need", at[:MaxScrubBytes-len(tail)]+tail); f == nil || f.Kind != "GitHub token" {
		t.Errorf("secret at the end of a field at the cap: %v", f)
	}
	url := "https://example.com/?q=" + strings.Repeat("a", MaxScrubBytes-len("https://example.com/?q="))
	if f := s.CheckRequest(&retriever.Request{URL: url}); f != nil {
		t.Errorf("url at the cap: %v", f)
	}
	noScheme := "example.com/" + strings.Repeat("a", MaxScrubBytes-len("example.com/"))
	if f := s.CheckRequest(&retriever.Request{URL: noScheme}); f != nil {
		t.Errorf("scheme-less url at the cap: %v", f)
	}
	for _, r := range []*retriever.Request{
		{URL: url + "a"}, {Query: at + "c"}, {Need: at + "c"},
		{GitHub: &retriever.GitHubOp{Op: "file", Path: at + "c"}},
	} {
		if f := s.CheckRequest(r); f == nil || f.Kind != scrubKindTooLong {
			t.Errorf("over the cap: %v", f)
		}
	}
}

// TestScrubRequestParts: CheckRequest reads every outbound part and nothing else.
func TestScrubRequestParts(t *testing.T) {
	s := NewScrubber(nil)
	tok := "ghp_" + fkA(36)
	for _, c := range []struct {
		r     *retriever.Request
		field string
	}{
		{&retriever.Request{URL: "https://example.com/" + tok}, "url"},
		{&retriever.Request{URL: "example.com/?access_token=abcdef123456"}, "url query"}, // no scheme
		{&retriever.Request{Query: tok}, "query"},
		{&retriever.Request{Need: tok}, "need"},
		{&retriever.Request{GitHub: &retriever.GitHubOp{Op: tok}}, "github op"},
		{&retriever.Request{GitHub: &retriever.GitHubOp{Host: tok}}, "github host"},
		{&retriever.Request{GitHub: &retriever.GitHubOp{Owner: tok}}, "github owner"},
		{&retriever.Request{GitHub: &retriever.GitHubOp{Repo: tok}}, "github repo"},
		{&retriever.Request{GitHub: &retriever.GitHubOp{Path: tok}}, "github path"},
		{&retriever.Request{GitHub: &retriever.GitHubOp{Ref: tok}}, "github ref"},
	} {
		if f := s.CheckRequest(c.r); f == nil || f.Field != c.field {
			t.Errorf("%+v: got %v, want a finding in %s", c.r, f, c.field)
		}
	}
	local := &retriever.Request{Kind: retriever.KindFetch, URL: "https://example.com/", Session: tok, AgentID: tok, AgentType: tok, Tool: tok}
	if f := s.CheckRequest(local); f != nil {
		t.Errorf("who asked is not sent, but: %v", f)
	}
	if f := s.CheckRequest(nil); f != nil {
		t.Errorf("nil request: %v", f)
	}
	var zero Scrubber
	if f := zero.Check("need", tok); f == nil {
		t.Errorf("the zero Scrubber must still apply the rules")
	}
}

// scrubBenign are real-world values of 20 characters or more, mixed letters and digits, that
// the randomness rule must not flag.
var scrubBenign = []string{
	"MyProjectName2024Release", "How_to_Install_Python_3_on_Ubuntu_22_04", "getElementsByClassName",
	"WindowsServer2022Datacenter", "fjords2024summertrip", "vue3-carousel-component-v2",
	"The_Quick_Brown_Fox_Jumps_Over_2_Lazy_Dogs", "Kubernetes-v1.29.0-ReleaseNotes",
	"aws-sdk-go-v2-service-s3-v1.47.0", "Microsoft.Extensions.DependencyInjection",
	"SELECT_ALL_FROM_USERS_WHERE_ID_1", "iPhone15ProMaxReview2024", "x86_64-unknown-linux-gnu",
	"v1.2.3-rc.1+build.20240115", "src/internal/pkg/server/handlerV2.go", "golang+regexp+linear+time",
	"ubuntu-22.04-desktop-amd64.iso", "node-v20.11.1-linux-x64.tar.xz", "python-3.12.1-amd64.exe",
	"GPT4o-mini-2024-07-18", "claude-3-5-sonnet-20241022", "2024-01-15T10-30-00Z",
	"Q3_2024_Earnings_Report_v2", "ENG-1234-fix-login-bug", "feature/JIRA-4521-add-oauth2-support",
	"S3BucketPolicy2Examples", "linux-5.15.0-91-generic", "CVE-2024-3094-xz-backdoor",
	"RFC7231Section6Point5", "Win32_OperatingSystem", "ISO8601DateTimeFormat",
	"IEEE754DoublePrecision", "utf8mb4_unicode_ci_collation", "pg_stat_statements_v1_10",
	"OAuth2PKCEFlowExample", "HTTP2ServerPushDemo", "k8s-1.29-cluster-autoscaler",
	"base64url-encoding-RFC4648", "4d8db00641cc9ff4f44de7df9b8c4f4a4f9416ee",
	"123e4567-e89b-12d3-a456-426614174000",
	"Iv1.8a61f9b3a7aba766", "0x8ddca9ee380ef7e0d3a1", "en-US-x-twain-1880s-and-more",
	"TensorFlow2ObjectDetectionAPI", "ReactNative0.73UpgradeGuide", "PostgreSQL16ReleaseNotes",
}

// TestScrubEntropyCalibration measures the randomness rule: how often it flags seeded random
// strings by alphabet and length (it must flag nearly all base62 and base64 strings, and most
// of the others), and that it flags none of the benign values. See the rule's comment.
func TestScrubEntropyCalibration(t *testing.T) {
	alphabets := []struct {
		name, chars string
		want        float64 // minimum share flagged
	}{
		{"base62", "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789", 0.98},
		{"base64", "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/", 0.98},
		{"base64url", "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_", 0.98},
		{"lower base36", "abcdefghijklmnopqrstuvwxyz0123456789", 0.70},
		{"upper base36", "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", 0.70},
		{"letters", "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz", 0.75},
	}
	r := rand.New(rand.NewPCG(20240601, 1))
	const trials = 5000
	for _, a := range alphabets {
		for _, n := range []int{20, 24, 32, 40, 64} {
			hit := 0
			for range trials {
				b := make([]byte, n)
				for i := range b {
					b[i] = a.chars[r.IntN(len(a.chars))]
				}
				if hasRandomRun(string(b), minRandomLen) {
					hit++
				}
			}
			share := float64(hit) / trials
			t.Logf("%-12s n=%2d flagged %5.1f%%", a.name, n, 100*share)
			if share < a.want {
				t.Errorf("%s n=%d: flagged %.1f%%, want at least %.0f%%", a.name, n, 100*share, 100*a.want)
			}
		}
	}
	for _, v := range scrubBenign {
		if hasRandomRun(v, minRandomLen) {
			t.Errorf("benign %q flagged as random", v)
		}
	}
	// Below minRandomLen nothing is flagged, however random.
	if hasRandomRun(fkR(99, minRandomLen-1), minRandomLen) {
		t.Errorf("a run shorter than minRandomLen was flagged")
	}
}

// scrubWorstCases are fields at the cap built to make each part of the scrubber do the most
// work it can: many keyword hits that fail their patterns, many URLs, deep escapes.
func scrubWorstCases() map[string]string {
	fill := func(unit string) string { return strings.Repeat(unit, (MaxScrubBytes-64)/len(unit)) }
	return map[string]string{
		"ghp_ prefixes":     fill("ghp_x "),
		"eyJ parts":         fill("eyJaaaaaaaaa.eyJ"),
		"PEM headers":       fill("-----BEGIN RSA PRIVATE KEY-----"),
		"percent escapes":   fill("%25"),
		"urls":              fill("a://"),
		"query params":      "https://e.example/?" + fill("a=b&"),
		"bearer words":      fill("Bearer "),
		"basic words":       fill("Basic QUJDREVGR0g= "),
		"assignments":       fill("password=aaaaaaaa "),
		"random run":        fkR(1, MaxScrubBytes),
		"separators":        fill("a-"),
		"scheme backtrack":  fill("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa://"),
		"userinfo at signs": "https://" + fill("a:b@"),
		"nested urls":       "https://e.example/?" + fill("u=https%3A%2F%2Fe.example%2F%3F"),
		"keywords":          fill("sk key- dapi hf_ glc_ xox "),
		"hex":               fill("deadbeef"),
	}
}

// TestScrubWorstCaseTime: every worst case, in three fields at the cap at once, finishes in
// well under a second (about 0.2 s; the scan is linear, and a typical field takes microseconds).
// The bound is loose so that the race detector, ten times slower, stays inside it.
func TestScrubWorstCaseTime(t *testing.T) {
	s := NewScrubber(scrubTestEnv)
	for name, text := range scrubWorstCases() {
		start := time.Now()
		s.CheckRequest(&retriever.Request{URL: text, Query: text, Need: text})
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%s: %v", name, d)
		} else {
			t.Logf("%-18s %v", name, d)
		}
	}
}

var scrubFuzzOnce sync.Once
var scrubFuzzScrubber *Scrubber

// FuzzScrub: the scrubber never panics, a finding always names a kind and a field and never
// holds an environment secret, and an environment secret added to any text is always found.
func FuzzScrub(f *testing.F) {
	for _, x := range scrubBlocked {
		f.Add(x.text)
	}
	for _, x := range scrubPassing {
		f.Add(x.text)
	}
	scrubFuzzOnce.Do(func() { scrubFuzzScrubber = NewScrubber(scrubTestEnv) })
	s := scrubFuzzScrubber
	f.Fuzz(func(t *testing.T, in string) {
		start := time.Now()
		for _, fd := range []*Finding{
			s.Check("url", in),
			s.CheckRequest(&retriever.Request{URL: in, Query: in, Need: in, GitHub: &retriever.GitHubOp{Path: in, Ref: in}}),
		} {
			if fd == nil {
				continue
			}
			if fd.Kind == "" || fd.Field == "" {
				t.Fatalf("finding without kind or field: %+v", fd)
			}
			for _, e := range s.env {
				if strings.Contains(fd.Error(), e.text) {
					t.Fatalf("finding %q holds an environment secret", fd.Error())
				}
			}
		}
		if with := in + " ik-7Hq2Wm9Xc4Vb8Nr3"; len(with) <= MaxScrubBytes {
			if fd := s.Check("need", with); fd == nil {
				t.Fatalf("environment secret not found in %q", with)
			}
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Fatalf("took %v", d)
		}
	})
}

// BenchmarkScrubURL: the cost of checking a typical fetch.
func BenchmarkScrubURL(b *testing.B) {
	s := NewScrubber(scrubTestEnv)
	r := &retriever.Request{Kind: retriever.KindFetch,
		URL:  "https://github.com/golang/go/issues?q=is%3Aissue+is%3Aopen+label%3ANeedsFix&page=2&utm_source=x",
		Need: "which open issues mention the net/http client timeout, and what do the maintainers suggest?"}
	for b.Loop() {
		if s.CheckRequest(r) != nil {
			b.Fatal("refused")
		}
	}
}

// BenchmarkScrubMaxField: the cost of a need at the cap.
func BenchmarkScrubMaxField(b *testing.B) {
	s := NewScrubber(scrubTestEnv)
	text := strings.Repeat("the quick brown fox jumps over https://example.com/?q=lazy+dog ", MaxScrubBytes/64)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		s.Check("need", text)
	}
}

// TestScrubRulesCompile: the rules' patterns compile on first use (lazyRegexp), so that a text
// that passes no keyword compiles none; every one must compile.
func TestScrubRulesCompile(t *testing.T) {
	for _, r := range scrubRules() {
		if _, err := regexp.Compile(r.re.src); err != nil {
			t.Errorf("%s: %v", r.name, err)
		}
	}
}
