package securerun

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hookctl/hookctl/internal/secrets"
)

// passedEnv are the caller's variables the command gets, when they are set: the allowlist every
// sandboxed command shares (secrets.PassedEnv). None names or holds a credential
// (TestPassedEnvHoldsNoCredential).
var passedEnv = secrets.PassedEnv

// setEnv are the variables the profile sets itself: the home, the temporary directory and the
// XDG directories inside the run's output directory (the agent's own config and session
// state go there, fresh), and OutEnv naming where its artifacts go.
func setEnv(l Layout) []string {
	h := l.Home()
	return []string{"HOME=" + h, "TMPDIR=" + l.Tmp(), "XDG_CONFIG_HOME=" + filepath.Join(h, ".config"),
		"XDG_CACHE_HOME=" + filepath.Join(h, ".cache"), "XDG_DATA_HOME=" + filepath.Join(h, ".local", "share"),
		"XDG_STATE_HOME=" + filepath.Join(h, ".local", "state"), OutEnv + "=" + l.Artifacts()}
}

// CredentialKind says what a variable's name marks it as, or "" if nothing: the rules the
// sandbox's own allowlist shares (secrets.VariableKind).
func CredentialKind(name string) string { return secrets.VariableKind(name) }

// Environment is the command's environment as the preflight decided it: names only, never a
// value but the ones the profile sets.
type Environment struct {
	// Passed are the caller's variables of the allowlist that were set, Forwarded those the user
	// named with --env, Set those the profile sets (with their values: paths in the run).
	Passed    []string `json:"passed"`
	Forwarded []string `json:"forwarded"`
	Set       []string `json:"set"`
	// Withheld are the caller's variables that mark a credential, which the command does not
	// get; Dropped counts the others not on the allowlist.
	Withheld []string `json:"withheld"`
	Dropped  int      `json:"dropped"`
	// PATH is the command's search path: the caller's entries that lie within the readable
	// roots.
	PATH string `json:"path"`
}

// BuildEnv rebuilds the command's environment from caller (os.Environ form): passedEnv, then
// forward (--env NAME takes the caller's value, --env NAME=VALUE its own), then setEnv on top.
// PATH keeps only the entries within readable. A forwarded variable that marks a credential,
// or that the profile sets, is a failure naming it (never its value); so is one the caller has
// not set.
func BuildEnv(caller, forward []string, l Layout, readable []string) ([]string, Environment, []string) {
	var env []string
	var e Environment
	var failures []string
	values := map[string]string{}
	for _, kv := range caller {
		if name, value, ok := strings.Cut(kv, "="); ok && name != "" {
			values[name] = value
		}
	}
	set := setEnv(l)
	setName := func(name string) bool {
		return slices.ContainsFunc(set, func(kv string) bool { return strings.HasPrefix(kv, name+"=") })
	}
	for _, name := range passedEnv {
		v, ok := values[name]
		if !ok {
			continue
		}
		if name == "PATH" {
			v = searchPath(v, readable)
			e.PATH = v
		}
		env = append(env, name+"="+v)
		e.Passed = append(e.Passed, name)
	}
	if e.PATH == "" {
		e.PATH = searchPath("", readable)
		env = append(env, "PATH="+e.PATH)
	}
	for _, f := range forward {
		name, value, hasValue := strings.Cut(f, "=")
		if !hasValue {
			var ok bool
			if value, ok = values[name]; !ok {
				failures = append(failures, fmt.Sprintf("--env %s: it is not set in your environment", name))
				continue
			}
		}
		switch kind := CredentialKind(name); {
		case name == "" || strings.ContainsAny(name, "\x00"):
			failures = append(failures, "--env: an empty variable name")
		case kind != "":
			failures = append(failures, fmt.Sprintf("--env %s: %s; --credentials none forwards no credential to the command (its value was not read into the run)", name, kind))
		case setName(name) || slices.Contains(passedEnv, name):
			failures = append(failures, fmt.Sprintf("--env %s: the profile sets it itself", name))
		default:
			env = append(env, name+"="+value)
			e.Forwarded = append(e.Forwarded, name)
		}
	}
	for _, kv := range set {
		env = append(env, kv)
		e.Set = append(e.Set, kv)
	}
	for name := range values {
		switch {
		case slices.Contains(e.Passed, name) || slices.Contains(e.Forwarded, name):
		case CredentialKind(name) != "":
			e.Withheld = append(e.Withheld, name)
		default:
			e.Dropped++
		}
	}
	slices.Sort(e.Withheld)
	return env, e, failures
}

// systemPath is the search path when the caller's has no entry the command can read.
const systemPath = "/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin"

// searchPath keeps the absolute entries of path that lie within readable, in order, without
// repeats: an entry the sandbox cannot read only slows every lookup (and names a directory the
// user did not mean to open).
func searchPath(path string, readable []string) string {
	var keep []string
	for _, d := range filepath.SplitList(path) {
		d = filepath.Clean(d)
		if filepath.IsAbs(d) && !slices.Contains(keep, d) && slices.ContainsFunc(readable, func(r string) bool { return within(d, r) }) {
			keep = append(keep, d)
		}
	}
	if len(keep) == 0 {
		return systemPath
	}
	return strings.Join(keep, string(filepath.ListSeparator))
}

// within says whether path is dir or beneath it (both clean and absolute).
func within(path, dir string) bool {
	return path == dir || dir == "/" || strings.HasPrefix(path, dir+"/")
}
