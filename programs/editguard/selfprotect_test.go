package editguard

import "testing"

// Issue 7: what a parser can close of "hookctl turned off in edit mode". Rows marked "base"
// were allowed on the base commit (c3c535a); the others were refused already and stay as
// regression rows. The wrapper rows are TestWrappers and TestMultiplexers.

// TestSelfProtection: hookctl named by a substitution, under the user's name for it, or
// copied where no rule knows it by name.
func TestSelfProtection(t *testing.T) {
	check(t,
		// Substitutions that name the program.
		deny("$(which hookctl) uninstall", "only the user"),             // base
		deny("`which hookctl` readonly off", "only the user"),           // base
		deny("\"$(command -v hookctl)\" uninstall", "only the user"),    // base
		deny("$(type -P hookctl) readonly off", "only the user"),        // base
		deny("$(type -p hookctl) uninstall", "only the user"),           // base
		deny("$(which hookctl 2>/dev/null) uninstall", "only the user"), // base
		deny("h=$(which hookctl); $h uninstall", "only the user"),       // base
		deny("$(echo hookctl) uninstall", "only the user"),              // base
		deny("\"$(echo hookctl)\" readonly off", "only the user"),       // base
		deny("$(printf %s hookctl) uninstall", "only the user"),         // base
		deny("$(echo hookctl uninstall)", "only the user"),              // base: split into two words
		deny("bash -c '$(which hookctl) uninstall'", "only the user"),   // base
		// The user's binary, whatever its name.
		deny("/home/user/.local/bin/hookctl readonly off", "only the user"),
		// Copies, links and installs of the binary.
		deny("cp \"$(which hookctl)\" /tmp/x", "hookctl's own binary"),                // base
		deny("cp ~/.local/bin/hookctl /tmp/x", "hookctl's own binary"),                // base
		deny("cp bin/hookctl /tmp/x", "hookctl's own binary"),                         // base: a freshly built one too
		deny("ln -s ~/.local/bin/hookctl /tmp/h", "hookctl's own binary"),             // base
		deny("ln ~/.local/bin/hookctl /tmp/h", "hookctl's own binary"),                // base
		deny("install -m755 ~/.local/bin/hookctl /tmp/h", "hookctl's own binary"),     // base
		deny("install -m 755 bin/hookctl /tmp/h", "hookctl's own binary"),             // base
		deny("cat ~/.local/bin/hookctl > /tmp/x", "hookctl's own binary"),             // base
		deny("cat \"$(which hookctl)\" > /tmp/x", "hookctl's own binary"),             // base
		deny("dd if=/home/user/.local/bin/hookctl of=/tmp/x", "hookctl's own binary"), // base
		deny("rsync -a ~/.local/bin/hookctl /tmp/x", "hookctl's own binary"),          // base
		deny("base64 ~/.local/bin/hookctl > /tmp/b", "hookctl's own binary"),          // base
		deny("tar czf /tmp/h.tgz -C ~/.local/bin hookctl", "hookctl's own binary"),    // base
		deny("x=$(command -v hookctl); cp \"$x\" /tmp/y", "hookctl's own binary"),     // base
		deny("install -m 755 hookctl ~/.local/bin/hookctl", "is protected"),           // the write is named first
		// hookctl's uninstall.sh, which removes its hooks without the binary (issue 11).
		deny("sh ~/.config/hookctl/uninstall.sh", "hookctl's uninstaller"),
		deny("bash /home/user/.config/hookctl/uninstall.sh --dry-run", "hookctl's uninstaller"),
		deny(". $HOME/.config/hookctl/uninstall.sh", "hookctl's uninstaller"),
		deny("source ~/.config/hookctl/uninstall.sh", "hookctl's uninstaller"),
		deny("/home/user/.config/hookctl/uninstall.sh", "hookctl's uninstaller"),
		deny("cd ~/.config/hookctl && sh uninstall.sh", "hookctl's uninstaller"),
		deny("env -i sh ~/.config/hookctl/uninstall.sh", "hookctl's uninstaller"),
		deny("nohup sh ~/.config/hookctl/uninstall.sh &", "hookctl's uninstaller"),
		deny("sh -c 'sh ~/.config/hookctl/uninstall.sh'", "hookctl's uninstaller"),
		deny("cp ~/.config/hookctl/uninstall.sh /tmp/u.sh", "hookctl's uninstaller"),
		deny("cat ~/.config/hookctl/uninstall.sh | sh", "hookctl's uninstaller"),
		deny("python3 -c \"import os; os.system('sh ~/.config/hookctl/uninstall.sh')\"", "is protected"),
	)
	check(t,
		allow("hookctl check 'rm -rf /'"),
		allow("$(which go) version"),
		allow("\"$(command -v node)\" app.js"),
		allow("$(echo ls) -la"),
		allow("cp cmd/hookctl/main.go /tmp/main.go"),
		allow("ls -l ~/.local/bin/hookctl"),
		allow("sh ./uninstall.sh"), // a project's own script of that name
		allow("sh scripts/uninstall.sh"),
		allow("file \"$(which hookctl)\""),
		allow("sha256sum ~/.local/bin/hookctl"),
		allow("go build -o bin/hookctl ./cmd/hookctl"),
		allow("cp -r ~/.config/hookctl /tmp/hookctl-config-backup"), // its configuration, not its binary
	)
}

// TestSelfProtectionBinaryName: a user who installed hookctl under another name is protected
// by that name too (Context.Binary).
func TestSelfProtectionBinaryName(t *testing.T) {
	ctx := testContext()
	ctx.Binary = "/opt/tools/hk"
	for _, cmd := range []string{"hk uninstall", "/opt/tools/hk readonly off", "cp /opt/tools/hk /tmp/x",
		"$(which hk) uninstall", "python3 -c \"import os; os.system('hk uninstall')\""} {
		if r := judgeText(cmd, ctx); r == nil {
			t.Errorf("%q with hookctl installed as %s: ALLOWED", cmd, ctx.Binary)
		}
	}
	if r := judgeText("hk check ls", ctx); r != nil {
		t.Errorf("hk check ls: refused (%s)", r.Error())
	}
}

// TestInterpreterCode: code an interpreter is given on the command line is judged.
func TestInterpreterCode(t *testing.T) {
	check(t,
		deny("python3 -c \"import subprocess; subprocess.run(['hookctl','readonly','off'])\"", "`hookctl readonly`"),      // base
		deny("python3 -c 'import os; os.system(\"/home/user/.local/bin/hookctl uninstall\")'", "`hookctl uninstall`"),     // base
		deny("perl -e 'system(\"hookctl uninstall\")'", "`hookctl uninstall`"),                                            // base
		deny("perl -MEnglish -e 'system(\"hookctl uninstall\")'", "`hookctl uninstall`"),                                  // base
		deny("node -e 'require(\"child_process\").execSync(\"hookctl uninstall\")'", "`hookctl uninstall`"),               // base
		deny("node --eval='require(\"child_process\").execSync(\"hookctl readonly off\")'", "`hookctl readonly`"),         // base
		deny("ruby -e 'system(\"hookctl uninstall\")'", "`hookctl uninstall`"),                                            // base
		deny("php -r 'system(\"hookctl uninstall\");'", "`hookctl uninstall`"),                                            // base
		deny("awk 'BEGIN{system(\"hookctl uninstall\")}'", "`hookctl uninstall`"),                                         // base
		deny("awk 'BEGIN{system(\"hookctl readonly off\")}' /dev/null", "`hookctl readonly`"),                             // base
		deny("gawk -e 'BEGIN{system(\"hookctl uninstall\")}'", "`hookctl uninstall`"),                                     // base
		deny("expect -c 'spawn hookctl uninstall; expect eof'", "`hookctl uninstall`"),                                    // base
		deny("lua -e 'os.execute(\"hookctl uninstall\")'", "`hookctl uninstall`"),                                         // base
		deny("python3 -c 'import subprocess, sys; subprocess.run([\"hookctl\"] + sys.argv[1:])' x", "`hookctl sys.argv`"), // base
		// Code on standard input: here-documents, here-strings, an echo piped in.
		deny("python3 - <<'EOF'\nimport os\nos.system('hookctl uninstall')\nEOF", "`hookctl uninstall`"),    // base
		deny("python3 <<EOF\nimport os\nos.system('hookctl readonly off')\nEOF", "`hookctl readonly`"),      // base
		deny("python3 <<< 'import os; os.system(\"hookctl uninstall\")'", "`hookctl uninstall`"),            // base
		deny("echo 'import os; os.system(\"hookctl uninstall\")' | python3", "`hookctl uninstall`"),         // base
		deny("printf 'import os\\nos.system(\"hookctl uninstall\")\\n' | python3 -", "`hookctl uninstall`"), // base
		deny("cat <<'EOF' | perl\nsystem('hookctl uninstall');\nEOF", "`hookctl uninstall`"),                // base
		deny("bash <<< 'hookctl uninstall'", "only the user"),                                               // base
		deny("bash <<'EOF'\ncd /tmp\nhookctl readonly off\nEOF", "only the user"),                           // base
		deny("echo 'hookctl uninstall' | sh", "only the user"),                                              // base
		deny("echo 'rm -rf ~' | bash -s", "holds the project"),                                              // base
		deny("make -f - <<< 'all:; hookctl uninstall'", "only the user"),                                    // base
		deny("make -f /dev/stdin <<'EOF'\nall:\n\thookctl readonly off\nEOF", "only the user"),              // base
		deny("printf 'all:\\n\\thookctl uninstall\\n' | make -f -", "only the user"),                        // base
		deny("make --eval='x:; hookctl uninstall' x", "only the user"),                                      // base
		// Claude Code without the user's settings; protected files written from code.
		deny("python3 -c 'import os; os.system(\"claude --dangerously-skip-permissions -p x\")'", "without the user's settings"), // base
		deny("node -e 'spawn(\"claude\", [\"--permission-mode\", \"bypassPermissions\"])'", "without the user's settings"),       // base
		deny("python3 -c 'open(\"/home/user/.claude/settings.json\",\"w\").write(\"{}\")'", "is protected"),                      // base
		deny("python3 -c \"import os; open(os.path.expanduser('~/.claude/settings.json'),'w')\"", "is protected"),                // base
		deny("node -e 'require(\"fs\").writeFileSync(\".claude/settings.json\",\"{}\")'", "is protected"),                        // base
		deny("perl -e 'unlink \"$ENV{HOME}/.config/hookctl/state.json\"'", "is protected"),                                       // base
		deny("ruby -e 'File.write(\"#{ENV[\"HOME\"]}/.bashrc\", \"x\")'", "is protected"),                                        // base
		deny("python3 - <<'EOF'\nopen('.claude/settings.local.json', 'w')\nEOF", "is protected"),                                 // base
	)
	check(t,
		allow("python3 -c 'print(1)'"),
		allow("python3 - <<< 'print(1)'"),
		allow("echo 'print(1)' | python3"),
		allow("python3 -c 'import os; os.system(\"hookctl check ls\")'"),
		allow("python3 -m json.tool < data.json"),
		allow("perl -ne 'print if /x/' log.txt"),
		allow("awk '{print $1}' access.log"),
		allow("awk -F: '{print $1}' /etc/passwd"),
		allow("node -e 'console.log(process.version)'"),
		allow("bash <<'EOF'\ngo test ./...\nEOF"),
		allow("echo 'go vet ./...' | sh"),
		allow("make -f - <<< 'all:; go test ./...'"),
		allow("python3 -c 'open(\".vscode/settings.json\").read()'"),
		allow("python3 -c 'print(\"settings.json\")'"),
	)
}

// TestEnvironment: hookctl's variables, and the homes that move hookctl and Claude Code.
func TestEnvironment(t *testing.T) {
	check(t,
		deny("HOOKCTL_HOME=/tmp/h hookctl retrieve fetch https://x", "hookctl's variables"), // base
		deny("HOOKCTL_IN_RETRIEVER=1 claude -p x", "hookctl's variables"),                   // base
		deny("HOOKCTL_HOME=/tmp/h", "hookctl's variables"),                                  // base
		deny("export HOOKCTL_HOME=/tmp/h", "hookctl's variables"),                           // base
		deny("export \"HOOKCTL_HOME=/tmp/h\"", "hookctl's variables"),                       // base
		deny("export HOOKCTL_HOME", "hookctl's variables"),                                  // base
		deny("declare -x HOOKCTL_HOME=/tmp/h", "hookctl's variables"),                       // base
		deny("typeset HOOKCTL_HOME=/tmp/h", "hookctl's variables"),                          // base
		deny("readonly HOOKCTL_HOME=/tmp/h", "hookctl's variables"),                         // base
		deny("f(){ local HOOKCTL_HOME=/tmp; }", "hookctl's variables"),                      // base
		deny("declare -n r=HOOKCTL_HOME; r=/tmp/h", "hookctl's variables"),                  // base
		deny("unset HOOKCTL_HOME", "hookctl's variables"),                                   // base
		deny("unset -v HOOKCTL_HOME", "hookctl's variables"),                                // base
		deny("read HOOKCTL_HOME", "hookctl's variables"),                                    // base
		deny("read -r -p x HOOKCTL_HOME", "hookctl's variables"),                            // base
		deny("printf -v HOOKCTL_HOME %s /tmp", "hookctl's variables"),                       // base
		deny("mapfile HOOKCTL_X < f", "hookctl's variables"),                                // base
		deny("for HOOKCTL_HOME in /tmp; do :; done", "hookctl's variables"),                 // base
		deny("echo ${HOOKCTL_HOME:=/tmp}", "hookctl's variables"),                           // base
		deny("(( HOOKCTL_X = 1 ))", "hookctl's variables"),                                  // base
		deny("env HOOKCTL_X=1 make", "hookctl's variables"),                                 // base
		deny("env -u HOOKCTL_HOME make", "hookctl's variables"),                             // base
		deny("env --unset=HOOKCTL_HOME make", "hookctl's variables"),                        // base
		deny("systemd-run --user -E HOOKCTL_HOME=/tmp true", "hookctl's variables"),         // base
		deny("bwrap --setenv HOOKCTL_HOME /tmp --ro-bind / / true", "hookctl's variables"),  // base
		deny("tmux setenv -g HOOKCTL_HOME /tmp", "hookctl's variables"),                     // base
		deny("tmux new -d -e HOOKCTL_HOME=/tmp", "hookctl's variables"),                     // base
		deny("builtin export HOOKCTL_HOME=/tmp", "hookctl's variables"),                     // base
		deny("sh -c 'export HOOKCTL_HOME=/tmp/h'", "hookctl's variables"),                   // base
		deny("eval 'HOOKCTL_HOME=/tmp/h'", "hookctl's variables"),                           // base
		deny("env -S 'HOOKCTL_X=1 make'", "hookctl's variables"),                            // base
		// Moving the homes of hookctl and Claude Code under a command that runs them.
		deny("HOME=/tmp hookctl retrieve fetch https://x", "sets `HOME`"),                        // base
		deny("CLAUDE_CONFIG_DIR=/tmp/c claude -p hi", "sets `CLAUDE_CONFIG_DIR`"),                // base
		deny("XDG_CONFIG_HOME=/tmp/x hookctl check ls", "sets `XDG_CONFIG_HOME`"),                // base
		deny("export HOME=/tmp; hookctl version", "sets `HOME`"),                                 // base
		deny("env HOME=/tmp claude -p hi", "sets `HOME`"),                                        // base
		deny("unset CLAUDE_CONFIG_DIR; claude -p hi", "sets `CLAUDE_CONFIG_DIR`"),                // base
		deny("HOME=/tmp bash -c 'hookctl retrieve fetch https://x'", "sets `HOME`"),              // base
		deny("HOME=/tmp python3 -c 'import os; os.system(\"hookctl check ls\")'", "sets `HOME`"), // base
		deny("HOME=/tmp timeout 60 claude -p x", "sets `HOME`"),                                  // base
	)
	check(t,
		allow("HOME=/tmp go test ./..."),
		allow("export GOFLAGS=-mod=mod"),
		allow("XDG_CONFIG_HOME=/tmp/x npm test"),
		allow("echo $HOOKCTL_HOME"),
		allow("hookctl check 'export HOOKCTL_HOME=/x'"), // a command judged, not run
		allow("env | grep HOOKCTL_"),
		allow("declare -p"),
		allow("unset -f HOOKCTL_cleanup"),
	)
}

// TestKnownGaps keeps visible what a parser cannot close: code the guard cannot read, content it
// cannot see, links it cannot follow. Each row
// is allowed today; containing it is edit mode's OS sandbox's job (docs/threat-model.md,
// "Edit mode is an accident guard"). A row that starts being refused should move to the tests
// above.
func TestKnownGaps(t *testing.T) {
	check(t,
		allow("python3 switch_off.py"), // a script file is not opened
		allow(". ./a.sh"),              // sourced: not opened
		allow("source x"),              // sourced: not opened
		allow("bash ./install.sh"),     // a script file
		allow("make"),                  // a Makefile's recipes are not read
		allow("npm run postinstall"),   // a package.json script
		allow("python3 -c \"import os; os.system('hook'+'ctl uninstall')\""), // a name built at run time
		allow("export $(cat .env)"),                                        // variable names read from a file
		allow("tmux source-file dev.conf"),                                 // a configuration file
		allow("git remote add x https://example.com/r.git && git fetch x"), // a URL behind a remote's name
		// Content-opaque writes (issue 9): what the patch, stash, commit or archive holds is not
		// on the command line, and any of them may rewrite a tracked .claude/settings.json. The
		// file tools' check and the edit-mode sandbox see the file; the guard cannot.
		allow("git apply fix.patch"),
		allow("git am 0001-fix.patch"),
		allow("git stash pop"),
		allow("git stash apply stash@{1}"),
		allow("git checkout other-branch"), // a branch whose tracked settings differ
		allow("git switch other-branch"),
		allow("git merge feature"),
		allow("git pull --ff-only"),
		allow("git rebase main"),
		allow("git cherry-pick abc123"),
		allow("tar -xf settings-backup.tar"), // an archive holding .claude/settings.json, into the project
		allow("unzip -o a.zip"),
		// Links the guard cannot see (issue 9): the shell judge is lexical, so a link made
		// earlier, or by a program, is followed only by the file tools' resolver and the sandbox.
		allow("echo x > s.json"),                  // s.json may already be a link to ~/.claude/settings.json
		allow("ln -s \"$(cat target.txt)\" rc"),   // a link target read at run time
		allow("rm -rf sub"),                       // may hold sub/.claude/settings.json: names are not expanded for a recursive delete
		allow("echo x > ~/.Claude/Settings.json"), // a case variant: refused only where the hook sees that the file system folds
	)
}
