package programs

import "testing"

// TestGitReads: the everyday read-only git commands an agent runs are allowed.
func TestGitReads(t *testing.T) {
	check(t, true,
		r("git", "status"),
		r("git", "status", "-s"),
		r("git", "status", "-sb"),
		r("git", "status", "--porcelain=v2"),
		r("git", "status", "-uno"),
		r("git", "status", "--short", "--branch"),
		r("git", "status", "--ignored"),
		r("git", "log"),
		r("git", "log", "--oneline", "-20"),
		r("git", "log", "-n", "5"),
		r("git", "log", "-5", "--stat"),
		r("git", "log", "-p", "-3", "--", "main.go"),
		r("git", "log", "--graph", "--oneline", "--all"),
		r("git", "log", "--author=alice"),
		r("git", "log", "--since=2 weeks ago"),
		r("git", "log", "--format=%h %an %s"),
		r("git", "log", "--pretty=oneline"),
		r("git", "log", "--pretty=format:%h"),
		r("git", "log", "--date=short", "--format=%ad"),
		r("git", "log", "main..feature"),
		r("git", "log", "HEAD~5..HEAD"),
		r("git", "log", "--follow", "--", "f.go"),
		r("git", "log", "-L", "10,20:main.go"),
		r("git", "log", "--decorate=short"),
		r("git", "log", "-c"),
		r("git", "show"),
		r("git", "show", "HEAD:go.mod"),
		r("git", "show", "--stat", "HEAD~1"),
		r("git", "show", "-s", "--format=%ci", "HEAD"),
		r("git", "show", "--name-only", "HEAD"),
		r("git", "diff"),
		r("git", "diff", "--cached"),
		r("git", "diff", "--staged", "--stat"),
		r("git", "diff", "HEAD~1", "HEAD"),
		r("git", "diff", "--name-only", "main...feature"),
		r("git", "diff", "-U10"),
		r("git", "diff", "--word-diff"),
		r("git", "diff", "--no-index", "a", "b"),
		r("git", "diff", "--quiet"),
		r("git", "diff", "-M50%"),
		r("git", "diff", "--diff-filter=M"),
		r("git", "grep", "-n", "TODO"),
		r("git", "grep", "-e", "foo", "--or", "-e", "bar"),
		r("git", "grep", "-p", "func"),
		r("git", "grep", "-c", "foo", "HEAD~3"),
		r("git", "grep", "-3", "foo"),
		r("git", "blame", "f.go"),
		r("git", "blame", "-L", "10,20", "f.go"),
		r("git", "blame", "-w", "-C", "f.go"),
		r("git", "rev-parse", "HEAD"),
		r("git", "rev-parse", "--show-toplevel"),
		r("git", "rev-parse", "--abbrev-ref", "HEAD"),
		r("git", "rev-parse", "--short", "HEAD"),
		r("git", "rev-parse", "--is-inside-work-tree"),
		r("git", "-C", "sub", "rev-parse", "--git-dir"),
		r("git", "ls-files"),
		r("git", "ls-files", "--others", "--exclude-standard"),
		r("git", "ls-tree", "-r", "--name-only", "HEAD"),
		r("git", "merge-base", "main", "HEAD"),
		r("git", "merge-base", "--is-ancestor", "a", "b"),
		r("git", "describe", "--tags", "--always"),
		r("git", "cat-file", "-p", "HEAD"),
		r("git", "cat-file", "-t", "HEAD"),
		r("git", "cat-file", "blob", "HEAD:go.mod"),
		r("git", "for-each-ref", pat("--format=%(refname:short)"), "refs/heads"),
		r("git", "for-each-ref", "--sort=-committerdate", "--count=5"),
		r("git", "show-ref", "--tags"),
		r("git", "count-objects", "-vH"),
		r("git", "check-ignore", "-v", "x"),
		r("git", "check-attr", "-a", "x"),
		r("git", "name-rev", "HEAD"),
		r("git", "cherry", "-v"),
		r("git", "shortlog", "-sn"),
		r("git", "rev-list", "--count", "HEAD"),
		r("git", "diff-tree", "-r", "--name-only", "HEAD"),
		r("git", "version"),
		r("git", "--version"),
		r("git", "-C", "sub", "status"),
		r("git", "-C", "a", "-C", "b", "log", "-1"),
		r("git", "--no-pager", "log", "-1"),
		r("git", "-P", "diff"),
		r("git", "show", pat("HEAD@{1}")),                          // a reflog revision: the braces are git's
		r("git", "diff", pat("@{u}")),                              // the upstream
		r("git", "log", pat("main@{2.days.ago}~2")),                // a dated reflog entry
		r("git", "grep", "foo", "--", pat(":!vendor")),             // exclude pathspec magic
		r("git", "log", "--", pat(":(exclude)vendor"), "src"),      // long-form exclude magic
		r("git", "config", "--get-regexp", pat(`remote\..*\.url`)), // a regex operand of --get-regexp
		r("git", "config", "user.name"),                            // git config NAME reads
		r("git", "rev-list", "--filter=blob:none", "HEAD"),         // a real option, not an abbreviation of --filters
	)
}

// TestGitRefusesWrites: subcommands that write are refused, the writing forms of listing
// subcommands (branch NAME, tag NAME, stash, config NAME VALUE, remote add, worktree add,
// reflog expire) are refused while their listing forms are allowed, and every option that
// writes, runs a program or changes the repository or configuration is refused, as are %G
// format placeholders, named formats from configuration and ext:: remotes.
func TestGitRefusesWrites(t *testing.T) {
	check(t, true,
		r("git", "branch"),
		r("git", "branch", "-a"),
		r("git", "branch", "-vv"),
		r("git", "branch", "--list", "feat*"),
		r("git", "branch", "-l", "x*"),
		r("git", "branch", "--list", "-r", loopVar("x")),
		r("git", "branch", "--show-current"),
		r("git", "branch", "-r"),
		r("git", "branch", "--merged"),
		r("git", "branch", "--merged", "main"),
		r("git", "branch", "--contains"),
		r("git", "branch", pat("--format=%(refname:short)")),
		r("git", "branch", "--sort=-committerdate"),
		r("git", "tag"),
		r("git", "tag", "-l"),
		r("git", "tag", "-l", "v1.*"),
		r("git", "tag", "--list", "v*", "--sort=-v:refname"),
		r("git", "tag", "-n5"),
		r("git", "tag", "--contains", "HEAD"),
		r("git", "tag", "--points-at", "HEAD"),
		r("git", "stash", "list"),
		r("git", "stash", "show"),
		r("git", "stash", "show", "-p"),
		r("git", "stash", "show", "1"),
		r("git", "stash", "list", "--format=%gd %s"),
		r("git", "config", "--get", "user.name"),
		r("git", "config", "--get-all", "remote.origin.fetch"),
		r("git", "config", "--list"),
		r("git", "config", "-l", "--show-origin"),
		r("git", "config", "--global", "--get", "user.email"),
		r("git", "config", "get", "user.name"),
		r("git", "config", "list"),
		r("git", "config", "--type=bool", "--get", "core.bare"),
		r("git", "config", "--get-regexp", "^remote"),
		r("git", "config", "get", "--all", "remote.origin.url"),
		r("git", "remote"),
		r("git", "remote", "-v"),
		r("git", "remote", "get-url", "origin"),
		r("git", "remote", "get-url", "--push", "origin"),
		r("git", "worktree", "list"),
		r("git", "worktree", "list", "--porcelain"),
		r("git", "reflog"),
		r("git", "reflog", "show"),
		r("git", "reflog", "show", "main"),
		r("git", "reflog", "-n", "10"),
		r("git", "reflog", "main"),
	)
	check(t, false,
		// Subcommands that write, contact a remote or run programs.
		r("git", "commit", "-m", "x").because("not a read-only subcommand"),                  // commit
		r("git", "push", "--force", "origin", "main").because("not a read-only subcommand"),  // push
		r("git", "checkout", "main").because("not a read-only subcommand"),                   // checkout
		r("git", "switch", "-c", "x").because("not a read-only subcommand"),                  // switch -c
		r("git", "reset", "--hard").because("not a read-only subcommand"),                    // reset --hard
		r("git", "clean", "-fdx").because("not a read-only subcommand"),                      // clean
		r("git", "add", ".").because("not a read-only subcommand"),                           // add
		r("git", "rm", "f").because("not a read-only subcommand"),                            // rm
		r("git", "restore", "f").because("not a read-only subcommand"),                       // restore
		r("git", "apply", "p.diff").because("not a read-only subcommand"),                    // apply
		r("git", "merge", "x").because("not a read-only subcommand"),                         // merge
		r("git", "rebase", "main").because("not a read-only subcommand"),                     // rebase
		r("git", "cherry-pick", "x").because("not a read-only subcommand"),                   // cherry-pick
		r("git", "pull").because("not a read-only subcommand"),                               // pull
		r("git", "fetch").because("not a read-only subcommand"),                              // fetch
		r("git", "clone", "https://example.com/r").because("not a read-only subcommand"),     // clone
		r("git", "init").because("not a read-only subcommand"),                               // init
		r("git", "gc").because("not a read-only subcommand"),                                 // gc
		r("git", "notes", "add", "-m", "x").because("not a read-only subcommand"),            // notes add
		r("git", "update-ref", "refs/heads/x", "HEAD").because("not a read-only subcommand"), // update-ref
		r("git", "hash-object", "-w", "f").because("not a read-only subcommand"),             // hash-object -w
		r("git", "archive", "HEAD").because("not a read-only subcommand"),                    // archive
		r("git", "format-patch", "-1").because("not a read-only subcommand"),                 // format-patch writes patch files
		r("git", "submodule", "update").because("not a read-only subcommand"),                // submodule update
		r("git", "difftool").because("not a read-only subcommand"),                           // difftool runs a tool
		r("git", "ls-remote", "origin").because("not a read-only subcommand"),                // contacts the remote
		r("git", "credential", "fill").because("not a read-only subcommand"),                 // prints stored credentials
		r("git", "lg").because("not a read-only subcommand"),                                 // an alias from config (aliases can be !shell)
		r("git", pat("log|sh")).because("not a read-only subcommand"),                        // pattern text as the subcommand
		r("git", loopVar("log")).because("loop variable may not be the subcommand"),          // the loop variable as the subcommand
		r("git").because("needs a subcommand"),                                               // nothing to run
		r("git", "-C", "x").because("needs a subcommand"),                                    // only a global option
		// Listing subcommands given operands that create, delete or change.
		r("git", "branch", "newfeature").because("creates a branch"),                               // branch NAME
		r("git", "branch", "newfeature", "HEAD~3").because("creates a branch"),                     // branch NAME START
		r("git", "branch", "--no-color", "x").because("creates a branch"),                          // branch NAME behind a flag
		r("git", "branch", "-d", "x").because("not on the read-only allowlist"),                    // branch -d
		r("git", "branch", "-D", "x").because("not on the read-only allowlist"),                    // branch -D
		r("git", "branch", "-m", "a", "b").because("not on the read-only allowlist"),               // branch -m
		r("git", "branch", "-c", "a", "b").because("not on the read-only allowlist"),               // branch -c
		r("git", "branch", "-f", "main", "HEAD~1").because("not on the read-only allowlist"),       // branch -f
		r("git", "branch", "-u", "origin/x").because("not on the read-only allowlist"),             // branch -u
		r("git", "branch", "--set-upstream-to=origin/x").because("not on the read-only allowlist"), // --set-upstream-to
		r("git", "branch", "--edit-description").because("not on the read-only allowlist"),         // runs an editor
		r("git", "tag", "v1.0").because("creates a tag"),                                           // tag NAME
		r("git", "tag", "v1", "HEAD~2").because("creates a tag"),                                   // tag NAME COMMIT
		r("git", "tag", "-a", "v1", "-m", "x").because("not on the read-only allowlist"),           // tag -a
		r("git", "tag", "-d", "v1").because("not on the read-only allowlist"),                      // tag -d
		r("git", "tag", "-s", "v1").because("not on the read-only allowlist"),                      // tag -s runs gpg
		r("git", "tag", "-f", "v1").because("not on the read-only allowlist"),                      // tag -f
		r("git", "tag", "-v", "v1").because("not on the read-only allowlist"),                      // tag -v runs gpg
		r("git", "stash").because("only `git stash list` and `git stash show`"),                    // plain stash saves and resets
		r("git", "stash", "push").because("only `git stash list` and `git stash show`"),            // stash push
		r("git", "stash", "pop").because("only `git stash list` and `git stash show`"),             // stash pop
		r("git", "stash", "apply").because("only `git stash list` and `git stash show`"),           // stash apply
		r("git", "stash", "drop").because("only `git stash list` and `git stash show`"),            // stash drop
		r("git", "stash", "clear").because("only `git stash list` and `git stash show`"),           // stash clear
		r("git", "stash", "save", "wip").because("only `git stash list` and `git stash show`"),     // stash save
		r("git", "stash", "-u").because("only `git stash list` and `git stash show`"),              // stash push -u
		r("git", "stash", "-p").because("only `git stash list` and `git stash show`"),              // stash push -p
		r("git", "stash", "--", "f.go").because("only `git stash list` and `git stash show`"),      // stash push -- PATH
		r("git", "stash", "branch", "x").because("only `git stash list` and `git stash show`"),     // stash branch
		r("git", "stash", "store", "abc").because("only `git stash list` and `git stash show`"),    // stash store
		r("git", "config", "user.name", "x").because("only reading forms"),                         // config NAME VALUE
		r("git", "config", "--global", "user.name", "x").because("only reading forms"),             // config --global NAME VALUE
		r("git", "config", "set", "user.name", "x").because("only reading forms"),                  // config set (git 2.46)
		r("git", "config", "unset", "user.name").because("only reading forms"),                     // config unset (git 2.46)
		r("git", "config", "edit").because("only reading forms"),                                   // config edit (git 2.46)
		r("git", "config", "--get", "--list").because("only reading forms"),                        // two actions
		r("git", "config", "--get", "a", "b", "c").because("only reading forms"),                   // too many operands
		r("git", "config", "--all", "x").because("belong to `git config get`"),                     // --all outside config get
		r("git", "config", "get", "a", "b").because("use `git config get NAME`"),                   // config get with a value
		r("git", "config", "--unset", "user.name").because("not on the read-only allowlist"),       // --unset
		r("git", "config", "--add", "x.y", "z").because("not on the read-only allowlist"),          // --add
		r("git", "config", "--replace-all", "a.b", "c").because("not on the read-only allowlist"),  // --replace-all
		r("git", "config", "--rename-section", "a", "b").because("not on the read-only allowlist"), // --rename-section
		r("git", "config", "-e").because("not on the read-only allowlist"),                         // -e runs an editor
		r("git", "config", "--edit").because("runs an editor"),                                     // --edit
		r("git", "config", "--file", "x", "--list").because("not on the read-only allowlist"),      // another config file
		r("git", "remote", "add", "evil", "https://x").because("only `git remote -v`"),             // remote add
		r("git", "remote", "remove", "origin").because("only `git remote -v`"),                     // remote remove
		r("git", "remote", "rename", "a", "b").because("only `git remote -v`"),                     // remote rename
		r("git", "remote", "set-url", "origin", "x").because("only `git remote -v`"),               // remote set-url
		r("git", "remote", "show", "origin").because("only `git remote -v`"),                       // remote show contacts the remote
		r("git", "remote", "prune", "origin").because("only `git remote -v`"),                      // remote prune
		r("git", "remote", "update").because("only `git remote -v`"),                               // remote update fetches
		r("git", "remote", "-v", "add", "x", "y").because("must come right after"),                 // remote add behind -v
		r("git", "remote", "--push").because("only `git remote -v`"),                               // --push without get-url
		r("git", "worktree", "add", "../x").because("only `git worktree list`"),                    // worktree add
		r("git", "worktree", "remove", "x").because("only `git worktree list`"),                    // worktree remove
		r("git", "worktree", "prune").because("only `git worktree list`"),                          // worktree prune
		r("git", "worktree", "lock", "x").because("only `git worktree list`"),                      // worktree lock
		r("git", "worktree", "move", "a", "b").because("only `git worktree list`"),                 // worktree move
		r("git", "worktree", "repair").because("only `git worktree list`"),                         // worktree repair
		r("git", "worktree").because("only `git worktree list`"),                                   // no verb
		r("git", "reflog", "expire", "--all").because("only `git reflog [show] [REF]`"),            // reflog expire
		r("git", "reflog", "delete", "main@1").because("only `git reflog [show] [REF]`"),           // reflog delete
		r("git", "reflog", "--all", "expire").because("must come right after"),                     // expire behind an option
		r("git", "reflog", "drop").because("only `git reflog [show] [REF]`"),                       // reflog drop
		r("git", "reflog", "expire", "--expire=now").because("not on the read-only allowlist"),     // expire's own option
		r("git", "reflog", "show", "a", "b").because("at most one ref"),                            // two refs
		// Options that write, run programs, or change the repository or configuration.
		r("git", "log", "--output=x").because("writes to a file"),                               // --output=FILE
		r("git", "diff", "--output", "x").because("writes to a file"),                           // --output FILE
		r("git", "show", "HEAD", "--output=x").because("writes to a file"),                      // after an operand
		r("git", "log", "--grep", "--output=x").because("writes to a file"),                     // as the value of another option
		r("git", "log", pat("--output=$HOME/x")).because("writes to a file"),                    // quoted with shell characters
		r("git", "log", "--output-directory=x").because("writes files"),                         // --output-directory
		r("git", "grep", "-O", "foo").because("runs a pager"),                                   // grep -O
		r("git", "grep", "-Ovim", "foo").because("runs a pager"),                                // grep -OPAGER attached
		r("git", "grep", "-nO", "foo").because("runs a pager"),                                  // -O hidden in a cluster
		r("git", "grep", "--open-files-in-pager", "foo").because("runs a pager"),                // --open-files-in-pager
		r("git", "-p", "log").because("runs a pager"),                                           // global -p
		r("git", "--paginate", "log").because("runs a pager"),                                   // global --paginate
		r("git", "diff", "--ext-diff").because("runs the configured external diff"),             // --ext-diff
		r("git", "log", "-p", "--ext-diff").because("runs the configured external diff"),        // --ext-diff on log
		r("git", "diff", "--textconv").because("runs the configured textconv"),                  // --textconv
		r("git", "cat-file", "--textconv", "HEAD:x").because("runs the configured textconv"),    // cat-file --textconv
		r("git", "cat-file", "--filters", "HEAD:x").because("filter programs"),                  // cat-file --filters
		r("git", "cat-file", "--path=x", "blob", "abc").because("applies filters"),              // cat-file --path
		r("git", "cat-file", "--batch").because("reads object names from standard input"),       // --batch
		r("git", "cat-file", "--batch-check").because("reads object names from standard input"), // --batch-check
		r("git", "cat-file", "--batch-command").because("reads commands"),                       // --batch-command
		r("git", "cat-file", "-p").because("use one of"),                                        // no object
		r("git", "cat-file", "-p", "-t", "x").because("use one of"),                             // two modes
		r("git", "log", "--upload-pack=touch x").because("runs a program"),                      // --upload-pack
		r("git", "log", "--receive-pack=x").because("runs a program"),                           // --receive-pack
		r("git", "log", "--exec=x").because("runs a program"),                                   // --exec
		r("git", "--exec-path=/tmp", "log").because("changes where git finds its programs"),     // --exec-path=DIR
		r("git", "--exec-path").because("changes where git finds its programs"),                 // --exec-path alone
		r("git", "-c", "core.pager=sh", "log").because("sets configuration"),                    // -c NAME=VALUE
		r("git", "-ccore.fsmonitor=x", "status").because("sets configuration"),                  // -cNAME=VALUE attached
		r("git", "--config-env=core.pager=X", "log").because("sets configuration"),              // --config-env
		r("git", "--git-dir=/tmp/evil", "log").because("points git at another repository"),      // --git-dir=DIR
		r("git", "--git-dir", "x", "rev-parse").because("points git at another repository"),     // --git-dir before rev-parse
		r("git", "log", "--git-dir=x").because("points git at another repository"),              // --git-dir after the subcommand
		r("git", "--work-tree=/", "status").because("points git at another work tree"),          // --work-tree
		r("git", "--attr-source=x", "diff").because("changes where attributes come from"),       // --attr-source
		r("git", "--shallow-file=x", "log").because("changes the shallow-commit file"),          // --shallow-file
		r("git", "log", "--template=x").because("copies hooks"),                                 // --template
		r("git", "--separate-git-dir=x", "status").because("moves the repository"),              // --separate-git-dir
		r("git", "--super-prefix=x", "log").because("internal to git"),                          // --super-prefix
		r("git", "--list-cmds=main").because("internal to git"),                                 // --list-cmds
		r("git", "--no-replace-objects", "log").because("not needed here"),                      // --no-replace-objects
		r("git", "blame", "-S", "revs", "f").because("reads revisions from a file"),             // blame -S
		r("git", "--bare", "log").because("not on the read-only allowlist"),                     // --bare
		r("git", "--namespace=x", "log").because("not on the read-only allowlist"),              // --namespace
		r("git", "-C", loopVar("dir"), "status").because("needs a plain directory"),             // the loop variable as -C's value
		r("git", "-C", "-c", "status").because("needs a plain directory"),                       // -C's value is an option
		r("git", "--version", "log").because("takes nothing after it"),                          // --version then a subcommand
		// Signature checks run gpg; named formats come from the repository's configuration.
		r("git", "log", "--show-signature").because("runs gpg"),              // --show-signature
		r("git", "show", "--show-signature", "HEAD").because("runs gpg"),     // on show
		r("git", "log", "--format=%G?").because("run gpg"),                   // %G?
		r("git", "log", "--pretty=format:%h %GS").because("run gpg"),         // %GS in format:
		r("git", "log", "--pretty=tformat:%GK").because("run gpg"),           // %GK in tformat:
		r("git", "show", "-s", "--format=%x00%GF").because("run gpg"),        // %GF after another placeholder
		r("git", "rev-list", "--format=%GG", "HEAD").because("run gpg"),      // rev-list
		r("git", "reflog", "--format=%GT").because("run gpg"),                // reflog
		r("git", "stash", "list", "--format=%G?").because("run gpg"),         // stash list
		r("git", "diff-tree", "--pretty=%GS", "HEAD").because("run gpg"),     // diff-tree
		r("git", "log", "--pretty=evil").because("not a built-in format"),    // pretty.evil from repository config
		r("git", "log", "--format=evil").because("not a built-in format"),    // format named without %
		r("git", "branch", "--format=evil").because("not a built-in format"), // branch --format
		// ext:: remotes run commands.
		r("git", "log", "ext::sh -c touch% /tmp/x").because("`ext::` remotes run commands"), // ext:: as a revision
		r("git", "remote", "get-url", "ext::sh").because("`ext::` remotes run commands"),    // ext:: as a remote
		r("git", "log", "--format=%+G?").because("run gpg"),                                 // %G with the + modifier (git 2.39 ran gpg.program)
		r("git", "log", "--format=% GK").because("run gpg"),                                 // %G with the space modifier
		r("git", "log", "--format=%-GS").because("run gpg"),                                 // %G with the - modifier
		r("git", "for-each-ref", pat("--format=%(signature)")).because("run gpg"),           // %(signature) in newer git
		r("git", "branch", "--sort=signature").because("signature runs gpg"),                // sorting by signature checks every signature
		r("git", "stash", "--", "show").because("must come right after"),                    // git stash push -- show: stashes the file show
		r("git", "stash", "--", "list").because("must come right after"),                    // the same with list
		r("git", "worktree", "-v", "list").because("must come right after"),                 // a verb after an option
	)
}

// TestGitAbbreviations: git accepts unique prefixes of long options, so every prefix of a
// dangerous option is refused and named for the option it abbreviates; real options that happen
// to be prefixes of dangerous ones (--text, --list) keep their own meaning.
func TestGitAbbreviations(t *testing.T) {
	check(t, true,
		r("git", "diff", "--text"),
		r("git", "grep", "--text", "foo"),
		r("git", "branch", "--list"),
		r("git", "tag", "--list"),
		r("git", "config", "--list", "--show-scope"),
		r("git", "rev-parse", "--git-dir"),
		r("git", "diff", "--output-indicator-new=+"),
		r("git", "log", "--no-ext-diff", "-p"),
		r("git", "diff", "--no-textconv"),
		r("git", "log", "--exclude=refs/x", "--all"),
		r("git", "--no-pager", "diff"),
		r("git", "diff", "--exit-code"),
		r("git", "log", "--oneline", "--no-renames"),
	)
	check(t, false,
		r("git", "log", "--outp=x").because("abbreviates `--output`"),                          // --outp
		r("git", "diff", "--out=x").because("abbreviates `--output`"),                          // --out=
		r("git", "show", "--ou", "x").because("abbreviates `--output`"),                        // --ou FILE
		r("git", "log", pat("--outp=a;b")).because("abbreviates `--output`"),                   // quoted with shell characters
		r("git", "log", "--output-d=x").because("abbreviates `--output-directory`"),            // --output-d
		r("git", "grep", "--open-files", "foo").because("abbreviates `--open-files-in-pager`"), // --open-files
		r("git", "grep", "--open", "foo").because("abbreviates `--open-files-in-pager`"),       // --open
		r("git", "--pag", "log").because("abbreviates `--paginate`"),                           // --pag
		r("git", "diff", "--ext-d").because("abbreviates `--ext-diff`"),                        // --ext-d
		r("git", "diff", "--ext").because("abbreviates `--ext-diff`"),                          // --ext
		r("git", "diff", "--textc").because("abbreviates `--textconv`"),                        // --textc
		r("git", "log", "-p", "--textco").because("abbreviates `--textconv`"),                  // --textco
		r("git", "cat-file", "--filt", "HEAD:x").because("abbreviates `--filters`"),            // --filt
		r("git", "log", "--upload=x").because("abbreviates `--upload-pack`"),                   // --upload
		r("git", "log", "--receive=x").because("abbreviates `--receive-pack`"),                 // --receive
		r("git", "--exec-p=/tmp", "log").because("abbreviates `--exec-path`"),                  // --exec-p
		r("git", "--git-d=x", "log").because("abbreviates `--git-dir`"),                        // --git-d
		r("git", "rev-parse", "--git-d").because("abbreviates `--git-dir`"),                    // rev-parse allows only the exact --git-dir
		r("git", "--work=x", "status").because("abbreviates `--work-tree`"),                    // --work
		r("git", "--attr=x", "diff").because("abbreviates `--attr-source`"),                    // --attr
		r("git", "--shallow=x", "log").because("abbreviates `--shallow-file`"),                 // --shallow
		r("git", "log", "--show-sig").because("abbreviates `--show-signature`"),                // --show-sig
		r("git", "--config=x", "log").because("abbreviates `--config-env`"),                    // --config
		r("git", "cat-file", "--batch-c").because("abbreviates `--batch-check`"),               // --batch-c
		r("git", "config", "--ed").because("abbreviates `--edit`"),                             // --ed
		r("git", "log", "--templ=x").because("abbreviates `--template`"),                       // --templ
		r("git", "--list-c=x").because("abbreviates `--list-cmds`"),                            // --list-c
		r("git", "log", "--end-of").because("abbreviates `--end-of-options`"),                  // --end-of
		r("git", "--no-repl", "log").because("abbreviates `--no-replace-objects`"),             // --no-repl
		r("git", "log", "--sep=x").because("abbreviates `--separate-git-dir`"),                 // --sep
	)
}

// TestGitPastDoubleDash: options are judged past `--` too. After `--` no word may start with
// `-`, and dangerous options are refused wherever they stand.
func TestGitPastDoubleDash(t *testing.T) {
	check(t, true,
		r("git", "log", "--", "f.go"),
		r("git", "log", "--oneline", "--", "a", "b"),
		r("git", "diff", "HEAD~1", "--", "src/x.go"),
		r("git", "grep", "-n", "foo", "--", "*.go"),
		r("git", "diff", "--", loopVar("a.go")),
		r("git", "log", "--", ":^vendor"),
		r("git", "blame", "--", "f.go"),
		r("git", "status", "--", "src"),
	)
	check(t, false,
		r("git", "log", "--", "-p").because("may not start with `-`"),                     // an option after --
		r("git", "diff", "--", "-R").because("may not start with `-`"),                    // -R after --
		r("git", "status", "--", "-uall").because("may not start with `-`"),               // a cluster after --
		r("git", "grep", "foo", "--", "-O").because("may not start with `-`"),             // -O after --
		r("git", "log", "--", "--", "x").because("may not start with `-`"),                // a second --
		r("git", "diff", "--", loopVar("-R")).because("may not start with `-`"),           // a loop word starting with -
		r("git", "log", "--", "--output=x").because("writes to a file"),                   // --output after --
		r("git", "diff", "--", "--ext-diff").because("runs the configured external diff"), // --ext-diff after --
		r("git", "show", "--", "--outp=x").because("abbreviates `--output`"),              // an abbreviation after --
		r("git", "log", "--", "--end-of-options").because("not needed here"),              // --end-of-options after --
		r("git", "log", "--", "ext::sh").because("`ext::` remotes run commands"),          // ext:: after --
		r("git", "log", "--", pat("a|b")).because("shell syntax"),                         // pattern text as a path
	)
}

// TestGitPatternSlots: pattern text is allowed only where git reads a pattern or format (grep's
// pattern, --grep, -S, -G, -L, --format), and the loop variable only as an operand that is not a
// pattern.
func TestGitPatternSlots(t *testing.T) {
	check(t, true,
		r("git", "log", "-E", pat("--grep=fix|feat")),
		r("git", "log", pat("-Sfoo("), "--oneline"),
		r("git", "log", "-G", pat("foo(")),
		r("git", "log", pat("--format=%h|%s")),
		r("git", "grep", "-e", pat("a;b")),
		r("git", "grep", pat("a|b")),
		r("git", "grep", "-E", pat("(foo|bar)"), "--", "*.go"),
		r("git", "grep", "-e", "a", "--and", pat("("), "-e", "b", "--or", "-e", "c", pat(")")),
		r("git", "blame", "-L", pat("/^func (s) Run/,+10"), "f.go"),
		r("git", "log", loopVar("v1.0")),
		r("git", "diff", loopVar("a.go")),
		r("git", "show", loopVar("HEAD~1")),
		r("git", "blame", loopVar("f.go")),
		r("git", "grep", "foo", loopVar("a.go")),
	)
	check(t, false,
		r("git", "log", pat("a|b")).because("shell syntax"),                             // pattern text as a revision
		r("git", "log", "--author", loopVar("x")).because("loop variable"),              // the loop variable as an option value
		r("git", "log", "-n", pat("5;x")).because("shell syntax in the value"),          // -n is not a pattern slot
		r("git", "log", "--since", pat("$(date)")).because("shell syntax in the value"), // --since is not a pattern slot
		r("git", "grep", loopVar("foo")).because("loop variable may not be a pattern"),  // the loop variable as the pattern
		r("git", "grep", "-e", loopVar("foo")).because("loop variable"),                 // the loop variable as -e's value
		r("git", "grep", "-e", "x", pat("a|b")).because("shell syntax"),                 // with -e, the operand is a path
		r("git", "diff", "--stat", pat("a;b")).because("shell syntax"),                  // pattern text as a path
		r("git", "-C", pat("a|b"), "log").because("needs a plain directory"),            // pattern text as -C's value
		r("git", "remote", "get-url", pat("a;b")).because("shell syntax"),               // pattern text as a remote
		r("git", "branch", "--list", pat("a|b")).because("shell syntax"),                // branch patterns are globs, not pattern slots
	)
}

// TestGitInOrder: git config and git grep read options only up to their first operand
// (parse-options with PARSE_OPT_STOP_AT_NON_OPTION, measured on git 2.39); after it, a word that
// looks like an option is an operand. For config the second operand is the VALUE, so these rows
// write .git/config (TestGitInOrderRealGit in hook proves it and that the judge refuses them).
func TestGitInOrder(t *testing.T) {
	const why = "as an operand, not an option"
	check(t, false,
		r("git", "config", "core.hooksPath", "--get").because(why),                      // sets core.hooksPath=--get
		r("git", "config", "core.hooksPath", "--get-all").because(why),                  // sets core.hooksPath=--get-all
		r("git", "config", "core.hooksPath", "--get-regexp").because(why),               // sets core.hooksPath=--get-regexp
		r("git", "config", "core.hooksPath", "--bool").because(why),                     // sets core.hooksPath=--bool
		r("git", "config", "core.hooksPath", "--type=bool").because(why),                // sets core.hooksPath=--type=bool
		r("git", "config", "core.hooksPath", "--default=x").because(why),                // sets core.hooksPath=--default=x
		r("git", "config", "core.hooksPath", "-z").because(why),                         // sets core.hooksPath=-z
		r("git", "config", "core.hooksPath", "-l").because(why),                         // sets core.hooksPath=-l
		r("git", "config", "core.hooksPath", "--show-origin").because(why),              // sets core.hooksPath=--show-origin
		r("git", "config", "core.hooksPath", "--global").because(why),                   // sets core.hooksPath=--global
		r("git", "config", "core.hooksPath", "--worktree").because(why),                 // sets core.hooksPath=--worktree
		r("git", "config", "core.hooksPath", "--").because(why),                         // sets core.hooksPath=--
		r("git", "config", "--global", "core.hooksPath", "--get").because(why),          // writes ~/.gitconfig
		r("git", "config", "--type", "bool", "core.bare", "--get").because(why),         // a separate --type value is skipped
		r("git", "config", "--get", "core.x", "--global").because(why),                  // --global is a value-pattern, not a scope
		r("git", "config", "--", "core.x", "--get").because("may not start with `-`"),   // after --, core.x is the name
		r("git", "-C", "sub", "config", "core.hooksPath", "--get").because(why),         // -C sub: the same write in sub
		r("git", "config", loopVar("core.hooksPath"), "--get").because(why),             // for k in …; do git config "$k" --get
		r("git", "config", "core.hooksPath", loopVar("--get")).because("loop variable"), // the value from the loop
		r("git", "config", "get", "core.x", "--all").because(why),                       // after the verb's name
		r("git", "grep", "foo", "-n").because(why),                                      // git grep: fatal, must come before
		r("git", "grep", "-e", "foo", "HEAD", "--cached").because(why),                  // -e's value is skipped
	)
	check(t, true,
		r("git", "config", "--get", "core.hooksPath"),
		r("git", "config", "--bool", "--get", "core.bare"),
		r("git", "config", "--type", "bool", "--get", "core.filemode"),
		r("git", "config", "-z", "--get-all", "remote.origin.fetch"),
		r("git", "config", "--show-origin", "--get", "user.name"),
		r("git", "config", "--worktree", "--get", "core.sparseCheckout"),
		r("git", "config", "core.hooksPath"),
		r("git", "config", "get", "--all", "core.hooksPath"),
		r("git", "grep", "-n", "foo", "--", "x"),
		r("git", "grep", "-n", "foo", "HEAD", "--", "*.go"),
	)
}

// TestGitStatusVerbose: status -v prints the staged diff with textconv on, and status has no
// --no-textconv to inject (TestGitStatusVerboseRealGit in hook runs it).
func TestGitStatusVerbose(t *testing.T) {
	const why = "textconv drivers"
	check(t, false,
		r("git", "status", "-v").because(why),              // runs diff.<driver>.textconv
		r("git", "status", "-vv").because(why),             // and on the unstaged diff too
		r("git", "status", "-sv").because(why),             // in a cluster
		r("git", "status", "--verbose").because(why),       // long form
		r("git", "status", "--verb").because(why),          // an abbreviation git accepts
		r("git", "-C", "sub", "status", "-v").because(why), // in another repository
	)
}

// TestGitDescribeDirty: describe --dirty writes .git/index even with --no-optional-locks
// (TestGitFilterDriversRealGit in hook measures it); --broken does not.
func TestGitDescribeDirty(t *testing.T) {
	check(t, false,
		r("git", "describe", "--dirty").because("rewrites .git/index"),
		r("git", "describe", "--always", "--dirty=-x").because("rewrites .git/index"),
		r("git", "describe", "--dirt").because("rewrites .git/index"),
	)
	check(t, true, r("git", "describe", "--always", "--broken"))
}

// TestGitSubmoduleDiff: --submodule=diff runs a child git diff in each submodule without
// --no-ext-diff or --no-textconv (TestGitSubmoduleDiffRealGit in hook runs it).
func TestGitSubmoduleDiff(t *testing.T) {
	const why = "inside each submodule"
	check(t, false,
		r("git", "diff", "--submodule=diff").because(why),
		r("git", "diff", "--cached", "--submodule=diff").because(why),
		r("git", "log", "-p", "--submodule=diff").because(why),
		r("git", "show", "--submodule=diff").because(why),
		r("git", "diff-tree", "-p", "--submodule=diff", "HEAD").because(why),
		r("git", "stash", "show", "-p", "--submodule=diff").because(why),
		r("git", "reflog", "-p", "--submodule=diff").because(why),
	)
	check(t, true,
		r("git", "diff", "--submodule"),
		r("git", "diff", "--submodule=log"),
		r("git", "log", "-p", "--submodule=short"),
	)
}

// TestGitSortDescending: git's --sort takes the next word whatever it starts with, so `--sort
// -committerdate` is one option and its value (measured on git 2.39); only a reversed key is
// accepted there, never something that reads as another option.
func TestGitSortDescending(t *testing.T) {
	check(t, true,
		r("git", "branch", "--sort", "-committerdate"),
		r("git", "branch", "-a", "--sort", "-committerdate", "--format", pat("%(refname:short)")),
		r("git", "tag", "--sort", "-version:refname"),
		r("git", "for-each-ref", "--sort", "-creatordate", "--count", "5", "refs/tags"),
		r("git", "branch", "--sort=-committerdate"),
	)
	check(t, false,
		r("git", "branch", "--sort", "--output=x").because("writes to a file"),          // the dangers scan sees every word
		r("git", "branch", "--sort", "--list").because("may not start with `-`"),        // a long option is never a value
		r("git", "branch", "--sort", "-c").because("may not start with `-`"),            // nor a short one (one letter)
		r("git", "branch", "--sort", "-a;b").because("may not start with `-`"),          // only key characters
		r("git", "branch", "--sort", loopVar("-refname")).because("may not start"),      // a loop word as a value
		r("git", "log", "--author", "-committerdate").because("may not start with `-`"), // only --sort takes a dash value
		r("git", "branch", "--sort", "-signature").because("runs gpg"),                  // the key is still checked
	)
}
