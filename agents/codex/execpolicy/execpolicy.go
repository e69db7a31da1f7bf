// Package execpolicy is Codex's exec policy as hookctl applies it: the prefix_rule entries of the
// .rules files in every config layer Codex reads, matched against the command the model wrote.
//
// Why: Codex matches its rules against hookctl's rewrite (live, 0.169.0: with
// prefix_rule(pattern=["rm"], decision="forbidden") and ["touch","a1"] forbidden, hookctl's
// edit-mode rewrite ran both; without hookctl both were "rejected"). What: the rules are read
// from /etc/codex/rules, $CODEX_HOME/rules (~/.codex/rules) and, for a project Codex trusts, its
// .codex/rules; a command is split as Codex splits a `bash -lc` script (a linear chain of plain
// commands is judged command by command, anything else as one `bash -lc` invocation) and the
// strictest decision wins (forbidden, then prompt, then allow). forbidden refuses; prompt asks
// (which the Codex adapter words as a refusal: Codex does not honour a hook's ask); allow runs.
// As for Claude Code's rules, forbidden and prompt are also tried against each command's
// leading literal words in a script Codex would not split, and in a literal `sh -c` script.
//
// The .rules language is Starlark; this reads the part of it rule files are written in:
// prefix_rule(…) and host_executable(…) calls with string and list arguments, and comments. A
// file with anything else is not understood, and every rewritten shell command is refused
// until it is, naming the file: a rule hookctl cannot read is one it cannot keep.
//
// Out of scope: requirements.toml's managed prefix rules, and Codex's approval policy and
// sandbox when no rule decides (hookctl's own answer stands then).
//
// It runs in the hook process, and links no network code.
package execpolicy

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/hookctl/hookctl/agents/agentkit"
	"github.com/hookctl/hookctl/hook"
	"github.com/hookctl/hookctl/internal/clip"
	"github.com/hookctl/hookctl/internal/fsutil"
	"github.com/hookctl/hookctl/policy"
)

// Decision is what a rule decides, from the weakest.
type Decision uint8

const (
	None Decision = iota
	Allow
	Prompt
	Forbidden
)

func (d Decision) String() string {
	switch d {
	case Allow:
		return "allow"
	case Prompt:
		return "prompt"
	case Forbidden:
		return "forbidden"
	}
	return "none"
}

// Rule is one prefix_rule.
type Rule struct {
	// Pattern holds, for each position, the words that match there.
	Pattern       [][]string
	Decision      Decision
	Justification string
	File          string
	Line          int
}

// String is the rule as a reason quotes it.
func (r *Rule) String() string {
	var parts []string
	for _, alts := range r.Pattern {
		if len(alts) == 1 {
			parts = append(parts, fmt.Sprintf("%q", alts[0]))
		} else {
			parts = append(parts, fmt.Sprintf("%q", alts))
		}
	}
	return fmt.Sprintf("prefix_rule(pattern=[%s], decision=%q) in %s:%d", strings.Join(parts, ", "), r.Decision.String(), r.File, r.Line)
}

// matches reports whether the rule's pattern is a prefix of argv.
func (r *Rule) matches(argv []string) bool {
	if len(argv) < len(r.Pattern) || len(r.Pattern) == 0 {
		return false
	}
	for i, alts := range r.Pattern {
		ok := false
		for _, a := range alts {
			if argv[i] == a {
				ok = true
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

// Policy is the rules in force for one call.
type Policy struct {
	Rules []*Rule
	// Broken names the files that could not be read as rules: while there is one, every
	// rewritten shell command is refused.
	Broken []string
}

// Options says where Codex's config layers are.
type Options struct {
	CodexHome string // $CODEX_HOME, else ~/.codex
	Cwd       string // the session's directory
	System    string // "/etc/codex"; "" reads none
}

// Load reads the rules of every layer: the system's, the user's and, when Codex trusts the
// project, the project's .codex/rules in the directory and each one above it up to the
// repository's root.
func Load(o Options) *Policy {
	p := &Policy{}
	var dirs []string
	if o.System != "" {
		dirs = append(dirs, filepath.Join(o.System, "rules"))
	}
	if o.CodexHome != "" {
		dirs = append(dirs, filepath.Join(o.CodexHome, "rules"))
	}
	if root := projectRoot(o.Cwd); trusted(o.CodexHome, root, o.Cwd) {
		for d := filepath.Clean(o.Cwd); ; d = filepath.Dir(d) {
			dirs = append(dirs, filepath.Join(d, ".codex", "rules"))
			if d == root || d == filepath.Dir(d) || root == "" {
				break
			}
		}
	}
	for _, d := range dirs {
		files, _ := filepath.Glob(filepath.Join(d, "*.rules"))
		sort.Strings(files)
		for _, f := range files {
			b, err := fsutil.ReadFile(f, 1<<20, false)
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err != nil {
				p.Broken = append(p.Broken, f+": "+err.Error())
				continue
			}
			rules, err := Parse(f, string(b))
			if err != nil {
				p.Broken = append(p.Broken, err.Error())
				continue
			}
			p.Rules = append(p.Rules, rules...)
		}
	}
	return p
}

// projectRoot is the git repository holding dir, or "".
func projectRoot(dir string) string {
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		if d == filepath.Dir(d) {
			return ""
		}
	}
}

// trusted reports whether Codex's config.toml marks the project (its repository, or the
// directory) trust_level = "trusted".
func trusted(codexHome, root, cwd string) bool {
	b, err := fsutil.ReadFile(filepath.Join(codexHome, "config.toml"), 4<<20, false)
	if err != nil {
		return false
	}
	var cfg struct {
		Projects map[string]struct {
			TrustLevel string `toml:"trust_level"`
		} `toml:"projects"`
	}
	if _, err := toml.Decode(string(b), &cfg); err != nil {
		return false
	}
	for _, d := range []string{root, filepath.Clean(cwd)} {
		if d != "" && cfg.Projects[d].TrustLevel == "trusted" {
			return true
		}
	}
	return false
}

// Judge is what Codex would do with a shell call as the model wrote it (hook.ClientRules).
func (p *Policy) Judge(q policy.ClientQuery) policy.ClientVerdict {
	if !q.Shell() {
		return policy.ClientVerdict{Verdict: hook.Pass}
	}
	c := q.Call
	if len(p.Broken) > 0 {
		return policy.ClientVerdict{Verdict: hook.Deny, By: "your Codex rules, unread",
			Reason: "hookctl cannot read your Codex rules (" + clip.String(p.Broken[0], 200) + "), so it cannot keep them: it runs no shell command until the file holds only prefix_rule(…) entries hookctl reads."}
	}
	shown := clip.Short(c.Command)
	line := agentkit.SplitLine(q.Line, true)
	var argvs [][]string
	if line.Plain {
		for _, sc := range line.Commands {
			argvs = append(argvs, sc.Words)
		}
	} else {
		argvs = append(argvs, []string{"bash", "-lc", c.Command})
	}
	// Codex's own reading decides an allow; a refusal is also looked for in each command's
	// leading words, wherever it stands.
	worst, worstRule := None, (*Rule)(nil)
	allAllowed, firstAllow := true, (*Rule)(nil)
	for _, argv := range argvs {
		d, r := p.decide(argv)
		if d > worst {
			worst, worstRule = d, r
		}
		if d != Allow {
			allAllowed = false
		} else if firstAllow == nil {
			firstAllow = r
		}
	}
	if worst < Prompt {
		for _, sc := range line.Commands {
			for _, argv := range [][]string{sc.Words, base(sc.Words)} {
				if d, r := p.decide(argv); d > worst && d >= Prompt {
					worst, worstRule = d, r
				}
			}
		}
	}
	switch {
	case worst == Forbidden:
		why := worstRule.Justification
		if why == "" {
			why = "policy forbids commands starting with `" + strings.Join(firstAlts(worstRule), " ") + "`"
		}
		return policy.ClientVerdict{Verdict: hook.Deny, Rule: worstRule.String(), By: "your Codex rule",
			Reason: "`" + shown + "` rejected: " + why + " (your Codex rule " + worstRule.String() + "; hookctl applies your rules to the command as written)."}
	case worst == Prompt:
		return policy.ClientVerdict{Verdict: hook.Ask, Rule: worstRule.String(), By: "your Codex rule",
			Reason: "Your Codex rule " + worstRule.String() + " asks before `" + shown + "`" + justified(worstRule) + "."}
	case allAllowed && firstAllow != nil && line.Parsed:
		return policy.ClientVerdict{Verdict: hook.Allow, Rule: firstAllow.String(), By: "your Codex rule",
			Reason: "Your Codex rule " + firstAllow.String() + " allows `" + shown + "`."}
	}
	return policy.ClientVerdict{Verdict: hook.Pass}
}

// decide is the strictest decision of the rules that match argv, and the first rule with it.
func (p *Policy) decide(argv []string) (Decision, *Rule) {
	best, rule := None, (*Rule)(nil)
	for _, r := range p.Rules {
		if r.Decision > best && r.matches(argv) {
			best, rule = r.Decision, r
		}
	}
	return best, rule
}

func base(argv []string) []string {
	if len(argv) == 0 || !strings.Contains(argv[0], "/") {
		return nil
	}
	return append([]string{filepath.Base(argv[0])}, argv[1:]...)
}

func firstAlts(r *Rule) []string {
	var out []string
	for _, alts := range r.Pattern {
		out = append(out, alts[0])
	}
	return out
}

func justified(r *Rule) string {
	if r.Justification == "" {
		return ""
	}
	return " (" + r.Justification + ")"
}
