package securerun

import (
	"net/url"
	"slices"
	"strings"

	"github.com/hookctl/hookctl/sandbox/egress"
)

// Backend is a model API a run's agent may reach under --network model-only: the variables
// through which its clients find it and authenticate, and the request paths its API uses.
type Backend struct {
	Name string
	// Default is its public endpoint, reached at public addresses only.
	Default string
	// URLVars are the variables the launcher points at the broker (the agent's base URL).
	URLVars []string
	// Credentials are the caller's variables the broker may take the credential from, in order
	// of preference, and how each goes on a request.
	Credentials []BackendCredential
	// Placeholder is the variable the agent gets instead of the credential, so that it starts
	// (clients refuse to run without one); its value is PlaceholderValue.
	Placeholder string
	// Paths are the API's request paths the broker admits.
	Paths []string
}

// BackendCredential is one way a backend takes its credential.
type BackendCredential struct {
	Variable, Header, Prefix string
}

// PlaceholderValue is what the agent sees where its model credential would be.
const PlaceholderValue = "hookctl-brokered-credential-placeholder"

// backends are the model APIs hookctl run can broker. Why each path: the client's requests
// seen live (Claude Code 2.1.328: /v1/messages and its count_tokens; OpenAI's clients:
// responses, chat completions, models); everything else (files, batches, admin) is refused.
var backends = []Backend{
	{Name: "anthropic", Default: "https://api.anthropic.com", URLVars: []string{"ANTHROPIC_BASE_URL"},
		Credentials: []BackendCredential{{Variable: "ANTHROPIC_API_KEY", Header: "X-Api-Key"},
			{Variable: "ANTHROPIC_AUTH_TOKEN", Header: "Authorization", Prefix: "Bearer "}},
		Placeholder: "ANTHROPIC_API_KEY", Paths: []string{"/v1/messages", "/v1/models"}},
	{Name: "openai", Default: "https://api.openai.com", URLVars: []string{"OPENAI_BASE_URL"},
		Credentials: []BackendCredential{{Variable: "OPENAI_API_KEY", Header: "Authorization", Prefix: "Bearer "}},
		Placeholder: "OPENAI_API_KEY", Paths: []string{"/v1/responses", "/v1/chat/completions", "/v1/models"}},
}

// BackendNames lists the backends, for flags' help.
func BackendNames() []string {
	var n []string
	for _, b := range backends {
		n = append(n, b.Name)
	}
	return n
}

func backendNamed(name string) (Backend, bool) {
	i := slices.IndexFunc(backends, func(b Backend) bool { return b.Name == name })
	if i < 0 {
		return Backend{}, false
	}
	return backends[i], true
}

// Model is the model a model-only run reaches, as the preflight shows it: never the
// credential's value.
type Model struct {
	Backend string `json:"backend"`
	URL     string `json:"url"`
	// Source is where the URL came from: --model-url, the caller's variable, or the backend's
	// default.
	Source string `json:"source"`
	// Allowed says how the URL is allowed: the backend's default, or the user's config.
	Allowed string `json:"allowed_by,omitempty"`
	// Broker is how the credential is added outside the run.
	Broker *Broker `json:"broker,omitempty"`
	// AgentVariables are what the agent sees: its base URL pointed at the broker, and the
	// placeholder where its credential would be.
	AgentVariables []string `json:"agent_variables"`
	Paths          []string `json:"paths"`
}

// Broker names the credential the broker adds and where it goes.
type Broker struct {
	Mode        string `json:"mode"` // "proxy adds the credential"
	Variable    string `json:"variable"`
	Header      string `json:"header"`
	Destination string `json:"destination"`
}

// modelOf decides the model of a model-only run: the backend, its URL (which must be the
// backend's default or on the user's allowlist), and the credential the broker will add. It
// returns the broker's config (with the credential) apart from what the preflight shows.
func modelOf(o Options, fail func(string, ...any)) (*Model, *egress.BrokerConfig) {
	name := o.ModelBackend
	if name == "" {
		name = "anthropic"
	}
	b, ok := backendNamed(name)
	if !ok {
		fail("--model-backend %q: the backends are %s", name, strings.Join(BackendNames(), ", "))
		return nil, nil
	}
	m := &Model{Backend: b.Name, Paths: b.Paths}
	raw := o.ModelURL
	m.Source = "--model-url"
	if raw == "" {
		for _, v := range b.URLVars {
			if val := getenv(o.Environ, v); val != "" {
				raw, m.Source = val, v
				break
			}
		}
	}
	if raw == "" {
		raw, m.Source = b.Default, "default"
	}
	u, err := url.Parse(strings.TrimSuffix(raw, "/"))
	if err != nil || u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" || (u.Scheme != "https" && u.Scheme != "http") {
		fail("the model URL %q (%s) is not a base URL scheme://host[:port][/path]", redactURL(raw), m.Source)
		return m, nil
	}
	m.URL = u.String()
	trusted := false
	switch {
	case m.URL == b.Default:
		m.Allowed = "the backend's default"
	case slices.ContainsFunc(o.ModelEndpoints, func(e string) bool { return strings.TrimSuffix(e, "/") == m.URL }):
		m.Allowed, trusted = "your config ([run] model_endpoints)", true
	default:
		fail("the model URL %s (%s) is not on your allowlist: add it to model_endpoints in the [run] section of hookctl's config, or use the backend's default %s", m.URL, m.Source, b.Default)
		return m, nil
	}
	if u.Scheme == "http" && !trusted {
		fail("the model URL %s is not https", m.URL)
		return m, nil
	}
	for _, c := range b.Credentials {
		if val := getenv(o.Environ, c.Variable); val != "" {
			m.Broker = &Broker{Mode: "hookctl's broker adds it to each request, outside the run", Variable: c.Variable, Header: c.Header, Destination: m.URL}
			m.AgentVariables = append(append(m.AgentVariables, b.URLVars...), b.Placeholder+"="+PlaceholderValue)
			return m, &egress.BrokerConfig{Backend: b.Name, Upstream: m.URL, Trusted: trusted, Paths: b.Paths,
				Headers: map[string]string{c.Header: c.Prefix + val}}
		}
	}
	var names []string
	for _, c := range b.Credentials {
		names = append(names, c.Variable)
	}
	fail("--network model-only needs the model's credential in %s in hookctl's environment (the broker adds it outside the run; the agent never sees it)", strings.Join(names, " or "))
	return m, nil
}

func getenv(environ []string, name string) string {
	for i := len(environ) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(environ[i], "="); ok && k == name {
			return v
		}
	}
	return ""
}

// redactURL hides a URL's user information.
func redactURL(raw string) string {
	if u, err := url.Parse(raw); err == nil {
		return u.Redacted()
	}
	return "(unparseable)"
}

// AgentRun is what the agent a run starts gets of hookctl's, where hookctl knows the agent
// (agents/<client> supplies it): hookctl's hooks installed for the run, pinned read-only, and
// the agent's own configuration sources that the repository could fill turned off.
type AgentRun struct {
	Client string `json:"client"`
	// Args are inserted after the program's name.
	Args []string `json:"args"`
	// Env are variables set for the agent.
	Env []string `json:"env"`
	// Files are written, before the run, beneath the output directory's config/, which the
	// agent may read and not change; the map is from name to content. Build makes them once
	// the run's roots are known: its hooks run admitted commands in the same profile, with the
	// roots the launcher adds to the system's (RunRoots).
	Files map[string][]byte                      `json:"-"`
	Build func(roots []string) map[string][]byte `json:"-"`
	// FileNames lists Files, for the preflight.
	FileNames []string `json:"files"`
	// Ignored says what of the agent's own configuration the run does not load.
	Ignored []string `json:"ignored"`
	// Backend is the model backend the agent speaks.
	Backend string `json:"backend"`
	// Read are files or directories of hookctl's the agent's hooks need to read (hookctl's
	// executable and its worker).
	Read []string `json:"read,omitempty"`
	// HookctlHome is hookctl's home for the agent's hooks, beneath the run's home: their
	// decision log is counted into runmeta.json at the end.
	HookctlHome string `json:"-"`
}

// AgentFor recognises a run's agent by its program (resolved) and says what it needs, or nil
// for a command hookctl does not know (a script: it runs as it is, under the same profile).
type AgentFor func(program string, l Layout) *AgentRun

// modelOnlyEnforcement is how the preflight words what holds the model-only network.
const modelOnlyEnforcement = "a network namespace holding only loopback; landlock: TCP connect to the broker's port alone; " +
	"seccomp: no UDP (so no DNS), raw, packet or unix socket but a socketpair, no bind, listen, accept or sendto an address"
