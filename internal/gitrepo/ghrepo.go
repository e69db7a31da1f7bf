// Package gitrepo reads what hookctl needs of a git repository from its files, without running
// git (whose config can name programs): its config, its branch, the GitHub repository gh would
// read, and the filter drivers its config defines, which the read-only launcher pins off.
package gitrepo

import (
	"bufio"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/hookctl/hookctl/internal/fsutil"
)

// Which GitHub repository a gh read that names none would read. gh takes it from -R, then
// GH_REPO, then the current repository's git remotes; the retriever reads no files, so the hook,
// which can, reads the remotes and names the repository in the rewritten command. Runs in the
// hook process, before the policy (which does no I/O) asks for it.

// ProjectGitHubRepo is the repository gh would read for a project at or above dir: the remote
// named remote, or, for "", the one `gh repo set-default` chose (gh-resolved), else upstream,
// github, origin in that order, else the only remote. It is OWNER/REPO for github.com and
// HOST/OWNER/REPO for another host; "" when there is no such remote, it names no repository,
// or the git config cannot be read (the policy then refuses, asking for -R).
func ProjectGitHubRepo(dir, remote string) string {
	cfg, ok := Config(dir)
	if !ok {
		return ""
	}
	remotes, resolved := gitRemoteURLs(cfg)
	name := remote
	if name == "" {
		name = resolved
		for _, n := range []string{"upstream", "github", "origin"} {
			if _, ok := remotes[n]; name == "" && ok {
				name = n
			}
		}
		if name == "" && len(remotes) == 1 {
			for n := range remotes {
				name = n
			}
		}
	}
	u, ok := remotes[name]
	if !ok {
		return ""
	}
	return githubRepoOfURL(u)
}

// projectGitConfig reads the git config of the repository at or above dir (a worktree's or
// submodule's common directory's), capped at maxGitConfig.
func Config(dir string) (string, bool) {
	_, common, ok := Dirs(dir)
	if !ok {
		return "", false
	}
	b, err := fsutil.ReadFile(filepath.Join(common, "config"), MaxConfig, false)
	return string(b), err == nil
}

// ProjectBranch is the branch the HEAD of the repository (or worktree) at or above dir is on;
// "" when it is detached or cannot be read.
func ProjectBranch(dir string) string {
	gitDir, _, ok := Dirs(dir)
	if !ok {
		return ""
	}
	b, err := fsutil.ReadFile(filepath.Join(gitDir, "HEAD"), 4096, false)
	if err != nil {
		return ""
	}
	branch, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "ref: refs/heads/")
	if !ok {
		return ""
	}
	return branch
}

// projectGitDirs finds the git directory of the repository at or above dir — a worktree's or
// submodule's own, from its .git file's "gitdir: PATH" — and the common directory that holds
// its config (the commondir of a worktree).
func Dirs(dir string) (gitDir, common string, ok bool) {
	if dir == "" {
		return "", "", false
	}
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		gitDir := filepath.Join(d, ".git")
		if b, err := fsutil.ReadFile(gitDir, 4096, false); err == nil {
			rest, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir: ")
			if !ok {
				return "", "", false
			}
			if !filepath.IsAbs(rest) {
				rest = filepath.Join(d, rest)
			}
			common := rest
			if c, err := fsutil.ReadFile(filepath.Join(rest, "commondir"), 4096, false); err == nil {
				common = strings.TrimSpace(string(c))
				if !filepath.IsAbs(common) {
					common = filepath.Join(rest, common)
				}
			}
			return rest, common, true
		}
		if fi, err := os.Stat(gitDir); err == nil && fi.IsDir() {
			return gitDir, gitDir, true
		}
		if d == filepath.Dir(d) {
			return "", "", false
		}
	}
}

// gitRemoteURLs reads each remote's url (the first, as git fetches from it) and the remote gh
// resolved as the default (remote.NAME.gh-resolved = base).
func gitRemoteURLs(cfg string) (urls map[string]string, resolved string) {
	urls = map[string]string{}
	name := ""
	sc := bufio.NewScanner(strings.NewReader(cfg))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "[") {
			name = ""
			if rest, ok := strings.CutPrefix(line, `[remote "`); ok {
				name, _, _ = strings.Cut(rest, `"`)
			}
			continue
		}
		key, value, ok := strings.Cut(line, "=")
		if name == "" || !ok {
			continue
		}
		value = strings.Trim(strings.TrimSpace(value), `"`)
		switch strings.ToLower(strings.TrimSpace(key)) {
		case "url":
			if _, seen := urls[name]; !seen {
				urls[name] = value
			}
		case "gh-resolved":
			if value == "base" {
				resolved = name
			}
		}
	}
	return urls, resolved
}

// githubRepoOfURL reads OWNER/REPO (or HOST/OWNER/REPO) from a remote's URL: https://HOST/O/R,
// ssh://[user@]HOST/O/R or [user@]HOST:O/R, with an optional .git. Anything else is "".
func githubRepoOfURL(u string) string {
	var host, p string
	if strings.Contains(u, "://") {
		pu, err := url.Parse(u)
		if err != nil || pu.Scheme != "https" && pu.Scheme != "ssh" && pu.Scheme != "http" && pu.Scheme != "git" {
			return ""
		}
		host, p = pu.Hostname(), strings.TrimPrefix(pu.Path, "/")
	} else {
		h, rest, ok := strings.Cut(u, ":")
		if !ok || strings.Contains(h, "/") {
			return ""
		}
		if i := strings.LastIndexByte(h, '@'); i >= 0 {
			h = h[i+1:]
		}
		host, p = h, rest
	}
	parts := strings.Split(strings.TrimSuffix(strings.TrimSuffix(p, "/"), ".git"), "/")
	if host == "" || len(parts) != 2 || parts[0] == "" || parts[1] == "" {
		return ""
	}
	slug := parts[0] + "/" + parts[1]
	if strings.EqualFold(host, "github.com") || strings.EqualFold(host, "ssh.github.com") {
		return slug
	}
	return strings.ToLower(host) + "/" + slug
}

// MaxConfig caps a git config file as this package reads it.
const MaxConfig = 256 << 10
