// Package permissions is Gemini CLI's policy engine as hookctl applies it to a shell command: the
// [[rule]] entries of the policy TOML files of every tier, and the tool lists of its settings,
// matched against the command the model wrote.
//
// Why: Gemini CLI 0.61.0 checks its policy against the arguments a BeforeTool hook returns
// (live: in yolo mode a deny rule for `touch a1` and an ask_user rule for `touch a2` no longer
// held under hookctl's rewrite; both files were created). What: rules come from the system's
// /etc/gemini-cli/policies (admin tier), ~/.gemini/policies (user tier) and the workspace's
// .gemini/policies, each rule's priority being its tier plus priority/1000, and from the settings'
// tools.exclude, tools.confirmationRequired, tools.allowed (with the deny it adds for the other
// shell commands) and tools.core, at the client's own priorities. A command is split into its
// simple commands (nested ones and literal `sh -c` scripts too, as hookctl reads deny rules
// everywhere), each is given the highest-priority rule that matches it (tool, approval mode,
// commandPrefix, commandRegex or argsPattern), and a deny anywhere refuses, an ask_user anywhere
// asks (the Gemini adapter words an ask as a refusal: Gemini CLI does not honour a hook's ask),
// and anything else is left to Gemini CLI, which checks hookctl's rewrite itself.
//
// Out of scope: the client's built-in policies and shell heuristics, safety checkers, extension
// policies, and an allow rule's reach: Gemini CLI still checks the rewrite, which no allow rule of
// the user's names, so outside yolo mode it asks about (or, in -p, refuses) what the rule allows.
//
// It runs in the hook process, and links no network code.
package permissions

import (
	"encoding/json"
	"errors"
	"io/fs"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
	"github.com/tidwall/gjson"

	"github.com/hookctl/hookctl/agents/agentkit"
	"github.com/hookctl/hookctl/hook"
	"github.com/hookctl/hookctl/internal/clip"
	"github.com/hookctl/hookctl/internal/fsutil"
	"github.com/hookctl/hookctl/policy"
)

// The client's tiers and the priorities it gives its settings' lists (0.61.0).
const (
	workspaceTier   = 3
	userTier        = 4
	adminTier       = 5
	excludePriority = userTier + 0.4
	confirmPriority = userTier + 0.35
	allowedPriority = userTier + 0.3
	corePriority    = userTier + 0.25
)

// Rule is one policy rule.
type Rule struct {
	Tool     string
	Prefixes []string
	Regex    *regexp.Regexp // commandRegex, on the command
	Args     *regexp.Regexp // argsPattern, on the call's arguments as JSON
	Decision string         // allow, deny, ask_user
	Priority float64
	Modes    []string
	Message  string
	Source   string // the file, and what in it
}

func (r *Rule) String() string { return r.Decision + " rule in " + r.Source }

// Policy is the rules in force for one call.
type Policy struct {
	Rules []*Rule // highest priority first
	Mode  string  // the approval mode: default, autoEdit, yolo, plan
	// Problems name the files hookctl could not read as the client reads them.
	Problems []string
}

// Options says where Gemini CLI's files are.
type Options struct {
	Home, Cwd string
	System    string // "/etc/gemini-cli"; "" reads none
	Args      []string
}

// Load reads every tier's policies and the settings' tool lists.
func Load(o Options) *Policy {
	p := &Policy{Mode: approvalMode(o.Args)}
	gem := filepath.Join(o.Home, ".gemini")
	if o.System != "" {
		p.loadDir(filepath.Join(o.System, "policies"), adminTier)
	}
	p.loadDir(filepath.Join(gem, "policies"), userTier)
	p.loadDir(filepath.Join(o.Cwd, ".gemini", "policies"), workspaceTier)
	settings := []string{filepath.Join(gem, "settings.json"), filepath.Join(o.Cwd, ".gemini", "settings.json")}
	if o.System != "" {
		settings = append(settings, filepath.Join(o.System, "settings.json"))
	}
	for _, f := range settings {
		p.loadSettings(f)
	}
	sort.SliceStable(p.Rules, func(i, j int) bool { return p.Rules[i].Priority > p.Rules[j].Priority })
	return p
}

// approvalMode reads --approval-mode (or --yolo) from the client's arguments.
func approvalMode(args []string) string {
	for i, a := range args {
		switch {
		case a == "--yolo" || a == "-y":
			return "yolo"
		case a == "--approval-mode" && i+1 < len(args):
			return args[i+1]
		case strings.HasPrefix(a, "--approval-mode="):
			return strings.TrimPrefix(a, "--approval-mode=")
		}
	}
	return "default"
}

type tomlRule struct {
	ToolName      any    `toml:"toolName"`
	CommandPrefix any    `toml:"commandPrefix"`
	CommandRegex  string `toml:"commandRegex"`
	ArgsPattern   string `toml:"argsPattern"`
	Decision      string `toml:"decision"`
	Priority      int    `toml:"priority"`
	Modes         []string
	DenyMessage   string `toml:"denyMessage"`
}

func (p *Policy) loadDir(dir string, tier int) {
	files, _ := filepath.Glob(filepath.Join(dir, "*.toml"))
	sort.Strings(files)
	for _, f := range files {
		b, err := fsutil.ReadFile(f, 1<<20, false)
		if err != nil {
			p.Problems = append(p.Problems, f+": "+err.Error())
			continue
		}
		var doc struct {
			Rule []tomlRule `toml:"rule"`
		}
		if _, err := toml.Decode(string(b), &doc); err != nil {
			p.Problems = append(p.Problems, f+": "+err.Error()+" (the client reports it and skips the file)")
			continue
		}
		for i, tr := range doc.Rule {
			for _, tool := range strList(tr.ToolName) {
				r := &Rule{Tool: tool, Prefixes: strList(tr.CommandPrefix), Decision: tr.Decision,
					Priority: float64(tier) + float64(tr.Priority)/1000, Modes: tr.Modes, Message: tr.DenyMessage,
					Source: f + " (rule " + strconv.Itoa(i+1) + ")"}
				var err error
				if tr.CommandRegex != "" {
					r.Regex, err = regexp.Compile(tr.CommandRegex)
				}
				if err == nil && tr.ArgsPattern != "" {
					r.Args, err = regexp.Compile(tr.ArgsPattern)
				}
				if err != nil {
					p.Problems = append(p.Problems, r.Source+": "+err.Error())
					continue
				}
				p.Rules = append(p.Rules, r)
			}
		}
	}
}

func strList(v any) []string {
	switch v := v.(type) {
	case string:
		return []string{v}
	case []any:
		var out []string
		for _, e := range v {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// loadSettings adds the rules a settings file's tool lists stand for.
func (p *Policy) loadSettings(file string) {
	b, err := fsutil.ReadFile(file, 4<<20, false)
	if errors.Is(err, fs.ErrNotExist) {
		return
	}
	if err != nil || !gjson.ValidBytes(b) {
		if err == nil {
			err = errors.New("not valid JSON")
		}
		p.Problems = append(p.Problems, file+": "+err.Error())
		return
	}
	tools := gjson.GetBytes(b, "tools")
	add := func(tool, decision string, prio float64, what string, prefixes []string) {
		p.Rules = append(p.Rules, &Rule{Tool: tool, Decision: decision, Priority: prio, Prefixes: prefixes, Source: file + " (" + what + ")"})
	}
	for _, t := range tools.Get("exclude").Array() {
		add(t.String(), "deny", excludePriority, "tools.exclude "+t.String(), nil) // the client matches the entry as a tool name
	}
	for _, t := range tools.Get("confirmationRequired").Array() {
		add(shellName(t.String()), "ask_user", confirmPriority, "tools.confirmationRequired "+t.String(), nil)
	}
	narrowed := false
	for _, t := range tools.Get("allowed").Array() {
		tool, prefix := splitTool(t.String())
		if prefix != nil && tool == "run_shell_command" {
			narrowed = true
		}
		add(tool, "allow", allowedPriority, "tools.allowed "+t.String(), prefix)
	}
	if narrowed {
		add("run_shell_command", "deny", allowedPriority-0.01, "tools.allowed: any other shell command", nil)
	}
	core := tools.Get("core").Array()
	for _, t := range core {
		tool, prefix := splitTool(t.String())
		add(tool, "allow", corePriority, "tools.core "+t.String(), prefix)
	}
	if len(core) > 0 {
		add("*", "deny", corePriority-0.01, "tools.core: any other tool", nil)
	}
}

func shellName(t string) string {
	if t == "ShellTool" {
		return "run_shell_command"
	}
	return t
}

// splitTool reads run_shell_command(git log) into the tool and its command prefix.
func splitTool(t string) (string, []string) {
	name, args, ok := strings.Cut(t, "(")
	if !ok || !strings.HasSuffix(args, ")") {
		return shellName(t), nil
	}
	return shellName(name), []string{strings.TrimSuffix(args, ")")}
}

// matches reports whether a rule covers one command of a shell call.
func (r *Rule) matches(cmd, description, mode string) bool {
	if r.Tool != "run_shell_command" && r.Tool != "*" {
		return false
	}
	if len(r.Modes) > 0 && !slices.Contains(r.Modes, mode) {
		return false
	}
	if len(r.Prefixes) > 0 {
		hit := false
		for _, pre := range r.Prefixes {
			rest, ok := strings.CutPrefix(cmd, pre)
			hit = hit || ok && (rest == "" || rest[0] == ' ' || rest[0] == '\t' || rest[0] == '"')
		}
		if !hit {
			return false
		}
	}
	if r.Regex != nil {
		enc, _ := json.Marshal(cmd)
		if loc := r.Regex.FindStringIndex(string(enc[1 : len(enc)-1])); loc == nil || loc[0] != 0 {
			return false
		}
	}
	if r.Args != nil {
		args, _ := json.Marshal(struct {
			Command     string `json:"command"`
			Description string `json:"description,omitempty"`
		}{cmd, description})
		if !r.Args.Match(args) {
			return false
		}
	}
	return true
}

// decide is the decision of the highest-priority rule covering cmd.
func (p *Policy) decide(cmd, description string) *Rule {
	for _, r := range p.Rules {
		if r.matches(cmd, description, p.Mode) {
			return r
		}
	}
	return nil
}

// Judge is what Gemini CLI's policy does with a shell call as the model wrote it
// (hook.ClientRules): a deny refuses, an ask_user asks; anything else is left to the client.
func (p *Policy) Judge(q policy.ClientQuery) policy.ClientVerdict {
	if !q.Shell() {
		return policy.ClientVerdict{Verdict: hook.Pass}
	}
	c := q.Call
	texts := []string{c.Command}
	for _, sc := range agentkit.SplitLine(q.Line, true).Commands {
		texts = append(texts, sc.Text)
		if w := strings.Join(sc.Words, " "); w != sc.Text && len(sc.Words) > 0 {
			texts = append(texts, w)
		}
	}
	var ask *Rule
	for _, t := range texts {
		r := p.decide(t, c.Description)
		switch {
		case r == nil:
		case r.Decision == "deny":
			why := "Tool execution denied by policy"
			if r.Message != "" {
				why += ": " + r.Message
			}
			return policy.ClientVerdict{Verdict: hook.Deny, Rule: r.String(), By: "your Gemini CLI policy",
				Reason: why + " (your " + r.String() + "; hookctl applies it to `" + clip.Short(c.Command) + "` as written)."}
		case r.Decision == "ask_user" && ask == nil:
			ask = r
		}
	}
	if ask != nil {
		return policy.ClientVerdict{Verdict: hook.Ask, Rule: ask.String(), By: "your Gemini CLI policy",
			Reason: "Your Gemini CLI " + ask.String() + " asks before `" + clip.Short(c.Command) + "`."}
	}
	return policy.ClientVerdict{Verdict: hook.Pass}
}

// IsClient tells Gemini CLI's process by one of its first two arguments: node runs its bundle.
func IsClient(arg string) bool {
	return filepath.Base(arg) == "gemini" || strings.Contains(arg, "/@google/gemini-cli/")
}
