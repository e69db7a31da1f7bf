package permissions

import "strings"

// The client's command line, as its option parser (commander) reads it: a variadic option
// (--allowedTools, --disallowedTools, --add-dir) takes every following argument up to the next
// that starts with "-"; --name=value gives one value; "--" ends the options. Each value of the
// tool lists is split at commas and blanks outside parentheses, so "Bash(git log *) Edit" is
// two rules (live, 2.1.328: both comma- and space-separated lists applied).

// cliRules are the rules one flag gave.
type cliRules struct {
	flag        string
	allow, deny []string
}

// commandLine is what hookctl reads of the client's arguments.
type commandLine struct {
	rules    []cliRules
	settings string   // --settings: a file or inline JSON
	sources  []string // --setting-sources, nil when not given
	addDirs  []string
}

func parseArgs(args []string) commandLine {
	var cl commandLine
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			break
		}
		name, value, inline := strings.Cut(a, "=")
		if !strings.HasPrefix(a, "--") {
			inline = false
			name = a
		}
		values := func(variadic bool) []string {
			if inline {
				return []string{value}
			}
			var vs []string
			for i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
				i++
				vs = append(vs, args[i])
				if !variadic {
					break
				}
			}
			return vs
		}
		switch name {
		case "--allowedTools", "--allowed-tools":
			cl.rules = append(cl.rules, cliRules{flag: name, allow: splitTools(values(true))})
		case "--disallowedTools", "--disallowed-tools":
			cl.rules = append(cl.rules, cliRules{flag: name, deny: splitTools(values(true))})
		case "--settings":
			if v := values(false); len(v) > 0 {
				cl.settings = v[0]
			}
		case "--setting-sources":
			cl.sources = []string{}
			for _, v := range values(false) {
				for _, s := range strings.Split(v, ",") {
					if s = strings.TrimSpace(s); s != "" {
						cl.sources = append(cl.sources, s)
					}
				}
			}
		case "--add-dir":
			cl.addDirs = append(cl.addDirs, values(true)...)
		}
	}
	return cl
}

// splitTools splits tool lists at commas and blanks outside parentheses.
func splitTools(values []string) []string {
	var out []string
	for _, v := range values {
		depth, start := 0, 0
		flush := func(end int) {
			if t := strings.TrimSpace(v[start:end]); t != "" {
				out = append(out, t)
			}
		}
		for i := 0; i < len(v); i++ {
			switch c := v[i]; {
			case c == '(':
				depth++
			case c == ')' && depth > 0:
				depth--
			case depth == 0 && (c == ',' || c == ' ' || c == '\t' || c == '\n'):
				flush(i)
				start = i + 1
			}
		}
		flush(len(v))
	}
	return out
}
