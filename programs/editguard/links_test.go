package editguard

import "testing"

// TestLinks (issue 9): a link to a protected file is a way to write it, so ln, link, cp -l/-s
// and rsync --link-dest are refused when either side is protected; links among the project's
// own files are not.
func TestLinks(t *testing.T) {
	check(t,
		// The link names a protected file (the target side).
		deny("ln -s ~/.claude/settings.json s.json", "links to"),
		deny("ln -s /home/user/.claude/settings.json s.json", "links to"),
		deny("ln -s ~/.bashrc bashrc", "links to"),
		deny("ln ~/.bashrc rc", "links to"),
		deny("ln -f ~/.zshrc zrc", "links to"),
		deny("ln -sf ~/.claude/settings.local.json x", "links to"),
		deny("ln -s ~/.claude.json cj", "links to"),
		deny("ln -s ~/.config/hookctl/config.toml c.toml", "links to"),
		deny("ln -s ~/.config/hookctl hk", "links to"),
		deny("ln -s ~/.config cfg", "links to"), // a directory holding a protected one
		deny("ln -s ~/.claude dot", "links to"),
		deny("ln -s ~/.claude/plugins plugins", "links to"),
		deny("ln -s /etc/claude-code managed", "links to"),
		deny("ln -s /etc/claude-code/managed-settings.d/10.json m.json", "links to"),
		deny("ln -s .claude/settings.json s.json", "links to"),
		deny("ln -s sub/.claude/settings.json s.json", "links to"),
		deny("ln -s ../.bashrc rc", "links to"),
		deny("ln -s ../../.bashrc sub/rc", "links to"), // relative to the link's directory: proj/sub/../../.bashrc
		deny("ln -s ../.claude/settings.json sub/x", "links to"),
		deny("ln -rs ~/.bashrc rc", "links to"),
		deny("ln -t links ~/.bashrc", "links to"),
		deny("ln --symbolic ~/.bashrc rc", "links to"),
		deny("ln -s ~/.bashrc", "links to"),               // one operand: the link is ./.bashrc
		deny("cd ~ && ln -s .bashrc /tmp/rc", "links to"), // relative to the working directory
		deny("ln -s \"$HOME/.bashrc\" rc", "links to"),
		deny("ln -s \"$D/settings.json\" s.json", "may be protected"),
		deny("ln -s ~/.claude/$f x", "may be protected"),
		deny("link ~/.bashrc rc", "links to"),
		deny("link .claude/settings.json s", "links to"),
		deny("cp -l ~/.bashrc rc", "links to"),
		deny("cp --link ~/.claude/settings.json s.json", "links to"),
		deny("cp -s ~/.bashrc rc", "links to"),
		deny("cp --symbolic-link ~/.zshrc z", "links to"),
		deny("cp -al ~/.config/hookctl backup", "links to"),
		deny("rsync -a --link-dest=/home/user/.claude src/ dest/", "links to"),
		deny("rsync -a --link-dest ~/.config/hookctl src/ dest/", "links to"),
		// The link's name is protected (the other side).
		deny("ln -s /tmp/x ~/.claude/settings.json", "is protected"),
		deny("ln -sf evil.json .claude/settings.json", "is protected"),
		deny("ln -s x sub/.claude/settings.local.json", "is protected"),
		deny("ln x ~/.claude.json", "is protected"),
		deny("link x ~/.bashrc", "is protected"),
		deny("ln -s /tmp/hooks.json ~/.claude/plugins/p/hooks/hooks.json", "is protected"),
		deny("ln -s x /etc/claude-code/managed-settings.d/99.json", "is protected"),
		// Links among the project's own files, and to elsewhere.
		allow("ln -s ../lib lib2"),
		allow("ln -s src/main.go main.go"),
		allow("ln -sf build/out bin"),
		allow("ln -s /usr/bin/python3 py"),
		allow("ln notes.md notes2.md"),
		allow("link a b"),
		allow("cp -l big.bin big2.bin"),
		allow("cp -s data/x x"),
		allow("rsync -a --link-dest=../prev src/ dest/"),
		allow("ln -s .claude/agents agents"),
		allow("ln -s ~/notes notes"),
		allow("cp ~/.claude/settings.json /tmp/settings.backup"), // a copy is not a link
	)
}

// TestGitPathspecs (issue 9): git commands that write work-tree files named by a pathspec.
func TestGitPathspecs(t *testing.T) {
	check(t,
		deny("git checkout -- .claude/settings.json", "is protected"),
		deny("git checkout .claude/settings.json", "is protected"),
		deny("git checkout HEAD~1 -- .claude/settings.json", "is protected"),
		deny("git checkout main -- .claude/settings.local.json", "is protected"),
		deny("git checkout -p -- .claude/settings.json", "is protected"),
		deny("git checkout -- sub/.claude/settings.json", "is protected"),
		deny("git checkout -- ./.claude/../.claude/settings.json", "is protected"),
		deny("git checkout -- :/.claude/settings.json", "is protected"),
		deny("git checkout -- ':(top).claude/settings.json'", "is protected"),
		deny("git checkout -- '*.json'", "matches"),
		deny("git checkout -- '*settings*'", "matches"),
		deny("git checkout -- '**/settings.json'", "matches"),
		deny("git checkout -- 'sub/*'", "matches"),
		deny("git checkout -- 'src/*.json'", "matches"), // * crosses / in a pathspec: src/a/.claude/settings.json
		deny("git checkout -- .claude", "is protected"),
		deny("git -C sub checkout -- .claude/settings.json", "is protected"),
		deny("cd sub && git checkout -- .claude/settings.json", "is protected"),
		deny("git restore .claude/settings.json", "is protected"),
		deny("git restore --source HEAD~3 .claude/settings.json", "is protected"),
		deny("git restore -s main -- .claude/settings.local.json", "is protected"),
		deny("git restore --worktree --staged .claude/settings.json", "is protected"),
		deny("git restore -W .claude/settings.json", "is protected"),
		deny("git restore '*.json'", "matches"),
		deny("git restore -- a/b/.claude/settings.json", "is protected"),
		deny("git mv evil.json .claude/settings.json", "is protected"),
		deny("git mv .claude/settings.json old.json", "is protected"),
		deny("git mv -f x.json .claude/settings.local.json", "is protected"),
		deny("git mv settings.json .claude/", "is protected"),
		deny("git mv .claude .claude-old", "is protected"),
		deny("git mv -k a sub/.claude/settings.json", "is protected"),
		deny("git rm .claude/settings.json", "is protected"),
		deny("git rm -f .claude/settings.local.json", "is protected"),
		deny("git rm -r .claude", "is protected"),
		deny("git rm -- sub/.claude/settings.json", "is protected"),
		deny("git rm -q '*.json'", "matches"),
		deny("git apply --unsafe-paths p.diff", "outside the work tree"),
		deny("git -C ~ checkout -- .bashrc", "is protected"),
		deny("git --git-dir=$HOME/.dotfiles --work-tree=$HOME checkout -- .bashrc", "is protected"), // the bare dotfiles repository
		deny("git --work-tree ~ restore .zshrc", "is protected"),
		deny("git --work-tree=\"$W\" checkout -- .bashrc", "may be protected"),
		allow("git checkout main"),
		allow("git checkout -b feature"),
		deny("git checkout -- src/main.go", "uncommitted changes"),      // not protected, but it discards work (issue 15)
		deny("git checkout HEAD~1 -- README.md", "uncommitted changes"), // not protected, but it discards work (issue 15)
		deny("git checkout -- '*.go'", "uncommitted changes"),           // not protected, but it discards work (issue 15)
		deny("git restore src/main.go", "uncommitted changes"),          // not protected, but it discards work (issue 15)
		allow("git restore --staged .claude/settings.json"),             // the index only
		allow("git restore -S .claude/settings.json"),
		deny("git restore -- ':!.claude/settings.json'", "uncommitted changes"), // not protected, but it discards work (issue 15)
		allow("git mv a.go b.go"),
		allow("git mv src/x.go lib/"),
		allow("git rm --cached .claude/settings.local.json"), // untracks, keeps the file
		allow("git rm old.go"),
		allow("git rm -r build/"),
		allow("git apply --check fix.patch"),
	)
}

// TestArchives: extracting an archive writes the names it holds.
func TestArchives(t *testing.T) {
	check(t,
		deny("tar -xf dot.tar -C ~", "may be protected"), // home directly holds .bashrc
		deny("tar xzf dot.tgz -C ~", "may be protected"),
		deny("tar -C ~/.claude -xf s.tar", "may be protected"),
		deny("tar --extract --file s.tar --directory ~/.config/hookctl", "may be protected"),
		deny("tar -xf a.tar -C /etc/claude-code", "may be protected"),
		deny("tar -xf a.tar .claude/settings.json", "is protected"),
		deny("tar -xf a.tar -C ~ .bashrc", "is protected"),
		deny("tar -xPf a.tar", "archive's names"),
		deny("tar --absolute-names -xf a.tar", "archive's names"),
		deny("cd ~ && tar xf a.tar", "may be protected"),
		deny("unzip cfg.zip -d ~/.claude", "may be protected"),
		deny("unzip -o cfg.zip -d ~", "may be protected"),
		deny("unzip a.zip .claude/settings.json", "is protected"),
		deny("cpio -i < a.cpio", "archive's names"),
		deny("cpio -id --no-absolute-filenames -D ~/.claude < a.cpio", "may be protected"),
		allow("tar -xzf deps.tgz"),
		allow("tar xf a.tar -C build"),
		allow("tar -xf a.tar -C /tmp/x"),
		allow("tar -tf a.tar"),
		allow("tar -czf out.tgz src"),
		allow("tar -xOf a.tar config.json"),
		allow("tar -xf a.tar src/main.go"),
		allow("unzip -l a.zip"),
		allow("unzip a.zip -d vendor"),
		allow("cpio -id --no-absolute-filenames < a.cpio"),
	)
}

// TestProtectedNeighbours (issue 9): Claude Code's files beside the settings, written from the
// shell.
func TestProtectedNeighbours(t *testing.T) {
	check(t,
		deny("echo '{}' > ~/.claude.json", "is protected"),
		deny("jq . x > ~/.claude.json", "is protected"),
		deny("echo x > /etc/claude-code/managed-settings.d/10-org.json", "is protected"),
		deny("cp m.json /etc/claude-code/managed-mcp.json", "is protected"),
		deny("mkdir -p /etc/claude-code/managed-settings.d", "is protected"),
		deny("echo '{}' > ~/.claude/plugins/cache/p/hooks/hooks.json", "is protected"),
		deny("cp hooks.json ~/.claude/plugins/marketplaces/m/p/hooks/", "is protected"),
		deny("rm ~/.claude/plugins/installed_plugins.json", "is protected"),
		deny("echo '{}' > sub/.claude/settings.json", "is protected"),
		deny("echo '{}' > a/b/c/.claude/settings.local.json", "is protected"),
		deny("cd packages/web && echo '{}' > .claude/settings.json", "is protected"),
		deny("echo x > /tmp/other/.claude/settings.json", "is protected"),
		deny("tee sub/.claude/settings.json < s", "is protected"),
		deny("sed -i s/a/b/ sub/.claude/settings.local.json", "is protected"),
		deny("cp s.json */.claude/settings.json", "protected"),
		deny("echo x > sub/.claude/commands/readonly.md", "is protected"),
		deny("mkdir -p sub/.claude/skills/readonly", "is protected"),
		allow("echo x > sub/.claude/agents/a.md"),
		allow("echo x > sub/settings.json"),
		allow("echo x > ~/.claude.json.bak"),
		allow("cat ~/.claude.json"),
		allow("ls /etc/claude-code"),
		allow("echo x > sub/.claude/commands/review.md"),
	)
}
