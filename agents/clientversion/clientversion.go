// Package clientversion learns which version of a coding agent runs a hook, and judges it by
// the organisation's policy (the managed file's [clients] table): a client with a known
// fail-open hook bug is refused with a reason.
//
// No client puts its version in a hook's payload, and an environment variable is whatever the
// user's shell exported. What the hook can see that the client cannot choose is its ancestry:
// the kernel says which executable each ancestor runs (/proc/PID/exe). Every client here ships
// as an npm package whose package.json, beside that executable or the script node runs, names
// the package and its version; Claude Code also installs natively, as an executable whose path
// names its version (~/.local/share/claude/versions/2.1.90). The version is as trustworthy as the client's installation: one a
// user owns, the user can edit (docs/fleet.md says to install clients root-owned).
//
// Threat model: the payload and the environment are not trusted; a process that is not the
// client (a shell, a wrapper) is passed over; a version that cannot be learned is an answer
// ("unknown"), which the policy refuses wherever it asks for a check.
package clientversion

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/hookctl/hookctl/internal/fsutil"
)

// Rule is one client's entry in the policy's [clients] table.
type Rule struct {
	// MinVersion is the oldest version allowed.
	MinVersion string `toml:"min_version"`
	// Refuse are versions refused whatever MinVersion says, each with the reason the user is
	// told (the bug, the advisory).
	Refuse map[string]string `toml:"refuse"`
}

// clients are, per client (hookctl hook --agent NAME; claude by default), its name as users
// read it, its command (which Installed looks for on the PATH; none for an editor) and the npm
// packages whose package.json carries its version: the package users install, and the platform
// packages that hold a native executable. A slice, not a map: nothing is built at start-up in
// every hook process.
//
// layouts are the client's installs outside npm whose executable's path names its version:
// the path's last elements, "*" standing for the version.
var clients = []struct {
	agent, name, bin string
	packages         []string
	layouts          [][]string
}{
	{"claude", "Claude Code", "claude", []string{"@anthropic-ai/claude-code", "@anthropic-ai/claude-code-linux-x64", "@anthropic-ai/claude-code-linux-arm64", "@anthropic-ai/claude-code-linux-x64-musl", "@anthropic-ai/claude-code-linux-arm64-musl"},
		[][]string{
			{"claude", "versions", "*"},                       // the native installer: ~/.local/share/claude/versions/2.1.90
			{"Caskroom", "claude-code", "*", "claude"},        // Homebrew's cask
			{"Caskroom", "claude-code@latest", "*", "claude"}, // and its latest channel
		}},
	{"codex", "Codex", "codex", []string{"@openai/codex"}, nil},
	{"gemini", "Gemini CLI", "gemini", []string{"@google/gemini-cli"}, nil},
	{"qwen", "Qwen Code", "qwen", []string{"@qwen-code/qwen-code"}, nil},
	{"copilot", "Copilot CLI", "copilot", []string{"@github/copilot"}, nil},
	{"cursor", "Cursor", "", nil, nil}, // an editor, not an npm package: its version is not learned here
}

// client is the row of agent, or false.
func client(agent string) (name, bin string, packages []string, ok bool) {
	for _, c := range clients {
		if c.agent == agent {
			return c.name, c.bin, c.packages, true
		}
	}
	return "", "", nil, false
}

// layoutVersion is the version that exe's path names in one of agent's layouts.
func layoutVersion(agent, exe string) (string, bool) {
	real, err := filepath.EvalSymlinks(exe)
	if err != nil {
		return "", false
	}
	elems := strings.Split(real, string(filepath.Separator))
	for _, c := range clients {
		if c.agent != agent {
			continue
		}
		for _, l := range c.layouts {
			if v, ok := matchLayout(l, elems); ok {
				return v, true
			}
		}
	}
	return "", false
}

// matchLayout is the version where the last elements of path match layout.
func matchLayout(layout, path []string) (string, bool) {
	if len(path) < len(layout) {
		return "", false
	}
	tail, version := path[len(path)-len(layout):], ""
	for i, e := range layout {
		if e == "*" {
			version = tail[i]
		} else if e != tail[i] {
			return "", false
		}
	}
	_, err := Parse(version)
	return version, err == nil
}

// Name is the client's name as users read it ("" for an unknown one).
func Name(agent string) string {
	name, _, _, _ := client(agent)
	return name
}

// Installed is the version of client agent that the PATH leads to (for hookctl doctor: a hook
// learns the one that runs it, with Learn).
func Installed(agent string) (Found, error) {
	_, bin, pkgs, ok := client(agent)
	ok = ok && bin != ""
	if !ok {
		return Found{}, fmt.Errorf("hookctl cannot learn %s's version on this machine", Name(agent))
	}
	p, err := exec.LookPath(bin)
	if err != nil {
		return Found{}, fmt.Errorf("%s is not on the PATH", bin)
	}
	if v, src, ok := packageVersion(p, pkgs); ok {
		return Found{Version: v, Source: src}, nil
	}
	if v, ok := layoutVersion(agent, p); ok {
		return Found{Version: v, Source: p}, nil
	}
	return Found{}, fmt.Errorf("%s is in no package of %s, nor an install that names its version", p, strings.Join(pkgs, ", "))
}

// Found is a client's version and where it was read.
type Found struct {
	Version string
	Source  string // the package.json
	PID     int    // the client's process
}

// maxAncestors bounds the walk up: the client is the hook's parent or a few shells above it.
const maxAncestors = 16

// Learn finds the version of client agent that runs this process: the nearest ancestor whose
// executable, or a script on its command line, lies in one of the client's packages.
func Learn(agent string) (Found, error) {
	return learn(agent, "/proc", os.Getppid())
}

func learn(agent, proc string, pid int) (Found, error) {
	_, _, pkgs, ok := client(agent)
	if !ok {
		return Found{}, fmt.Errorf("unknown client %q", agent)
	}
	if len(pkgs) == 0 {
		return Found{}, fmt.Errorf("hookctl cannot learn %s's version on this machine", Name(agent))
	}
	for i := 0; i < maxAncestors && pid > 1; i++ {
		dir := filepath.Join(proc, strconv.Itoa(pid))
		var candidates []string
		if exe, err := os.Readlink(filepath.Join(dir, "exe")); err == nil {
			exe = strings.TrimSuffix(exe, " (deleted)")
			// Only the executable, not a script named on a command line: any process may name
			// a path, but the kernel says which file a process runs.
			if v, ok := layoutVersion(agent, exe); ok {
				return Found{Version: v, Source: exe, PID: pid}, nil
			}
			candidates = append(candidates, exe)
		}
		if b, err := os.ReadFile(filepath.Join(dir, "cmdline")); err == nil {
			// node SCRIPT …: the script is among the first few arguments (after node's own flags).
			args := strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
			for j := 1; j < len(args) && j < 6; j++ {
				if filepath.IsAbs(args[j]) {
					candidates = append(candidates, args[j])
				}
			}
		}
		for _, c := range candidates {
			if v, src, ok := packageVersion(c, pkgs); ok {
				return Found{Version: v, Source: src, PID: pid}, nil
			}
		}
		next, err := parent(dir)
		if err != nil {
			break
		}
		pid = next
	}
	return Found{}, fmt.Errorf("no process above this hook runs %s from its npm package (%s) or a native install", Name(agent), pkgs[0])
}

// parent is the parent pid in /proc/PID/stat (after the command name, which may hold anything).
func parent(dir string) (int, error) {
	b, err := os.ReadFile(filepath.Join(dir, "stat"))
	if err != nil {
		return 0, err
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, errors.New("malformed stat")
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 2 {
		return 0, errors.New("malformed stat")
	}
	return strconv.Atoi(f[1])
}

// withoutPlatform is v without the suffix Codex's platform packages version themselves with
// (0.169.0-linux-x64, -darwin-arm64, -linux-x64-musl).
func withoutPlatform(v string) string {
	base := strings.TrimSuffix(v, "-musl")
	for _, system := range []string{"linux", "darwin", "win32"} {
		for _, arch := range []string{"x64", "arm64"} {
			if s := "-" + system + "-" + arch; strings.HasSuffix(base, s) {
				return strings.TrimSuffix(base, s)
			}
		}
	}
	return v
}

// packageVersion finds the package.json above path (its links resolved) whose name is one of
// pkgs, and its version.
func packageVersion(path string, pkgs []string) (version, source string, ok bool) {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", "", false
	}
	for d := filepath.Dir(real); d != filepath.Dir(d); d = filepath.Dir(d) {
		if filepath.Base(d) == "node_modules" {
			return "", "", false // left the package without finding it
		}
		b, err := fsutil.ReadFile(filepath.Join(d, "package.json"), 1<<20, false)
		if err != nil {
			continue
		}
		var pj struct{ Name, Version string }
		if json.Unmarshal(b, &pj) != nil || !slices.Contains(pkgs, pj.Name) {
			continue
		}
		v := withoutPlatform(pj.Version)
		if _, err := Parse(v); err != nil {
			return "", "", false
		}
		return v, filepath.Join(d, "package.json"), true
	}
	return "", "", false
}

// Version is a dotted numeric version, with an optional pre-release after '-', which sorts
// before the release it precedes.
type Version struct {
	nums []int
	pre  string
}

// Parse reads "1.2.3", "v1.2.3" or "1.2.3-rc.1".
func Parse(s string) (Version, error) {
	t := strings.TrimPrefix(s, "v")
	t, pre, _ := strings.Cut(t, "-")
	var v Version
	for _, p := range strings.Split(t, ".") {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 || p == "" {
			return Version{}, fmt.Errorf("%q is not a version (digits and dots, such as 2.1.77)", s)
		}
		v.nums = append(v.nums, n)
	}
	v.pre = pre
	return v, nil
}

// Compare is -1, 0 or 1 as a is older than, the same as, or newer than b.
func Compare(a, b Version) int {
	for i := 0; i < max(len(a.nums), len(b.nums)); i++ {
		var x, y int
		if i < len(a.nums) {
			x = a.nums[i]
		}
		if i < len(b.nums) {
			y = b.nums[i]
		}
		if x != y {
			if x < y {
				return -1
			}
			return 1
		}
	}
	switch {
	case a.pre == b.pre:
		return 0
	case a.pre == "":
		return 1
	case b.pre == "":
		return -1
	case a.pre < b.pre:
		return -1
	}
	return 1
}

// Validate checks a policy's versions: each parses, and each client is one hookctl knows.
func Validate(minHookctl string, clients map[string]Rule) error {
	if minHookctl != "" {
		if _, err := Parse(minHookctl); err != nil {
			return fmt.Errorf("min_hookctl_version: %v", err)
		}
	}
	for name, r := range clients {
		if _, _, _, ok := client(name); !ok {
			return fmt.Errorf("clients.%s: no such client (claude, codex, gemini, qwen, copilot, cursor)", name)
		}
		if r.MinVersion != "" {
			if _, err := Parse(r.MinVersion); err != nil {
				return fmt.Errorf("clients.%s.min_version: %v", name, err)
			}
		}
		for v := range r.Refuse {
			if _, err := Parse(v); err != nil {
				return fmt.Errorf("clients.%s.refuse: %v", name, err)
			}
		}
	}
	return nil
}

// CheckHookctl says why this hookctl (version) may not answer under a policy that sets min, or
// "". policy names the policy for the user ("your organisation's policy (/etc/hookctl/config.toml)").
func CheckHookctl(version, min, policy string) string {
	if min == "" {
		return ""
	}
	m, _ := Parse(min)
	v, err := Parse(version)
	switch {
	case err != nil:
		return fmt.Sprintf("%s requires hookctl %s or newer, and this hookctl's version (%s) cannot be compared with it: every tool call is refused until hookctl is upgraded", policy, min, version)
	case Compare(v, m) < 0:
		return fmt.Sprintf("this hookctl (%s) is older than %s, the oldest %s allows: every tool call is refused until hookctl is upgraded", version, min, policy)
	}
	return ""
}

// Check says why client agent, found as f (or not found: err), may not run under rule r of the
// policy named policy (as CheckHookctl's), or "".
func Check(agent string, r Rule, f Found, err error, policy string) string {
	name := Name(agent)
	if err != nil {
		return fmt.Sprintf("%s allows only some versions of %s, and hookctl cannot learn which one runs this hook: %v; every tool call is refused until it can (hookctl doctor says more)", policy, name, err)
	}
	v, _ := Parse(f.Version)
	for bad, why := range r.Refuse {
		if b, _ := Parse(bad); Compare(v, b) == 0 {
			return fmt.Sprintf("%s %s is refused by %s: %s; upgrade %s (found %s)", name, f.Version, policy, why, name, f.Source)
		}
	}
	if r.MinVersion != "" {
		if m, _ := Parse(r.MinVersion); Compare(v, m) < 0 {
			return fmt.Sprintf("%s %s is older than %s, the oldest %s allows; upgrade %s (found %s)", name, f.Version, r.MinVersion, policy, name, f.Source)
		}
	}
	return ""
}
