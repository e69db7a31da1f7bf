// Package permissions is Copilot CLI's tool permissions as hookctl applies them: the
// --allow-tool and --deny-tool rules (and --allow-all-tools) of the copilot process the hook runs
// under, matched against the shell command the model wrote.
//
// Why: hookctl answers an admitted shell call with allow and modifiedArgs, and Copilot CLI
// 1.0.102 then neither applies its deny rules to it nor asks (live: with --deny-tool 'shell(rm)'
// and 'shell(touch a1)', hookctl's edit-mode rewrite ran both; with only --allow-tool
// 'shell(touch a3)', `touch a1` and `touch a4`, refused in -p without hookctl, ran). What: a
// shell(…) deny rule refuses a command any part of which it names (shell alone: every one); with
// --allow-all-tools, or an allow rule naming every part, it runs; a read runs, as Copilot runs
// read-only commands without asking; anything else is what Copilot would ask about, which the
// Copilot adapter words as a refusal (hookctl does not ask through Copilot CLI). A rule
// names a command by its leading words: shell(git push) is `git push …`, shell(git:*) any git;
// an allow rule's second word must be a subcommand (subcommandCLIs).
//
// Out of scope: approvals given in the session ("for the rest of the session"), which Copilot
// keeps in memory, and its path and URL permissions (hookctl's own rules and sandbox judge those).
//
// It runs in the hook process, and links no network code.
package permissions

import (
	"path/filepath"
	"slices"
	"strings"

	"github.com/hookctl/hookctl/agents/agentkit"
	"github.com/hookctl/hookctl/hook"
	"github.com/hookctl/hookctl/internal/clip"
	"github.com/hookctl/hookctl/policy"
)

// Rule is one --allow-tool or --deny-tool entry for the shell.
type Rule struct {
	Deny bool
	// Words prefix the commands it names; nil: every shell command.
	Words []string
	Text  string // as given: shell(git push)
}

func (r *Rule) String() string {
	flag := "--allow-tool"
	if r.Deny {
		flag = "--deny-tool"
	}
	return flag + " '" + r.Text + "'"
}

// subcommandCLIs are programs whose second word Copilot reads as a subcommand, so that an allow
// rule of two words (shell(git commit)) names one; for any other program such a rule allows
// nothing (live, 1.0.102: shell(touch a3) did not allow `touch a3`, shell(touch) did). The list
// is hookctl's guess at Copilot's: a program missing from it is asked about, never allowed.
var subcommandCLIs = []string{"git", "gh", "npm", "pnpm", "yarn", "npx", "docker", "podman", "kubectl", "helm", "cargo", "go",
	"pip", "pip3", "uv", "poetry", "dotnet", "az", "aws", "gcloud", "brew", "apt", "apt-get", "make", "terraform", "bun", "deno"}

// allows reports whether an allow rule names a command.
func (r *Rule) allows(words []string) bool {
	if len(r.Words) > 1 && (len(words) == 0 || !slices.Contains(subcommandCLIs, filepath.Base(words[0]))) {
		return false
	}
	return r.Words == nil || r.names(words)
}

func (r *Rule) names(words []string) bool {
	if len(words) < len(r.Words) {
		return false
	}
	for i, w := range r.Words {
		if words[i] != w {
			return false
		}
	}
	return true
}

// Permissions is what Copilot's command line allows and denies.
type Permissions struct {
	Rules    []*Rule
	AllowAll bool
	// Known is false when the copilot process could not be found: its flags are unknown, so
	// only a read runs without asking (what Copilot runs whatever its flags).
	Known bool
}

// Parse reads Copilot's arguments (argv[1:]).
func Parse(args []string) *Permissions {
	p := &Permissions{Known: true}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			break
		}
		name, value, inline := strings.Cut(a, "=")
		var values []string
		if inline {
			values = []string{value}
		} else {
			for i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") && (name == "--allow-tool" || name == "--deny-tool") {
				i++
				values = append(values, args[i])
			}
		}
		switch name {
		case "--allow-all-tools", "--allow-all", "--yolo":
			p.AllowAll = true
		case "--allow-tool", "--deny-tool":
			for _, v := range values {
				for _, t := range splitList(v) {
					if r := parseRule(t, name == "--deny-tool"); r != nil {
						p.Rules = append(p.Rules, r)
					}
				}
			}
		}
	}
	return p
}

// splitList splits a comma-separated list outside parentheses.
func splitList(v string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i <= len(v); i++ {
		if i == len(v) || v[i] == ',' && depth == 0 {
			if t := strings.TrimSpace(v[start:i]); t != "" {
				out = append(out, t)
			}
			start = i + 1
			continue
		}
		switch v[i] {
		case '(':
			depth++
		case ')':
			depth--
		}
	}
	return out
}

// parseRule reads shell or shell(COMMAND); other tools' rules are not the shell's.
func parseRule(t string, deny bool) *Rule {
	if t == "shell" {
		return &Rule{Deny: deny, Text: t}
	}
	inner, ok := strings.CutPrefix(t, "shell(")
	if !ok || !strings.HasSuffix(inner, ")") {
		return nil
	}
	inner = strings.TrimSuffix(strings.TrimSuffix(inner, ")"), ":*")
	return &Rule{Deny: deny, Words: strings.Fields(inner), Text: t}
}

// Judge is what Copilot would do with a shell call as the model wrote it (hook.ClientRules).
func (p *Permissions) Judge(q policy.ClientQuery) policy.ClientVerdict {
	if !q.Shell() {
		return policy.ClientVerdict{Verdict: hook.Pass}
	}
	c := q.Call
	if !p.Known && !q.Read {
		return policy.ClientVerdict{Verdict: hook.Ask, By: "Copilot's flags, unread",
			Reason: "hookctl could not read Copilot CLI's command line, so it cannot tell whether your --allow-tool or --deny-tool covers `" + clip.Short(c.Command) + "`."}
	}
	shown := clip.Short(c.Command)
	line := agentkit.SplitLine(q.Line, true)
	for _, r := range p.Rules {
		if !r.Deny {
			continue
		}
		for _, sc := range line.Commands {
			for _, words := range [][]string{sc.Words, baseWords(sc.Words)} {
				if len(words) > 0 && r.names(words) || r.Words == nil {
					return policy.ClientVerdict{Verdict: hook.Deny, Rule: r.String(), By: "your Copilot CLI rule",
						Reason: "Permission to run this tool was denied due to the following rules: `" + r.Text + "` (" + r.String() +
							" on Copilot's command line; hookctl applies it to `" + shown + "` as written)."}
				}
			}
		}
	}
	if p.AllowAll {
		return policy.ClientVerdict{Verdict: hook.Allow, By: "Copilot's --allow-all-tools", Reason: "hookctl: --allow-all-tools allows it."}
	}
	if r := p.allowedBy(line); r != nil {
		return policy.ClientVerdict{Verdict: hook.Allow, Rule: r.String(), By: "your Copilot CLI rule",
			Reason: "Your Copilot CLI rule " + r.String() + " allows `" + shown + "`."}
	}
	if q.Read {
		return policy.ClientVerdict{Verdict: hook.Allow, By: "a read, which Copilot runs without asking",
			Reason: "hookctl: a read-only command, which Copilot CLI runs without asking."}
	}
	return policy.ClientVerdict{Verdict: hook.Ask, By: "Copilot's permission prompt",
		Reason: "Copilot CLI asks before `" + shown + "`: no --allow-tool of yours allows it (add --allow-tool 'shell(" +
			strings.Join(firstWords(line), " ") + ")' to allow it)."}
}

// allowedBy is the first allow rule when allow rules name every part of a plain command.
func (p *Permissions) allowedBy(line agentkit.Line) *Rule {
	if !line.Parsed || !line.Plain || len(line.Commands) == 0 {
		return nil
	}
	var first *Rule
	for _, sc := range line.Commands {
		var hit *Rule
		for _, r := range p.Rules {
			if !r.Deny && r.allows(sc.Words) {
				hit = r
				break
			}
		}
		if hit == nil {
			return nil
		}
		if first == nil {
			first = hit
		}
	}
	return first
}

func baseWords(w []string) []string {
	if len(w) == 0 || !strings.Contains(w[0], "/") {
		return nil
	}
	return append([]string{filepath.Base(w[0])}, w[1:]...)
}

func firstWords(l agentkit.Line) []string {
	for _, sc := range l.Commands {
		if len(sc.Words) > 0 {
			return sc.Words[:min(2, len(sc.Words))]
		}
	}
	return nil
}

// IsClient tells Copilot CLI's process by one of its first two arguments: its own executable,
// or node running its npm loader.
func IsClient(arg string) bool {
	return filepath.Base(arg) == "copilot" || strings.HasSuffix(arg, "/@github/copilot/npm-loader.js")
}
