// Package permissions is Claude Code's permission rules as hookctl applies them: where the client
// reads them from (managed settings, the user's, the project's and the local file, --settings,
// and the --allowedTools/--disallowedTools of its command line), their grammar, and how the client
// matches them against a Bash command and the files it names.
//
// Why it exists: hookctl answers an admitted Bash call with a rewritten command (hookctl sandbox …
// -- bash -c 'CMD'), and Claude Code matches its rules against the rewrite, which none of the
// user's rules was written for (live, 2.1.328: a deny Bash(rm:*) no longer refused rm, an allow
// Bash(touch ok.txt) no longer allowed it). So hookctl judges the command the agent wrote by the
// user's rules itself, with the client's precedence (deny, then ask, then allow, whatever the
// scope) and matching, and answers with an explicit decision the client honours.
//
// What is modelled, from the client's documentation and seen live (../shared/claude-code-facts.md):
// exact, `prefix:*` and wildcard Bash rules; compound commands judged per part (a deny or ask rule
// matches any part, nested ones included; an allow rule must cover every part); the wrappers the
// client strips (timeout, time, nice, nohup, stdbuf, command, builtin, noglob, bare xargs); a
// leading VAR= (any for deny and ask, the client's short list of harmless ones for allow); Read
// and Edit rules, in gitignore syntax with their anchors, on the files the client's file commands
// and redirections name; and the permission mode when no rule decides.
//
// Deliberately broader than the client: a deny or ask rule is also tried against the command with
// its quotes removed, its program's directory dropped, env and sudo stripped, and the script of a
// `bash -c '…'`, which the client documents as not stopped by a rule. A rule the user wrote to
// refuse something keeps refusing it when the agent spells it another way; an allow rule never
// matches more than the client's own matching would.
//
// Out of scope: the auto mode's classifier (hookctl leaves those calls to the client), rules the
// user approved for the session only (the client keeps them in memory), a feature-flagged search
// of deny rules in the command's text, and symbolic links on the paths a command names (hookctl's
// own sensitive-file rule and sandbox resolve those).
//
// It runs in the hook process and links no network code.
package permissions

import (
	"regexp"
	"strings"
	"unicode/utf8"
)

// Behavior is what a rule does when it matches.
type Behavior uint8

const (
	Allow Behavior = iota + 1
	Ask
	Deny
)

func (b Behavior) String() string {
	switch b {
	case Allow:
		return "allow"
	case Ask:
		return "ask"
	case Deny:
		return "deny"
	}
	return "none"
}

// Scope is where a rule comes from, in the client's order of precedence.
type Scope uint8

const (
	ScopeManaged Scope = iota + 1 // managed-settings.json and managed-settings.d
	ScopeCLI                      // --allowedTools, --disallowedTools
	ScopeFlag                     // --settings
	ScopeLocal                    // .claude/settings.local.json
	ScopeProject                  // .claude/settings.json
	ScopeUser                     // ~/.claude/settings.json
)

func (s Scope) String() string {
	switch s {
	case ScopeManaged:
		return "managed"
	case ScopeCLI:
		return "command line"
	case ScopeFlag:
		return "--settings"
	case ScopeLocal:
		return "local"
	case ScopeProject:
		return "project"
	case ScopeUser:
		return "user"
	}
	return "unknown"
}

// Source is where one rule is written.
type Source struct {
	Scope Scope
	// Path is the settings file, or the flag ("--disallowedTools") for a rule from the command
	// line.
	Path string
	// Root is the directory a Read or Edit pattern that starts with one slash is relative to:
	// the project for project and local settings, ~/.claude for the user's, the file's directory
	// for --settings, the working directory for the command line.
	Root string
}

// Rule is one permission rule, as written: Tool or Tool(content).
type Rule struct {
	Behavior Behavior
	Tool     string
	// Content is what stands between the parentheses; "" for a rule on the whole tool (Bash(*)
	// is one too, as the client documents).
	Content string
	Text    string // as written in the settings
	Source  Source
	// index orders a source's rules of one behavior, for the ! carve-outs of Read and Edit.
	index int
	bash  *bashPattern
}

// String is the rule as the user wrote it, with its behavior and file: for the log and reasons.
func (r *Rule) String() string {
	return r.Behavior.String() + " " + r.Text + " in " + r.Source.Path
}

// parseRule reads Tool or Tool(content). Parentheses inside the content are literal; a rule
// without a closing parenthesis at the end is a tool name.
func parseRule(text string, b Behavior, src Source, index int) *Rule {
	r := &Rule{Behavior: b, Text: text, Source: src, index: index}
	s := strings.TrimSpace(text)
	if i := strings.IndexByte(s, '('); i > 0 && strings.HasSuffix(s, ")") {
		r.Tool, r.Content = strings.TrimSpace(s[:i]), s[i+1:len(s)-1]
	} else {
		r.Tool = s
	}
	if strings.TrimSpace(r.Content) == "*" {
		r.Content = "" // Bash(*) is Bash
	}
	if r.Tool == "Bash" && r.Content != "" {
		r.bash = compileBash(r.Content)
	}
	return r
}

// Whole reports whether the rule covers every use of its tool.
func (r *Rule) Whole() bool { return r.Content == "" }

// patternKind is how a Bash rule matches a command.
type patternKind uint8

const (
	exact    patternKind = iota // the command, exactly
	prefix                      // `prefix:*`: the prefix alone or followed by a space
	wildcard                    // a `*` anywhere stands for any text
)

// bashPattern is a Bash rule's content, compiled.
type bashPattern struct {
	kind patternKind
	text string // exact: the command; prefix: the prefix
	re   *regexp.Regexp
}

// compileBash reads a Bash rule's content as the client does (2.1.328): `X:*` at the very end is
// a prefix (a `*` inside X is literal); otherwise an unescaped `*` makes a wildcard, in which `\*`
// is a literal star and `\\` a backslash; anything else is an exact command.
func compileBash(content string) *bashPattern {
	if p, ok := strings.CutSuffix(content, ":*"); ok && p != "" {
		return &bashPattern{kind: prefix, text: strings.TrimRight(p, " \t")}
	}
	if !hasWildcard(content) {
		return &bashPattern{kind: exact, text: strings.TrimSpace(content)}
	}
	// A rule from the command line may hold invalid UTF-8, which no command the client runs does.
	pat := strings.ToValidUTF8(strings.TrimSpace(content), "\uFFFD")
	var b strings.Builder
	stars := 0
	for i := 0; i < len(pat); i++ {
		c := pat[i]
		switch {
		case c == '\\' && i+1 < len(pat) && (pat[i+1] == '*' || pat[i+1] == '\\'):
			b.WriteString(regexp.QuoteMeta(pat[i+1 : i+2]))
			i++
		case c == '*':
			stars++
			b.WriteString(".*")
		case c == ' ' || c == '\t':
			b.WriteByte(' ') // blanks are compared after both sides have runs of them made one space
			for i+1 < len(pat) && (pat[i+1] == ' ' || pat[i+1] == '\t') {
				i++
			}
		case c >= utf8.RuneSelf:
			_, n := utf8.DecodeRuneInString(pat[i:])
			b.WriteString(pat[i : i+n]) // no metacharacter is a multi-byte rune
			i += n - 1
		default:
			b.WriteString(regexp.QuoteMeta(pat[i : i+1]))
		}
	}
	re := b.String()
	// A trailing ` *` that is the only wildcard also matches the bare command: `ls *` is `ls`.
	if stars == 1 && strings.HasSuffix(re, " .*") {
		re = strings.TrimSuffix(re, " .*") + "( .*)?"
	}
	compiled, err := regexp.Compile(`(?s)^` + re + `$`)
	if err != nil {
		return &bashPattern{kind: exact, text: pat} // cannot happen with the quoting above; never a panic in the hook
	}
	return &bashPattern{kind: wildcard, re: compiled}
}

// hasWildcard reports whether s holds a `*` no odd run of backslashes escapes.
func hasWildcard(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] != '*' {
			continue
		}
		n := 0
		for j := i - 1; j >= 0 && s[j] == '\\'; j-- {
			n++
		}
		if n%2 == 0 {
			return true
		}
	}
	return false
}

// match reports whether the pattern covers one command's text.
func (p *bashPattern) match(cmd string) bool {
	cmd = strings.TrimSpace(cmd)
	switch p.kind {
	case exact:
		return cmd == p.text || oneSpaced(cmd) == oneSpaced(p.text)
	case prefix:
		return cmd == p.text || strings.HasPrefix(cmd, p.text+" ")
	}
	return p.re.MatchString(oneSpaced(cmd))
}

// oneSpaced makes each run of blanks one space.
func oneSpaced(s string) string {
	if !strings.Contains(s, "  ") && !strings.ContainsRune(s, '\t') {
		return s
	}
	return strings.Join(strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == '\t' }), " ")
}
