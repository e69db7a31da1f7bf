package securerun

import (
	"fmt"
	"strings"
	"testing"
)

// TestModelOf: which endpoint a model-only run reaches, and with which credential, or why it
// does not start.
func TestModelOf(t *testing.T) {
	allow := []string{"https://gateway.example.com/", "http://127.0.0.1:8080"}
	for _, c := range []struct {
		url     string
		environ []string
		backend string
		// want: the URL, the credential variable and the header value the broker gets; or the
		// failure.
		want, variable, header, fail string
	}{
		{"", []string{"ANTHROPIC_API_KEY=k1"}, "", "https://api.anthropic.com", "ANTHROPIC_API_KEY", "X-Api-Key: k1", ""},
		{"", []string{"ANTHROPIC_AUTH_TOKEN=t1"}, "", "https://api.anthropic.com", "ANTHROPIC_AUTH_TOKEN", "Authorization: Bearer t1", ""},
		// The key is preferred where both are set.
		{"", []string{"ANTHROPIC_AUTH_TOKEN=t1", "ANTHROPIC_API_KEY=k1"}, "", "https://api.anthropic.com", "ANTHROPIC_API_KEY", "X-Api-Key: k1", ""},
		{"https://gateway.example.com", []string{"ANTHROPIC_API_KEY=k1"}, "", "https://gateway.example.com", "ANTHROPIC_API_KEY", "X-Api-Key: k1", ""},
		{"", []string{"ANTHROPIC_BASE_URL=http://127.0.0.1:8080/", "ANTHROPIC_API_KEY=k1"}, "", "http://127.0.0.1:8080", "ANTHROPIC_API_KEY", "X-Api-Key: k1", ""},
		{"", []string{"OPENAI_API_KEY=o1"}, "openai", "https://api.openai.com", "OPENAI_API_KEY", "Authorization: Bearer o1", ""},
		{"https://evil.example", []string{"ANTHROPIC_API_KEY=k1"}, "", "", "", "", "is not on your allowlist"},
		{"", []string{"ANTHROPIC_BASE_URL=https://evil.example", "ANTHROPIC_API_KEY=k1"}, "", "", "", "", "(ANTHROPIC_BASE_URL) is not on your allowlist"},
		{"http://api.anthropic.com", []string{"ANTHROPIC_API_KEY=k1"}, "", "", "", "", "is not on your allowlist"},
		{"https://u:p@gateway.example.com", []string{"ANTHROPIC_API_KEY=k1"}, "", "", "", "", "is not a base URL"},
		{"", nil, "", "", "", "", "needs the model's credential in ANTHROPIC_API_KEY or ANTHROPIC_AUTH_TOKEN"},
		{"", []string{"ANTHROPIC_API_KEY=k1"}, "gemini", "", "", "", `--model-backend "gemini"`},
	} {
		var failures []string
		fail := func(f string, a ...any) { failures = append(failures, fmt.Sprintf(f, a...)) }
		m, b := modelOf(Options{ModelURL: c.url, Environ: c.environ, ModelBackend: c.backend, ModelEndpoints: allow}, fail)
		name := fmt.Sprintf("%s %v %s", c.url, c.environ, c.backend)
		if c.fail != "" {
			if b != nil || len(failures) != 1 || !strings.Contains(failures[0], c.fail) {
				t.Errorf("%s: broker %v, failures %q, want %q", name, b, failures, c.fail)
			}
			for _, f := range failures {
				if strings.Contains(f, "k1") || strings.Contains(f, ":p@") {
					t.Errorf("%s: a failure shows a secret: %s", name, f)
				}
			}
			continue
		}
		if len(failures) > 0 || b == nil || m.URL != c.want || b.Upstream != c.want || m.Broker.Variable != c.variable {
			t.Errorf("%s: model %+v broker %+v failures %q", name, m, b, failures)
			continue
		}
		h, v, _ := strings.Cut(c.header, ": ")
		if len(b.Headers) != 1 || b.Headers[h] != v {
			t.Errorf("%s: headers %v, want %s", name, b.Headers, c.header)
		}
		if b.Trusted != (c.want != "https://api.anthropic.com" && c.want != "https://api.openai.com") {
			t.Errorf("%s: trusted %v: only the user's own endpoints may resolve to private addresses", name, b.Trusted)
		}
		for _, av := range m.AgentVariables {
			if strings.Contains(av, v) {
				t.Errorf("%s: the agent would see the credential: %s", name, av)
			}
		}
	}
}
