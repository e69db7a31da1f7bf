package gitrepo

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Git's filter drivers (filter.<name>.clean, .smudge, .process) run whenever git hashes a work
// tree file (status, diff), and nothing pins them off without their names, which only the
// configuration knows (docs/residual-risks.md). hookctl's launcher knows them: it reads the
// configuration of the repository it starts in (and its submodules' and includes') and gives
// the command an empty command for each driver defined there, in GIT_CONFIG_* variables, which
// outrank every file and reach every git the command starts. A driver the user's own
// configuration defines alike (git lfs install's) is the user's, and stays.

// maxFilterConfigs bounds the configuration files read for filter names.
const maxFilterConfigs = 64

// configPatterns are compiled on first use: the hook process must build nothing at start-up.
func configPatterns() (section, include *regexp.Regexp) {
	gitConfigRe.once.Do(func() {
		gitConfigRe.section = regexp.MustCompile(`(?mi)^\s*\[\s*filter(?:\s+"((?:[^"\\]|\\.)+)"|\.([^\]\s]+))\s*\]`)
		gitConfigRe.include = regexp.MustCompile(`(?mi)^\s*path\s*=\s*(\S.*?)\s*$`)
	})
	return gitConfigRe.section, gitConfigRe.include
}

var gitConfigRe struct {
	once             sync.Once
	section, include *regexp.Regexp
}

// FilterPins are the environment entries that turn off the filter drivers the repository at or
// above dir defines and home's configuration does not define alike: GIT_CONFIG_COUNT and a key and
// an empty value for each driver's clean, smudge and process.
func FilterPins(dir, home string) []string {
	gitDir := findGitDir(dir)
	if gitDir == "" {
		return nil
	}
	var files []string
	files = append(files, filepath.Join(gitDir, "config"), filepath.Join(gitDir, "config.worktree"))
	filepath.WalkDir(filepath.Join(gitDir, "modules"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && d.Name() == "config" && len(files) < maxFilterConfigs {
			files = append(files, p)
		}
		return nil
	})
	repo := filterNames(files)
	var user []string
	if home != "" {
		user = filterNames([]string{filepath.Join(home, ".gitconfig"), filepath.Join(home, ".config", "git", "config")})
	}
	var env []string
	n := 0
	for _, name := range repo {
		if slices.Contains(user, name) {
			continue
		}
		for _, k := range []string{"clean", "smudge", "process"} {
			env = append(env, "GIT_CONFIG_KEY_"+strconv.Itoa(n)+"=filter."+name+"."+k, "GIT_CONFIG_VALUE_"+strconv.Itoa(n)+"=")
			n++
		}
	}
	if n == 0 {
		return nil
	}
	return append(env, "GIT_CONFIG_COUNT="+strconv.Itoa(n))
}

// findGitDir is the git directory of the repository at or above dir: a .git directory, or the one
// a .git file names.
func findGitDir(dir string) string {
	for d := dir; ; d = filepath.Dir(d) {
		g := filepath.Join(d, ".git")
		if fi, err := os.Stat(g); err == nil {
			if fi.IsDir() {
				return g
			}
			if b, err := os.ReadFile(g); err == nil && len(b) < 4096 {
				if gd, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:"); ok {
					gd = strings.TrimSpace(gd)
					if !filepath.IsAbs(gd) {
						gd = filepath.Join(d, gd)
					}
					return gd
				}
			}
			return ""
		}
		if d == filepath.Dir(d) || !filepath.IsAbs(d) {
			return ""
		}
	}
}

// filterNames are the filter drivers the configuration files define, following their includes.
func filterNames(files []string) []string {
	var names []string
	seen := map[string]bool{}
	for i := 0; i < len(files) && i < maxFilterConfigs; i++ {
		f := files[i]
		if seen[f] {
			continue
		}
		seen[f] = true
		b, err := os.ReadFile(f)
		if err != nil || len(b) > 1<<20 {
			continue
		}
		// Most configurations define no filter and include nothing: a substring search spares
		// the launcher compiling the patterns (issue 28).
		lower := strings.ToLower(string(b))
		if !strings.Contains(lower, "filter") && !strings.Contains(lower, "path") {
			continue
		}
		section, include := configPatterns()
		for _, m := range section.FindAllStringSubmatch(string(b), -1) {
			name := m[1] + m[2]
			name = strings.ReplaceAll(strings.ReplaceAll(name, `\"`, `"`), `\\`, `\`)
			if !slices.Contains(names, name) {
				names = append(names, name)
			}
		}
		for _, m := range include.FindAllStringSubmatch(string(b), -1) {
			p := strings.Trim(m[1], `"`)
			if !filepath.IsAbs(p) && !strings.HasPrefix(p, "~") {
				p = filepath.Join(filepath.Dir(f), p)
			}
			files = append(files, p)
		}
	}
	return names
}
