package retriever

import (
	"fmt"
	"strings"

	"github.com/hookctl/hookctl/retriever/settings"
)

// What passes between the front and the worker: the worker's input on its standard input, its
// result on its standard output, and the environment variables the front lets through.

// WorkerInput is what the front sends the isolated worker on its standard input: everything it
// needs, so that it reads no file.
type WorkerInput struct {
	Request Request         `json:"request"`
	Config  settings.Config `json:"config"`
	KeepRaw bool            `json:"keep_raw"`
	// Build is the sending hookctl's buildinfo.ID(); the worker refuses another build's.
	Build string `json:"build"`
	// Seconds is how long the worker may take, the front's own deadline less a margin; the
	// research budget's time is cut to it.
	Seconds int `json:"seconds,omitempty"`
	// Secrets lets the worker's scrubber know the caller's secret environment values without
	// holding them: salted digests (scrub.Digests), for the arguments the distiller chooses.
	Secrets *SecretDigests `json:"secrets,omitempty"`
}

// SecretDigests are salted SHA-256 digests of secret values (and their encodings), each with
// the value's length and the kind to report ("value of $NPM_TOKEN").
type SecretDigests struct {
	Salt    []byte         `json:"salt"`
	Entries []SecretDigest `json:"entries"`
}

// SecretDigest is one value's digest.
type SecretDigest struct {
	Len  int    `json:"len"`
	Sum  []byte `json:"sum"`
	Kind string `json:"kind"`
}

// NetworkExecutable is hookctl's network executable, which runs every process of hookctl's that
// touches the network: the retrieval's worker, edit mode's egress proxy and hookctl run's
// credential broker. It is installed next to hookctl's (make install) and run from the
// directory of hookctl's own executable, never from PATH.
const NetworkExecutable = "hookctl-network"

// WorkerResult is what the worker prints on its standard output.
type WorkerResult struct {
	Answer    *Answer    `json:"answer,omitempty"`
	Documents []Document `json:"documents,omitempty"` // Text only with KeepRaw
	Isolation string     `json:"isolation"`
	// Flags mark instruction-like text the heuristics found in the raw content, whatever the
	// distiller said.
	Flags   []InjectionFlag `json:"flags,omitempty"`
	Refused string          `json:"refused,omitempty"` // a policy refusal: blocked address, binary content
	// Steps are the research loop's tool calls, in order (none without the loop).
	Steps []Step `json:"steps,omitempty"`
	Usage *Usage `json:"usage,omitempty"`
	Error string `json:"error,omitempty"`
	// Shown is the refusal or error as the agent may see it: a fetch's without what the server
	// sent (Refused and Error keep that, for the audit).
	Shown string `json:"shown,omitempty"`
}

// ForAgent is the failure text for the agent: Shown, or full when the worker set none (an older
// worker; a failure before it ran).
func (r *WorkerResult) ForAgent(full string) string {
	if r.Shown != "" {
		return r.Shown
	}
	return full
}

// InjectionFlag is one kind of instruction-like text found in a document.
type InjectionFlag struct {
	Rule  string `json:"rule"`
	What  string `json:"what"`
	Count int    `json:"count"`
	// Quote is the first match, clipped to a few dozen characters, for the audit only.
	Quote string `json:"quote,omitempty"`
	// Doc numbers the document (from 1) among the N of a retrieval; Where is its URL or source,
	// which a search result's author chose, so it is for the audit only.
	Doc   int    `json:"doc,omitempty"`
	N     int    `json:"n,omitempty"`
	Where string `json:"where,omitempty"`
}

// Brief is what the caller is shown: the rule, what it means, how often, and in which
// document by number. Every word of it is hookctl's own.
func (f *InjectionFlag) Brief() string {
	s := "heuristic: " + f.Rule + ": " + f.What
	if f.Count > 1 {
		s += fmt.Sprintf(" (%d times)", f.Count)
	}
	if f.N > 1 {
		s += fmt.Sprintf(" (in document %d of %d)", f.Doc, f.N)
	}
	return s
}

// Full is what the audit transcript keeps: the brief with the quote and the document's source.
func (f *InjectionFlag) Full() string {
	s := fmt.Sprintf("heuristic: %s: %s: %q", f.Rule, f.What, f.Quote)
	if f.Count > 1 {
		s += fmt.Sprintf(" (%d times)", f.Count)
	}
	if f.Where != "" {
		s += " (in " + f.Where + ")"
	}
	return s
}

// InRetrieverEnv is set to 1 in the environment of every program a distiller backend runs
// (claude -p, a command), so that a hookctl hook started by such a program knows it runs inside
// the retriever and must not retrieve again.
const InRetrieverEnv = "HOOKCTL_IN_RETRIEVER"

// ClaudeCLICredentialEnv are the variables claude -p authenticates with when it has no home
// directory: the long-lived token of `claude setup-token`, an API key, a gateway's bearer token.
var ClaudeCLICredentialEnv = []string{"CLAUDE_CODE_OAUTH_TOKEN", "ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"}

// EnvValue is the value of key in environ ("" if unset); the last entry wins, as in exec.
func EnvValue(environ []string, key string) string {
	v := ""
	for _, kv := range environ {
		if k, val, ok := strings.Cut(kv, "="); ok && k == key {
			v = val
		}
	}
	return v
}

// GitHubTokenEnv is the only environment variable a GitHub token is read from. GH_TOKEN and
// GITHUB_TOKEN are deliberately ignored: they usually belong to the user's gh and git and carry
// write scopes.
const GitHubTokenEnv = "HOOKCTL_GITHUB_TOKEN"
