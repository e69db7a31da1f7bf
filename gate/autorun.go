package gate

import (
	"bufio"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hookctl/hookctl/internal/fsutil"
	"github.com/hookctl/hookctl/internal/gitrepo"
	"github.com/hookctl/hookctl/policy"
)

// autoRunFiles are the well-known files that a tool runs, or takes commands from, when the
// user opens the project or runs that tool in it, at the project's top (and its work tree's).
var autoRunFiles = []struct{ name, what string }{
	{".envrc", "direnv runs it when a shell enters the directory"},
	{".vscode", "VS Code runs its tasks (runOn: folderOpen) and the commands its settings name"},
	{".devcontainer", "dev containers run its lifecycle commands"},
	{".devcontainer.json", "dev containers run its lifecycle commands"},
	{".idea", "JetBrains IDEs run its run configurations and startup tasks"},
	{".mcp.json", "Claude Code starts the MCP servers it names"},
	{".npmrc", "npm takes node-options and script-shell from it"},
	{".yarnrc", "yarn takes its settings from it"},
	{".yarnrc.yml", "yarn runs its yarnPath and plugins"},
	{".pnpmfile.cjs", "pnpm runs it on every install"},
	{".mise.toml", "mise runs its hooks when a shell enters the directory"},
	{"mise.toml", "mise runs its hooks when a shell enters the directory"},
	{".pre-commit-config.yaml", "pre-commit runs its hooks on git commit"},
	{"lefthook.yml", "lefthook runs it from git's hooks"},
	{".lefthook.yml", "lefthook runs it from git's hooks"},
	{".husky", "husky's git hooks"},
	{".nvim.lua", "Neovim runs it when it opens the directory (exrc)"},
	{".exrc", "Vim and Neovim run it when they open the directory (exrc)"},
	{".gdbinit", "gdb runs it"},
	{".lldbinit", "lldb runs it"},
}

// gitCodeFiles are the entries of a git directory whose content git runs, or takes commands
// from: hooks; config (aliases, core.fsmonitor, core.pager, filters, core.hooksPath); info
// (attributes that pick the config's drivers); a worktree's own config and the links that
// name the common directory.
var gitCodeFiles = []struct{ name, what string }{
	{"hooks", "git runs its hooks on commit, checkout, merge and push"},
	{"config", "git runs its aliases, core.fsmonitor, pager, editor and filters"},
	{"config.worktree", "git runs its aliases, core.fsmonitor, pager, editor and filters"},
	{"info", "git reads attributes there that pick the config's filters and diff drivers"},
	{"commondir", "it names the repository whose config and hooks git uses"},
}

// AutoRun lists the auto-run paths of the project: git's code-running files for the repository
// at or above it (its git directory, its common directory, its submodules'), the files git's
// config (the repository's and the user's) points at (core.hooksPath, core.fsmonitor,
// include.path), and autoRunFiles at the project's top and at the work tree's. writable (the
// config's edit_auto_run_writable: relative to the project, or absolute) takes paths out.
// GitDirs are the repository's git directories (the sandbox anchors them).
func AutoRun(project, userHome string, writable []string) (paths []policy.AutoRunPath, gitDirs []string) {
	project = filepath.Clean(project)
	add := func(path, what string) {
		path = filepath.Clean(path)
		key := path
		if rel, err := filepath.Rel(project, path); err == nil && !strings.HasPrefix(rel, "..") {
			key = rel
		}
		for _, w := range writable {
			if !filepath.IsAbs(w) {
				w = filepath.Join(project, w)
			}
			if fsutil.Within(path, filepath.Clean(w)) {
				return
			}
		}
		if !slices.ContainsFunc(paths, func(a policy.AutoRunPath) bool { return a.Path == path }) {
			paths = append(paths, policy.AutoRunPath{Path: path, What: what, Key: key})
		}
	}
	tops := []string{project}
	top, gitDir, common, ok := gitLayout(project)
	if ok {
		if top != project {
			tops = append(tops, top)
		}
		if fi, err := os.Lstat(filepath.Join(top, ".git")); err == nil && !fi.IsDir() {
			add(filepath.Join(top, ".git"), "it names the git directory, and so the hooks and config, git uses")
		}
		for _, d := range []string{gitDir, common} {
			if !slices.Contains(gitDirs, d) {
				gitDirs = append(gitDirs, d)
			}
			for _, f := range gitCodeFiles {
				add(filepath.Join(d, f.name), f.what)
			}
		}
		for _, m := range submoduleGitDirs(filepath.Join(common, "modules"), 4) {
			for _, f := range gitCodeFiles {
				add(filepath.Join(m, f.name), f.what)
			}
		}
		configs := []string{filepath.Join(common, "config"), filepath.Join(gitDir, "config.worktree"), "/etc/gitconfig"}
		if userHome != "" {
			xdg := os.Getenv("XDG_CONFIG_HOME")
			if !filepath.IsAbs(xdg) {
				xdg = filepath.Join(userHome, ".config")
			}
			configs = append(configs, filepath.Join(userHome, ".gitconfig"), filepath.Join(xdg, "git", "config"))
		}
		seen := map[string]bool{}
		for _, c := range configs {
			gitConfigPointers(c, top, userHome, seen, 0, add)
		}
	}
	for _, t := range tops {
		for _, f := range autoRunFiles {
			add(filepath.Join(t, f.name), f.what)
		}
	}
	return paths, gitDirs
}

// gitLayout finds the repository at or above dir: its work tree's top, its git directory and
// its common directory.
func gitLayout(dir string) (top, gitDir, common string, ok bool) {
	gitDir, common, ok = gitrepo.Dirs(dir)
	if !ok {
		return "", "", "", false
	}
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d, filepath.Clean(gitDir), filepath.Clean(common), true
		}
		if d == filepath.Dir(d) {
			return "", "", "", false
		}
	}
}

// submoduleGitDirs are the git directories beneath modules (a submodule's, nested ones too):
// directories holding a HEAD.
func submoduleGitDirs(modules string, depth int) []string {
	entries, err := os.ReadDir(modules)
	if err != nil || depth == 0 {
		return nil
	}
	var out []string
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		d := filepath.Join(modules, e.Name())
		if _, err := os.Stat(filepath.Join(d, "HEAD")); err == nil {
			out = append(out, d)
			out = append(out, submoduleGitDirs(filepath.Join(d, "modules"), depth-1)...)
			continue
		}
		out = append(out, submoduleGitDirs(d, depth-1)...) // a submodule named a/b
	}
	return out
}

// gitConfigPointers adds the files the git config file at path points git at to run them:
// core.hooksPath (relative to the work tree's top), core.fsmonitor when it names a program
// rather than true or false, and the files include.path and includeIf.*.path bring in
// (relative to the including file), read in their turn.
func gitConfigPointers(path, top, userHome string, seen map[string]bool, depth int, add func(path, what string)) {
	if seen[path] || depth > 10 {
		return
	}
	seen[path] = true
	b, err := fsutil.ReadFile(path, gitrepo.MaxConfig, false)
	if err != nil {
		return
	}
	expand := func(v, base string) string {
		switch {
		case v == "~" || strings.HasPrefix(v, "~/"):
			if userHome == "" {
				return ""
			}
			return filepath.Join(userHome, v[1:])
		case filepath.IsAbs(v):
			return v
		}
		return filepath.Join(base, v)
	}
	for _, kv := range gitConfigEntries(string(b)) {
		switch {
		case kv[0] == "core.hookspath":
			if p := expand(kv[1], top); p != "" {
				add(p, "git runs the hooks there (core.hooksPath in "+path+")")
			}
		case kv[0] == "core.fsmonitor":
			switch strings.ToLower(kv[1]) {
			case "", "true", "false", "yes", "no", "on", "off", "1", "0":
				continue
			}
			if p := expand(kv[1], top); p != "" {
				add(p, "git runs it on every status (core.fsmonitor in "+path+")")
			}
		case kv[0] == "include.path" || strings.HasPrefix(kv[0], "includeif.") && strings.HasSuffix(kv[0], ".path"):
			if p := expand(kv[1], filepath.Dir(path)); p != "" {
				add(p, "git reads it as config (an include in "+path+")")
				gitConfigPointers(p, top, userHome, seen, depth+1, add)
			}
		}
	}
}

// gitConfigEntries reads a git config file as section.[subsection.]key = value pairs, the
// section and key in lower case: enough of git's syntax for the keys gitConfigPointers needs
// (quoted values, comments, both subsection spellings).
func gitConfigEntries(text string) [][2]string {
	var out [][2]string
	section := ""
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(make([]byte, 4096), gitrepo.MaxConfig)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "[") {
			end := strings.LastIndexByte(line, ']')
			if end < 0 {
				continue
			}
			head := line[1:end]
			name, sub, quoted := strings.Cut(head, " ")
			name = strings.ToLower(strings.TrimSpace(name))
			if quoted {
				section = name + "." + strings.Trim(strings.TrimSpace(sub), `"`)
			} else {
				section = name
			}
			line = strings.TrimSpace(line[end+1:])
			if line == "" {
				continue
			}
		}
		if line == "" || line[0] == '#' || line[0] == ';' || section == "" {
			continue
		}
		key, value, ok := strings.Cut(line, "=")
		if !ok {
			value = "true"
		}
		out = append(out, [2]string{section + "." + strings.ToLower(strings.TrimSpace(key)), gitConfigValue(value)})
	}
	return out
}

// gitConfigValue is a value as git reads it: quotes removed, a comment after it dropped,
// backslash escapes undone.
func gitConfigValue(v string) string {
	var b strings.Builder
	quoted := false
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c == '"':
			quoted = !quoted
		case c == '\\' && i+1 < len(v):
			i++
			switch v[i] {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			default:
				b.WriteByte(v[i])
			}
		case (c == '#' || c == ';') && !quoted:
			return strings.TrimSpace(b.String())
		default:
			b.WriteByte(c)
		}
	}
	return strings.TrimSpace(b.String())
}
