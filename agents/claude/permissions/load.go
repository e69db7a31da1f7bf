package permissions

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/hookctl/hookctl/agents/claude"
	"github.com/hookctl/hookctl/internal/fsutil"
)

// Options says where the client's settings are, for one call.
type Options struct {
	Home string // the user's home directory
	// ConfigDir is CLAUDE_CONFIG_DIR, "" when unset: the user's settings and .claude.json are
	// there instead of under Home.
	ConfigDir string
	// Cwd is the session's working directory, as the call reports it.
	Cwd string
	// ManagedDir holds managed-settings.json and managed-settings.d (ManagedDir); "" reads none.
	ManagedDir string
	// Args is the client's command line after the program (argv[1:]); ArgsKnown says it was
	// read. Unknown, the rules of --allowedTools, --disallowedTools and --settings are missing,
	// and the Set says so.
	Args      []string
	ArgsKnown bool
	// ClientDir is the client's working directory, which a relative --settings path is under.
	ClientDir string
}

// ManagedDir is where Claude Code reads managed settings on this system: fixed, with no
// variable to move it (2.1.328, read in the binary).
func ManagedDir(goos string) string {
	switch goos {
	case "darwin":
		return "/Library/Application Support/ClaudeCode"
	case "windows":
		return `C:\Program Files\ClaudeCode`
	}
	return "/etc/claude-code"
}

// Set is every permission rule in force for one call, with what hookctl needs to judge the call
// as the client would.
type Set struct {
	rules []*Rule
	// held are allow rules the client holds until the workspace is trusted: not applied, but
	// named by WrapperRules.
	held []*Rule
	// dirs are the working directories: the session's and the additional ones, which
	// acceptEdits writes in without asking.
	dirs      []string
	cwd, home string
	// Problems say what could not be read, or what the client ignores, file by file.
	Problems []string
	// ArgsKnown says the client's command line was read.
	ArgsKnown bool
}

// Rules returns the rules in force, in the client's order of precedence.
func (s *Set) Rules() []*Rule { return s.rules }

// maxSettingsFile caps what is read of one settings file; the client's files are a few
// kilobytes. maxClaudeJSON caps ~/.claude.json, which keeps every project's history.
const (
	maxSettingsFile = 4 << 20
	maxClaudeJSON   = 64 << 20
)

// Load reads the rules in force for a session in o.Cwd from every scope the client reads, in
// its order of precedence (managed, command line, --settings, local, project, user). A file
// that cannot be read or that the client ignores is left out and named in Problems.
func Load(o Options) *Set {
	s := &Set{cwd: filepath.Clean(o.Cwd), home: o.Home, ArgsKnown: o.ArgsKnown}
	s.dirs = []string{s.cwd}
	cl := parseArgs(o.Args)
	sources := cl.sources // nil: all of user, project, local
	enabled := func(name string) bool { return sources == nil || slices.Contains(sources, name) }

	managedOnly := false
	if o.ManagedDir != "" {
		files := []string{filepath.Join(o.ManagedDir, "managed-settings.json")}
		dropIns, _ := filepath.Glob(filepath.Join(o.ManagedDir, "managed-settings.d", "*.json"))
		sort.Strings(dropIns)
		for _, f := range append(files, dropIns...) {
			if ps := s.readFile(f); ps != nil {
				managedOnly = managedOnly || ps.ManagedOnly
				s.add(ps, Source{Scope: ScopeManaged, Path: f, Root: s.cwd}, true)
			}
		}
	}
	if !o.ArgsKnown {
		s.Problems = append(s.Problems, "the client's command line could not be read: its --allowedTools, --disallowedTools and --settings are not applied")
	}
	if !managedOnly {
		for _, f := range cl.rules {
			s.add(&claude.PermissionSettings{Allow: f.allow, Deny: f.deny}, Source{Scope: ScopeCLI, Path: f.flag, Root: s.cwd}, true)
		}
	}
	for _, d := range cl.addDirs {
		s.dirs = append(s.dirs, absPath(d, orElse(o.ClientDir, s.cwd), o.Home))
	}
	if cl.settings != "" {
		var ps *claude.PermissionSettings
		src := Source{Scope: ScopeFlag, Path: "--settings", Root: orElse(o.ClientDir, s.cwd)}
		if v := strings.TrimSpace(cl.settings); strings.HasPrefix(v, "{") {
			var err error
			if ps, err = claude.ReadPermissions([]byte(v)); err != nil {
				s.Problems = append(s.Problems, "--settings: "+err.Error())
			}
		} else {
			f := absPath(v, orElse(o.ClientDir, s.cwd), o.Home)
			src.Path, src.Root = f, filepath.Dir(f)
			ps = s.readFile(f)
		}
		if ps != nil && !managedOnly {
			s.add(ps, src, true)
		}
	}

	root := gitRoot(s.cwd)
	userDir := filepath.Join(o.Home, ".claude")
	claudeJSON := filepath.Join(o.Home, ".claude.json")
	if filepath.IsAbs(o.ConfigDir) {
		userDir = filepath.Clean(o.ConfigDir)
		claudeJSON = filepath.Join(userDir, ".claude.json")
	}
	trusted := func() bool { return projectTrusted(claudeJSON, orElse(root, s.cwd)) }
	if enabled("local") && !managedOnly {
		dir := orElse(root, s.cwd)
		f := filepath.Join(dir, ".claude", "settings.local.json")
		if ps := s.readFile(f); ps != nil {
			// A local file in git, or under a linked .claude, is the repository's: its allow
			// rules wait for the user's trust, as the project's do.
			held := len(ps.Allow) > 0 && (linked(filepath.Join(dir, ".claude")) || root != "" && tracked(root, ".claude/settings.local.json")) && !trusted()
			s.add(ps, Source{Scope: ScopeLocal, Path: f, Root: s.cwd}, !held)
			if held {
				s.Problems = append(s.Problems, f+": its allow rules wait for the workspace's trust, as the client holds them (the file is in git or .claude is a link)")
			}
		}
	}
	if enabled("project") && !managedOnly {
		f := filepath.Join(s.cwd, ".claude", "settings.json")
		if ps := s.readFile(f); ps != nil {
			ok := len(ps.Allow) == 0 && len(ps.AdditionalDirectories) == 0 || trusted()
			s.add(ps, Source{Scope: ScopeProject, Path: f, Root: s.cwd}, ok)
			if !ok {
				s.Problems = append(s.Problems, f+": its allow rules and additional directories are not applied: the workspace has not been trusted (as the client ignores them)")
			}
		}
	}
	if enabled("user") && !managedOnly {
		f := filepath.Join(userDir, "settings.json")
		if ps := s.readFile(f); ps != nil {
			s.add(ps, Source{Scope: ScopeUser, Path: f, Root: userDir}, true)
		}
	}
	return s
}

// add appends one source's rules; without grant, its allow rules and directories are left out
// (a project the user has not trusted).
func (s *Set) add(ps *claude.PermissionSettings, src Source, grant bool) {
	for _, b := range []struct {
		list []string
		b    Behavior
	}{{ps.Deny, Deny}, {ps.Ask, Ask}, {ps.Allow, Allow}} {
		for i, t := range b.list {
			if strings.TrimSpace(t) == "" {
				continue
			}
			if b.b == Allow && !grant {
				s.held = append(s.held, parseRule(t, b.b, src, i))
				continue
			}
			s.rules = append(s.rules, parseRule(t, b.b, src, i))
		}
	}
	if grant {
		for _, d := range ps.AdditionalDirectories {
			s.dirs = append(s.dirs, absPath(d, s.cwd, s.home))
		}
	}
	if ps.Skipped > 0 {
		s.Problems = append(s.Problems, fmt.Sprintf("%s: %d permission entries are not strings, which the client skips", src.Path, ps.Skipped))
	}
}

// readFile reads one settings file's permissions; a missing file is nil without a problem.
func (s *Set) readFile(path string) *claude.PermissionSettings {
	b, err := fsutil.ReadFile(path, maxSettingsFile, false)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		s.Problems = append(s.Problems, path+": "+err.Error())
		return nil
	}
	ps, err := claude.ReadPermissions(b)
	if err != nil {
		s.Problems = append(s.Problems, path+": "+err.Error()+" (the client ignores this file)")
		return nil
	}
	return ps
}

// gitRoot is the repository that holds dir, through a worktree to its main checkout, or "".
func gitRoot(dir string) string {
	for d := dir; ; d = filepath.Dir(d) {
		fi, err := os.Lstat(filepath.Join(d, ".git"))
		if err == nil {
			if fi.IsDir() {
				return d
			}
			if main := worktreeMain(filepath.Join(d, ".git")); main != "" {
				return main
			}
			return d
		}
		if d == filepath.Dir(d) {
			return ""
		}
	}
}

// worktreeMain follows a worktree's .git file (gitdir: …) and its commondir to the main
// checkout; "" when it cannot.
func worktreeMain(gitFile string) string {
	b, err := fsutil.ReadFile(gitFile, 4096, true)
	if err != nil {
		return ""
	}
	gd, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:")
	if !ok {
		return ""
	}
	gd = strings.TrimSpace(gd)
	if !filepath.IsAbs(gd) {
		gd = filepath.Join(filepath.Dir(gitFile), gd)
	}
	c, err := fsutil.ReadFile(filepath.Join(gd, "commondir"), 4096, true)
	if err != nil {
		return ""
	}
	common := strings.TrimSpace(string(c))
	if !filepath.IsAbs(common) {
		common = filepath.Join(gd, common)
	}
	if filepath.Base(filepath.Clean(common)) != ".git" {
		return ""
	}
	return filepath.Dir(filepath.Clean(common))
}

// projectTrusted reports whether the user accepted the workspace trust dialog for dir, as
// ~/.claude.json records it (projects[dir].hasTrustDialogAccepted).
func projectTrusted(claudeJSON, dir string) bool {
	b, err := fsutil.ReadFile(claudeJSON, maxClaudeJSON, false)
	if err != nil || !gjson.ValidBytes(b) {
		return false
	}
	projects := gjson.GetBytes(b, "projects")
	trusted := false
	projects.ForEach(func(k, v gjson.Result) bool {
		if filepath.Clean(k.String()) == dir {
			trusted = v.Get("hasTrustDialogAccepted").Bool()
			return false
		}
		return true
	})
	return trusted
}

// linked reports whether p is a symbolic link.
func linked(p string) bool {
	fi, err := os.Lstat(p)
	return err == nil && fi.Mode()&fs.ModeSymlink != 0
}

// tracked reports whether git's index lists rel: its path, NUL-terminated, stands in the index
// (version 2 and 3 name each entry in full). An index that cannot be read, or of version 4
// (whose paths are compressed), counts as tracking it, so that its allow rules wait for trust.
func tracked(root, rel string) bool {
	f, err := os.Open(filepath.Join(root, ".git", "index"))
	if errors.Is(err, fs.ErrNotExist) {
		return false
	}
	if err != nil {
		return true
	}
	defer f.Close()
	var head [8]byte
	if _, err := io.ReadFull(f, head[:]); err != nil || string(head[:4]) != "DIRC" || head[7] > 3 || head[4]|head[5]|head[6] != 0 {
		return true
	}
	want := append([]byte(rel), 0)
	buf := make([]byte, 256<<10)
	keep := 0
	for {
		n, err := f.Read(buf[keep:])
		chunk := buf[:keep+n]
		if bytes.Contains(chunk, want) {
			return true
		}
		if err == io.EOF {
			return false
		}
		if err != nil {
			return true
		}
		keep = min(len(want), len(chunk))
		copy(buf, chunk[len(chunk)-keep:])
	}
}

func orElse(s, otherwise string) string {
	if s == "" {
		return otherwise
	}
	return s
}

// ClientCommandLine reads the command line and working directory of process pid, the hook's
// parent, when isClient confirms it is the client (Claude Code: CLAUDE_PID). ok is false where
// it cannot be read (no /proc, another parent).
func ClientCommandLine(pid int, isClient func(int) bool) (args []string, dir string, ok bool) {
	if pid <= 1 || isClient == nil || !isClient(pid) {
		return nil, "", false
	}
	p := "/proc/" + strconv.Itoa(pid)
	b, err := fsutil.ReadFile(p+"/cmdline", 1<<20, true)
	if err != nil || len(b) == 0 {
		return nil, "", false
	}
	argv := strings.Split(strings.TrimSuffix(string(b), "\x00"), "\x00")
	dir, _ = os.Readlink(p + "/cwd")
	return argv[1:], dir, true
}

// WrapperRules are the Bash rules that name hookctl's own rewrite rather than a command: what
// Claude Code's "don't ask again" saved when hookctl left a rewritten call to the client's
// prompt (2.1.328 offered "…/hookctl sandbox *"). hookctl decides every rewritten call itself,
// so such a rule approves nothing while hookctl runs; it is named so that the user removes it
// (one the client holds until the workspace is trusted too).
func (s *Set) WrapperRules(binary string) []*Rule {
	var out []*Rule
	for _, r := range append(append([]*Rule(nil), s.rules...), s.held...) {
		if r.Tool != "Bash" || r.Content == "" {
			continue
		}
		first, rest, _ := strings.Cut(strings.TrimSpace(r.Content), " ")
		whole := strings.HasSuffix(first, ":*") || strings.HasSuffix(first, "*") || rest == "" || strings.HasPrefix(rest, "*")
		first = strings.TrimRight(strings.TrimSuffix(first, ":*"), "*")
		if (first == binary || filepath.Base(first) == "hookctl") &&
			(whole || strings.HasPrefix(rest, "sandbox") || strings.HasPrefix(rest, "retrieve")) {
			out = append(out, r)
		}
	}
	return out
}
