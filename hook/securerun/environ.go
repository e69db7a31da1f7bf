package securerun

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hookctl/hookctl/internal/secrets"
)

// passedEnv are the caller's variables the command gets, when they are set: where programs
// are (PATH, filtered to the readable roots), the user's name, the locale, the time zone and
// the terminal. None names or holds a credential (TestPassedEnvHoldsNoCredential).
var passedEnv = []string{"PATH", "USER", "LOGNAME", "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "LC_MESSAGES",
	"LC_COLLATE", "LC_NUMERIC", "LC_TIME", "LC_MONETARY", "TZ", "TERM", "COLORTERM", "NO_COLOR", "COLUMNS", "LINES"}

// setEnv are the variables the profile sets itself: the home, the temporary directory and the
// XDG directories inside the run's output directory (the agent's own config and session
// state go there, fresh), and OutEnv naming where its artifacts go.
func setEnv(l Layout) []string {
	h := l.Home()
	return []string{"HOME=" + h, "TMPDIR=" + l.Tmp(), "XDG_CONFIG_HOME=" + filepath.Join(h, ".config"),
		"XDG_CACHE_HOME=" + filepath.Join(h, ".cache"), "XDG_DATA_HOME=" + filepath.Join(h, ".local", "share"),
		"XDG_STATE_HOME=" + filepath.Join(h, ".local", "state"), OutEnv + "=" + l.Artifacts()}
}

// credentialRule marks a variable that holds, or leads to, a credential: one the command must
// never get under --credentials none.
type credentialRule struct {
	match func(name string) bool
	what  string
}

func suffix(s ...string) func(string) bool {
	return func(n string) bool {
		return slices.ContainsFunc(s, func(x string) bool { return strings.HasSuffix(n, x) })
	}
}

func prefix(s ...string) func(string) bool {
	return func(n string) bool {
		return slices.ContainsFunc(s, func(x string) bool { return strings.HasPrefix(n, x) })
	}
}

func exact(s ...string) func(string) bool {
	return func(n string) bool { return slices.Contains(s, n) }
}

// credentialRules, tried in order on the upper-cased name; the first that matches names the
// kind in a refusal. Each errs towards refusing: a variable that is refused by mistake can be
// renamed, a credential that leaks cannot be taken back.
//
// Built on first use: the hook process links this package and must not pay for it at start-up.
var credentialRules = lazy[[]credentialRule]{build: func() []credentialRule {
	return []credentialRule{
		// Why: the names the issue lists, and the broader words of secrets.Variable
		// (GITHUB_TOKEN, PGPASSWORD, NPM_CONFIG__AUTH, …). What: a name ending in _TOKEN, _KEY,
		// _SECRET, _PASSWORD or _PAT, or containing TOKEN, SECRET, PASSWORD, PASSWD, KEY,
		// CREDENTIAL, AUTH, COOKIE, SESSION or PRIVATE. Test: TestCredentialVariables.
		{suffix("_TOKEN", "_KEY", "_SECRET", "_PASSWORD", "_PAT"), "a secret (by its name)"},
		{secrets.Variable, "a secret (by its name)"},
		// Why: cloud SDKs read credentials, profiles and credential files from these. What: the
		// prefixes of AWS, Google Cloud, Azure and other clouds' SDKs. Test: TestCredentialVariables.
		{prefix("AWS_", "AMAZON_", "GOOGLE_", "GCLOUD_", "GCP_", "CLOUDSDK_", "AZURE_", "ARM_", "DIGITALOCEAN_",
			"HCLOUD_", "LINODE_", "OCI_", "ALIBABA_CLOUD_", "ALICLOUD_", "IBMCLOUD_", "SCW_", "OS_"), "a cloud credential or profile"},
		// Why: a CI job's variables carry its tokens and the URLs that mint them
		// (ACTIONS_ID_TOKEN_REQUEST_URL); none belongs to an agent's run. What: CI and the
		// prefixes of the common CI systems. Test: TestCredentialVariables.
		{exact("CI", "CONTINUOUS_INTEGRATION", "BUILD_NUMBER", "TF_BUILD", "CIRCLECI", "GITLAB_CI", "JENKINS_URL"), "a CI job's variable"},
		{prefix("GITHUB_", "ACTIONS_", "RUNNER_", "GITLAB_", "CI_", "BUILDKITE", "CIRCLE_", "TRAVIS", "JENKINS_", "HUDSON_",
			"TEAMCITY_", "BITBUCKET_", "DRONE_", "APPVEYOR", "CODEBUILD_", "SYSTEM_", "BUILD_", "SEMAPHORE"), "a CI job's variable"},
		// Why: these lead to the user's keys without holding them: an agent socket signs as the
		// user, a helper prints a password, a ticket cache or config file authenticates. What: ssh's
		// and gpg's agents and helpers, Kerberos, D-Bus (the keyring), and the files and daemons of
		// container, Kubernetes, Vault and netrc clients. Test: TestCredentialVariables.
		{prefix("SSH_", "GPG_", "GNUPG", "KRB5", "VAULT_", "DOCKER_", "KUBE"), "a channel to the user's keys or agents"},
		{exact("GIT_ASKPASS", "SUDO_ASKPASS", "DBUS_SESSION_BUS_ADDRESS", "NETRC", "PGPASSFILE", "PGSERVICEFILE", "GIT_SSH",
			"GIT_SSH_COMMAND", "GH_HOST", "GH_CONFIG_DIR", "NPM_CONFIG_USERCONFIG", "CLOUDSDK_CONFIG", "XAUTHORITY"), "a channel to the user's keys or agents"},
	}
}}

// CredentialKind says what a variable's name marks it as, or "" if nothing.
func CredentialKind(name string) string {
	up := strings.ToUpper(name)
	for _, r := range credentialRules.get() {
		if r.match(up) {
			return r.what
		}
	}
	return ""
}

// Environment is the command's environment as the preflight decided it: names only, never a
// value but the ones the profile sets.
type Environment struct {
	// Passed are the caller's variables of the allowlist that were set, Forwarded those the user
	// named with --env, Set those the profile sets (with their values: paths in the run).
	Passed    []string `json:"passed"`
	Forwarded []string `json:"forwarded"`
	Set       []string `json:"set"`
	// Withheld are the caller's variables that mark a credential, which the command does not
	// get; Dropped counts the others not on the allowlist.
	Withheld []string `json:"withheld"`
	Dropped  int      `json:"dropped"`
	// PATH is the command's search path: the caller's entries that lie within the readable
	// roots.
	PATH string `json:"path"`
}

// BuildEnv rebuilds the command's environment from caller (os.Environ form): passedEnv, then
// forward (--env NAME takes the caller's value, --env NAME=VALUE its own), then setEnv on top.
// PATH keeps only the entries within readable. A forwarded variable that marks a credential,
// or that the profile sets, is a failure naming it (never its value); so is one the caller has
// not set.
func BuildEnv(caller, forward []string, l Layout, readable []string) ([]string, Environment, []string) {
	var env []string
	var e Environment
	var failures []string
	values := map[string]string{}
	for _, kv := range caller {
		if name, value, ok := strings.Cut(kv, "="); ok && name != "" {
			values[name] = value
		}
	}
	set := setEnv(l)
	setName := func(name string) bool {
		return slices.ContainsFunc(set, func(kv string) bool { return strings.HasPrefix(kv, name+"=") })
	}
	for _, name := range passedEnv {
		v, ok := values[name]
		if !ok {
			continue
		}
		if name == "PATH" {
			v = searchPath(v, readable)
			e.PATH = v
		}
		env = append(env, name+"="+v)
		e.Passed = append(e.Passed, name)
	}
	if e.PATH == "" {
		e.PATH = searchPath("", readable)
		env = append(env, "PATH="+e.PATH)
	}
	for _, f := range forward {
		name, value, hasValue := strings.Cut(f, "=")
		if !hasValue {
			var ok bool
			if value, ok = values[name]; !ok {
				failures = append(failures, fmt.Sprintf("--env %s: it is not set in your environment", name))
				continue
			}
		}
		switch kind := CredentialKind(name); {
		case name == "" || strings.ContainsAny(name, "\x00"):
			failures = append(failures, "--env: an empty variable name")
		case kind != "":
			failures = append(failures, fmt.Sprintf("--env %s: %s; --credentials none forwards no credential to the command (its value was not read into the run)", name, kind))
		case setName(name) || slices.Contains(passedEnv, name):
			failures = append(failures, fmt.Sprintf("--env %s: the profile sets it itself", name))
		default:
			env = append(env, name+"="+value)
			e.Forwarded = append(e.Forwarded, name)
		}
	}
	for _, kv := range set {
		env = append(env, kv)
		e.Set = append(e.Set, kv)
	}
	for name := range values {
		switch {
		case slices.Contains(e.Passed, name) || slices.Contains(e.Forwarded, name):
		case CredentialKind(name) != "":
			e.Withheld = append(e.Withheld, name)
		default:
			e.Dropped++
		}
	}
	slices.Sort(e.Withheld)
	return env, e, failures
}

// systemPath is the search path when the caller's has no entry the command can read.
const systemPath = "/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin"

// searchPath keeps the absolute entries of path that lie within readable, in order, without
// repeats: an entry the sandbox cannot read only slows every lookup (and names a directory the
// user did not mean to open).
func searchPath(path string, readable []string) string {
	var keep []string
	for _, d := range filepath.SplitList(path) {
		d = filepath.Clean(d)
		if filepath.IsAbs(d) && !slices.Contains(keep, d) && slices.ContainsFunc(readable, func(r string) bool { return within(d, r) }) {
			keep = append(keep, d)
		}
	}
	if len(keep) == 0 {
		return systemPath
	}
	return strings.Join(keep, string(filepath.ListSeparator))
}

// within says whether path is dir or beneath it (both clean and absolute).
func within(path, dir string) bool {
	return path == dir || dir == "/" || strings.HasPrefix(path, dir+"/")
}
