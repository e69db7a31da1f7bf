package secrets

import (
	"slices"
	"strings"
	"sync"
)

// The environment: where a secret in it is handled (docs/decisions/0012-environment.md). A
// sandboxed command gets only the variables of an allowlist, never one whose name or value marks
// a secret; the judge refuses a word that reads a variable named like one; and /proc's
// environments are credential paths (Classify).

// PassedEnv are the caller's variables every sandboxed command gets, when they are set: where
// programs are, the user's name, the locale, the time zone and the terminal. None names or holds
// a credential (TestPassedEnvHoldsNoCredential). hookctl run's secure-read-only profile passes
// these; the read-only and policy-only launches also ToolchainEnv.
var PassedEnv = []string{"PATH", "USER", "LOGNAME", "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "LC_MESSAGES",
	"LC_COLLATE", "LC_NUMERIC", "LC_TIME", "LC_MONETARY", "TZ", "TERM", "COLORTERM", "NO_COLOR", "COLUMNS", "LINES"}

// ToolchainEnv are the variables that say where the user's shell, home and toolchains are, which
// read-only commands (a read-only runner's tests, go env, cargo metadata) need to find what they
// read. Each is a path, a version or a flag; a value that still looks like a secret (a proxy URL
// with a password) is dropped by the launcher.
var ToolchainEnv = []string{"HOME", "SHELL", "HOSTNAME", "XDG_CONFIG_HOME", "XDG_DATA_HOME",
	"XDG_STATE_HOME", "XDG_DATA_DIRS", "XDG_CONFIG_DIRS",
	"GOPATH", "GOROOT", "GOBIN", "GOFLAGS", "GOOS", "GOARCH", "GOTOOLCHAIN", "GOPROXY", "GOPRIVATE", "GONOPROXY", "GONOSUMDB",
	"GOEXPERIMENT", "CGO_ENABLED", "CARGO_HOME", "RUSTUP_HOME", "RUSTUP_TOOLCHAIN", "RUSTFLAGS", "JAVA_HOME", "MAVEN_HOME",
	"M2_HOME", "GRADLE_HOME", "GRADLE_USER_HOME", "NODE_PATH", "NODE_OPTIONS", "NVM_DIR", "NVM_BIN", "PNPM_HOME", "BUN_INSTALL",
	"DENO_DIR", "VIRTUAL_ENV", "CONDA_PREFIX", "CONDA_DEFAULT_ENV", "PYENV_ROOT", "PYENV_VERSION", "PYTHONPATH", "PYTHONHOME",
	"UV_CACHE_DIR", "POETRY_HOME", "RBENV_ROOT", "RBENV_VERSION", "GEM_HOME", "GEM_PATH", "BUNDLE_PATH", "DOTNET_ROOT",
	"ANDROID_HOME", "ANDROID_SDK_ROOT", "CC", "CXX", "CFLAGS", "CXXFLAGS", "LDFLAGS", "CPPFLAGS", "PKG_CONFIG_PATH",
	"LD_LIBRARY_PATH", "LIBRARY_PATH", "C_INCLUDE_PATH", "CPLUS_INCLUDE_PATH", "MANPATH", "INFOPATH", "TERMINFO",
	"TERMINFO_DIRS", "CLICOLOR", "FORCE_COLOR", "PWD", "OLDPWD", "SHLVL"}

// variableParts say a variable holds a secret wherever they stand in its name; variableWords
// say so as one of its _-separated words (GH_PAT, MYSQL_PWD, CI_JOB_JWT, SENTRY_DSN,
// DATABASE_URL, HTTPS_PROXY: a URL or a proxy often carries user:password@; SONAR_LOGIN, a
// token by SonarQube's own name; Jenkins' credentials binding's FOO_USR and FOO_PSW, and
// *_CREDS). PWD and OLDPWD alone are the shell's directories.
var (
	variableParts = []string{"TOKEN", "SECRET", "PASS", "KEY", "CREDENTIAL", "AUTH", "COOKIE", "SESSION", "PRIVATE", "SIGNATURE", "SALT",
		"CERT", "CREDS", "BEARER", "APIKEY", "MNEMONIC", "OAUTH"}
	variableWords = []string{"PAT", "PWD", "PW", "PSW", "JWT", "DSN", "URL", "URI", "PROXY", "CONN", "CONNECTION", "DATABASE", "DB",
		"WEBHOOK", "SAS", "OTP", "PIN", "LOGIN", "CRED", "USR", "HMAC", "SEED", "SIG"}
)

// Variable reports whether an environment variable's name says it holds a secret (GITHUB_TOKEN,
// AWS_SECRET_ACCESS_KEY, PGPASSWORD, MYSQL_PWD, DATABASE_URL, SONAR_LOGIN, JENKINS_CREDS,
// DEPLOY_PSW, …): its value must not enter the model's context, and the decision log withholds
// what is assigned to it. It errs toward yes (MONKEY, ANTHROPIC_BASE_URL): a variable it names
// can still be read by the user.
func Variable(name string) bool {
	upper := strings.ToUpper(name)
	if upper == "PWD" || upper == "OLDPWD" {
		return false
	}
	for _, p := range variableParts {
		if strings.Contains(upper, p) {
			return true
		}
	}
	// The words between underscores and digits, without allocating: the decision log asks
	// this of every variable of the hook's environment on every call.
	for start := 0; start < len(upper); {
		end := start
		for end < len(upper) && upper[end] != '_' && (upper[end] < '0' || upper[end] > '9') {
			end++
		}
		if end > start && slices.Contains(variableWords, upper[start:end]) {
			return true
		}
		start = end + 1
	}
	return false
}

// kindRule marks a variable that holds, or leads to, a credential.
type kindRule struct {
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

// kindRules, tried in order on the upper-cased name; the first that matches names the kind in
// a refusal. Each errs towards refusing: a variable that is refused by mistake can be renamed,
// a credential that leaks cannot be taken back. A function, not a variable: the hook process
// links this package and must not build the table at start-up.
func kindRules() []kindRule {
	return []kindRule{
		// Why: the names of issue 18 and the broader words of Variable (GITHUB_TOKEN,
		// PGPASSWORD, NPM_CONFIG__AUTH, SONAR_LOGIN, …). Test: TestVariableKinds.
		{suffix("_TOKEN", "_KEY", "_SECRET", "_PASSWORD", "_PAT"), "a secret (by its name)"},
		{Variable, "a secret (by its name)"},
		// Why: cloud SDKs read credentials, profiles and credential files from these. What: the
		// prefixes of AWS, Google Cloud, Azure and other clouds' SDKs.
		{prefix("AWS_", "AMAZON_", "GOOGLE_", "GCLOUD_", "GCP_", "CLOUDSDK_", "AZURE_", "ARM_", "DIGITALOCEAN_",
			"HCLOUD_", "LINODE_", "OCI_", "ALIBABA_CLOUD_", "ALICLOUD_", "IBMCLOUD_", "SCW_", "OS_"), "a cloud credential or profile"},
		// Why: a CI job's variables carry its tokens and the URLs that mint them
		// (ACTIONS_ID_TOKEN_REQUEST_URL); none belongs to an agent's run.
		{exact("CI", "CONTINUOUS_INTEGRATION", "BUILD_NUMBER", "TF_BUILD", "CIRCLECI", "GITLAB_CI", "JENKINS_URL"), "a CI job's variable"},
		{prefix("GITHUB_", "ACTIONS_", "RUNNER_", "GITLAB_", "CI_", "BUILDKITE", "CIRCLE_", "TRAVIS", "JENKINS_", "HUDSON_",
			"TEAMCITY_", "BITBUCKET_", "DRONE_", "APPVEYOR", "CODEBUILD_", "SYSTEM_", "BUILD_", "SEMAPHORE"), "a CI job's variable"},
		// Why: these lead to the user's keys without holding them: an agent socket signs as the
		// user, a helper prints a password, a ticket cache or config file authenticates.
		{prefix("SSH_", "GPG_", "GNUPG", "KRB5", "VAULT_", "DOCKER_", "KUBE"), "a channel to the user's keys or agents"},
		{exact("GIT_ASKPASS", "SUDO_ASKPASS", "DBUS_SESSION_BUS_ADDRESS", "NETRC", "PGPASSFILE", "PGSERVICEFILE", "GIT_SSH",
			"GIT_SSH_COMMAND", "GH_HOST", "GH_CONFIG_DIR", "NPM_CONFIG_USERCONFIG", "CLOUDSDK_CONFIG", "XAUTHORITY"), "a channel to the user's keys or agents"},
	}
}

var kinds struct {
	once  sync.Once
	rules []kindRule
}

// VariableKind says what a variable's name marks it as (a secret, a cloud credential, a CI job's
// variable, a channel to the user's keys), or "" if nothing.
func VariableKind(name string) string {
	up := strings.ToUpper(name)
	kinds.once.Do(func() { kinds.rules = kindRules() })
	for _, r := range kinds.rules {
		if r.match(up) {
			return r.what
		}
	}
	return ""
}
