package secrets

// store is a credential store: a run of path elements ("*" stands for any one element) and what
// it holds. dir: everything beneath counts too. home: a name that projects use for their own,
// secret-free configuration too (.npmrc, .pypirc): the store is the one right under the user's
// home; elsewhere its content decides (ContentCredential). source: where the location is
// documented, or the client's code that names it.
type store struct {
	elems  []string
	what   string
	dir    bool
	home   bool
	source string
}

// stores are the credential stores, home-relative unless they start with "/" (system files).
// Browser profiles and the cloud SDKs' directories hold tokens and cookies in many files, so
// they are whole directories. Every client hookctl supports has its own credential file here
// (issue 23): a client's token read into its own context is the easiest one to send on.
var stores = []store{
	// Clouds and their CLIs.
	{[]string{".aws", "credentials"}, "AWS credentials", false, false, "https://docs.aws.amazon.com/cli/latest/userguide/cli-configure-files.html"},
	{[]string{".aws", "sso", "cache"}, "AWS SSO tokens", true, false, "https://docs.aws.amazon.com/cli/latest/userguide/sso-configure-profile-token.html"},
	{[]string{".aws", "cli", "cache"}, "AWS CLI tokens", true, false, "https://docs.aws.amazon.com/cli/latest/userguide/cli-configure-role.html"},
	{[]string{".config", "gcloud"}, "Google Cloud credentials", true, false, "https://cloud.google.com/docs/authentication/application-default-credentials"},
	{[]string{".azure"}, "Azure credentials", true, false, "https://learn.microsoft.com/en-us/cli/azure/azure-cli-configuration"},
	{[]string{".kube", "config"}, "Kubernetes credentials", false, false, "https://kubernetes.io/docs/concepts/configuration/organize-cluster-access-kubeconfig/"},
	{[]string{".docker", "config.json"}, "Docker registry credentials", false, false, "https://docs.docker.com/reference/cli/docker/login/"},
	{[]string{".dockercfg"}, "Docker registry credentials", false, false, "https://man.archlinux.org/man/containers-auth.json.5"},
	{[]string{".config", "containers", "auth.json"}, "container registry credentials", false, false, "https://man.archlinux.org/man/containers-auth.json.5"},
	{[]string{"/", "run", "user", "*", "containers", "auth.json"}, "container registry credentials", false, false, "https://man.archlinux.org/man/containers-auth.json.5"},
	{[]string{".vault-token"}, "Vault token", false, false, "https://developer.hashicorp.com/vault/docs/commands/token-helper"},
	{[]string{".terraform.d", "credentials.tfrc.json"}, "Terraform Cloud token", false, false, "https://developer.hashicorp.com/terraform/cli/config/config-file#credentials-1"},
	// git and forges.
	{[]string{".config", "gh", "hosts.yml"}, "GitHub CLI tokens", false, false, "https://cli.github.com/manual/gh_auth_login"},
	{[]string{".config", "hub"}, "hub's GitHub token", false, false, "https://hub.github.com/hub.1.html"},
	{[]string{".git-credentials"}, "git credentials", false, false, "https://git-scm.com/docs/git-credential-store"},
	{[]string{".config", "git", "credentials"}, "git credentials", false, false, "https://git-scm.com/docs/git-credential-store"},
	{[]string{".netrc"}, "netrc passwords", false, false, "https://www.gnu.org/software/inetutils/manual/html_node/The-_002enetrc-file.html"},
	{[]string{"_netrc"}, "netrc passwords", false, false, "https://everything.curl.dev/usingcurl/netrc.html"},
	// The coding agents' own: every client hookctl supports.
	{[]string{".claude", ".credentials.json"}, "Claude Code's credentials", false, false, "Claude Code 2.1.328 (@anthropic-ai/claude-code-linux-x64, its binary: `.credentials.json` in ~/.claude or $CLAUDE_CONFIG_DIR)"},
	{[]string{".claude", ".device-keys.json"}, "Claude Code's device keys", false, false, "Claude Code 2.1.328 (its binary: `.device-keys.json` beside `.credentials.json` in ~/.claude)"},
	{[]string{".codex", "auth.json"}, "Codex's credentials", false, false, "Codex 0.169.0 (@openai/codex-linux-x64, vendor/…/bin/codex: `auth.json` in $CODEX_HOME, ~/.codex)"},
	{[]string{".gemini", "oauth_creds.json"}, "Gemini CLI's credentials", false, false, "Gemini CLI 0.61.0 (bundle/sandbox-macos-permissive-open.sb, its own list of files to keep from commands)"},
	{[]string{".gemini", "gemini-credentials.json"}, "Gemini CLI's credentials", false, false, "Gemini CLI 0.61.0 (bundle/sandbox-macos-permissive-open.sb)"},
	{[]string{".gemini", "mcp-oauth-tokens.json"}, "Gemini CLI's MCP tokens", false, false, "Gemini CLI 0.61.0 (bundle/sandbox-macos-permissive-open.sb)"},
	{[]string{".gemini", "a2a-oauth-tokens.json"}, "Gemini CLI's agent tokens", false, false, "Gemini CLI 0.61.0 (bundle/sandbox-macos-permissive-open.sb)"},
	{[]string{".qwen", "oauth_creds.json"}, "Qwen Code's credentials", false, false, "Qwen Code 0.24.4 (sandboxFileWorker.js: QWEN_DIR .qwen, OAUTH_FILE oauth_creds.json)"},
	{[]string{".qwen", "mcp-oauth-tokens.json"}, "Qwen Code's MCP tokens", false, false, "Qwen Code 0.24.4 (sandboxFileWorker.js: getMcpOAuthTokensPath)"},
	{[]string{".copilot", "config.json"}, "Copilot CLI's token", false, false, "https://docs.github.com/en/copilot/how-tos/copilot-cli/set-up-copilot-cli/authenticate-copilot-cli (without a keychain, ~/.copilot/config.json)"},
	{[]string{".config", "github-copilot"}, "Copilot's editor tokens", true, false, "reported: https://github.com/CopilotC-Nvim/CopilotChat.nvim/issues/326 (apps.json, hosts.json)"},
	{[]string{".config", "cursor", "auth.json"}, "Cursor's credentials", false, false, "reported: https://github.com/akitaonrails/ai-usagebar/pull/70 (cursor-agent writes ~/.config/cursor/auth.json)"},
	{[]string{".cursor", "cli-config.json"}, "Cursor CLI's credentials", false, false, "reported: https://github.com/Dicklesworthstone/coding_agent_account_manager/issues/18 (authInfo in ~/.cursor/cli-config.json)"},
	// Package registries.
	{[]string{".npmrc"}, "npm tokens", false, true, "https://docs.npmjs.com/cli/v10/configuring-npm/npmrc#auth-related-configuration"},
	{[]string{".yarnrc.yml"}, "Yarn tokens", false, true, "https://yarnpkg.com/configuration/yarnrc#npmAuthToken"},
	{[]string{".pypirc"}, "PyPI tokens", false, true, "https://packaging.python.org/en/latest/specifications/pypirc/"},
	{[]string{".cargo", "credentials"}, "crates.io token", false, false, "https://doc.rust-lang.org/cargo/reference/config.html#credentials"},
	{[]string{".cargo", "credentials.toml"}, "crates.io token", false, false, "https://doc.rust-lang.org/cargo/reference/config.html#credentials"},
	{[]string{".gem", "credentials"}, "RubyGems API key", false, false, "https://guides.rubygems.org/rubygems-org-api/#api-authorization"},
	{[]string{".m2", "settings.xml"}, "Maven repository passwords", false, true, "https://maven.apache.org/settings.html#servers"},
	{[]string{".gradle", "gradle.properties"}, "Gradle repository credentials", false, true, "https://docs.gradle.org/current/userguide/build_environment.html#sec:gradle_configuration_properties"},
	{[]string{".cache", "huggingface", "token"}, "Hugging Face token", false, false, "https://huggingface.co/docs/huggingface_hub/package_reference/environment_variables#hftokenpath"},
	{[]string{".huggingface", "token"}, "Hugging Face token", false, false, "https://github.com/huggingface/huggingface_hub/blob/v0.11.0/src/huggingface_hub/utils/_hf_folder.py"},
	// Databases.
	{[]string{".pgpass"}, "PostgreSQL passwords", false, false, "https://www.postgresql.org/docs/current/libpq-pgpass.html"},
	{[]string{".my.cnf"}, "MySQL passwords", false, true, "https://dev.mysql.com/doc/refman/8.0/en/option-files.html"},
	{[]string{".mylogin.cnf"}, "MySQL login paths", false, false, "https://dev.mysql.com/doc/refman/8.0/en/mysql-config-editor.html"},
	// Keys and password stores.
	{[]string{".gnupg"}, "GnuPG keys", true, false, "https://www.gnupg.org/documentation/manuals/gnupg/GPG-Configuration.html"},
	{[]string{".password-store"}, "pass passwords", true, false, "https://www.passwordstore.org/"},
	{[]string{".local", "share", "keyrings"}, "GNOME keyrings", true, false, "https://wiki.gnome.org/Projects/GnomeKeyring"},
	// Shell and REPL histories: what was typed, passwords and tokens on command lines among it.
	{[]string{".bash_history"}, "a shell history", false, false, "https://www.gnu.org/software/bash/manual/html_node/Bash-Variables.html#index-HISTFILE"},
	{[]string{".zsh_history"}, "a shell history", false, false, "https://zsh.sourceforge.io/Doc/Release/Parameters.html#index-HISTFILE"},
	{[]string{".histfile"}, "a shell history", false, false, "https://zsh.sourceforge.io/Doc/Release/User-Contributions.html#index-zsh_002dnewuser_002dinstall"},
	{[]string{".local", "share", "fish", "fish_history"}, "a shell history", false, false, "https://fishshell.com/docs/current/cmds/history.html"},
	{[]string{".python_history"}, "a REPL history", false, false, "https://docs.python.org/3/library/site.html#rlcompleter-config"},
	{[]string{".node_repl_history"}, "a REPL history", false, false, "https://nodejs.org/api/repl.html#persistent-history"},
	{[]string{".psql_history"}, "a psql history", false, false, "https://www.postgresql.org/docs/current/app-psql.html"},
	{[]string{".mysql_history"}, "a mysql history", false, false, "https://dev.mysql.com/doc/refman/8.0/en/mysql-logging.html"},
	{[]string{".sqlite_history"}, "an sqlite history", false, false, "https://sqlite.org/cli.html"},
	{[]string{".rediscli_history"}, "a redis-cli history", false, false, "https://redis.io/docs/latest/develop/tools/cli/"},
	// Browsers.
	{[]string{".mozilla", "firefox"}, "a Firefox profile", true, false, "https://support.mozilla.org/en-US/kb/profiles-where-firefox-stores-user-data"},
	{[]string{".config", "google-chrome"}, "a Chrome profile", true, false, "https://chromium.googlesource.com/chromium/src/+/HEAD/docs/user_data_dir.md"},
	{[]string{".config", "chromium"}, "a Chromium profile", true, false, "https://chromium.googlesource.com/chromium/src/+/HEAD/docs/user_data_dir.md"},
	{[]string{".config", "BraveSoftware"}, "a Brave profile", true, false, "https://chromium.googlesource.com/chromium/src/+/HEAD/docs/user_data_dir.md"},
	{[]string{".config", "microsoft-edge"}, "an Edge profile", true, false, "https://chromium.googlesource.com/chromium/src/+/HEAD/docs/user_data_dir.md"},
	{[]string{"Library", "Application Support", "Google", "Chrome"}, "a Chrome profile", true, false, "https://chromium.googlesource.com/chromium/src/+/HEAD/docs/user_data_dir.md"},
	{[]string{"Library", "Application Support", "Firefox"}, "a Firefox profile", true, false, "https://support.mozilla.org/en-US/kb/profiles-where-firefox-stores-user-data"},
	{[]string{"Library", "Keychains"}, "macOS keychains", true, false, "https://support.apple.com/guide/keychain-access/kyca1083/mac"},
	{[]string{"Library", "Cookies"}, "macOS cookies", true, false, "https://developer.apple.com/documentation/foundation/httpcookiestorage"},
	// The system's.
	{[]string{"/", "etc", "shadow"}, "the system's password hashes", false, false, "https://man7.org/linux/man-pages/man5/shadow.5.html"},
	{[]string{"/", "etc", "shadow-"}, "the system's password hashes", false, false, "https://man7.org/linux/man-pages/man5/shadow.5.html"},
	{[]string{"/", "etc", "gshadow"}, "the system's group password hashes", false, false, "https://man7.org/linux/man-pages/man5/gshadow.5.html"},
	{[]string{"/", "etc", "gshadow-"}, "the system's group password hashes", false, false, "https://man7.org/linux/man-pages/man5/gshadow.5.html"},
}

// sshSource documents ~/.ssh's private keys (every file there but the public names, sshPublic)
// and the host keys in /etc/ssh.
const sshSource = "https://man.openbsd.org/ssh#FILES, https://man.openbsd.org/sshd#FILES"
