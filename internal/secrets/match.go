package secrets

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Match reports whether name matches the shell pattern pattern as fnmatch(3) does without flags
// (find's -name, the shell's globs but for the leading dot, which the caller handles): `*` any
// run of characters, `?` any one, `[…]` a bracket expression with `!` or `^` negating it, ranges
// and the classes [:alpha:] [:digit:] [:alnum:] [:upper:] [:lower:] [:space:] [:punct:]
// [:xdigit:] [:blank:] [:cntrl:] [:graph:] [:print:], and `\` quoting the next character. A
// bracket without its end matches a literal `[`, as fnmatch does. fold compares without regard
// to case (-iname, a file system that folds case).
//
// Why: Go's path.Match reads `[!x]` as "! or x" and knows no classes, so `-name '[!x]env'`
// passed a test that fnmatch then matched to .env (issue 23, item 4).
func Match(pattern, name string, fold bool) bool {
	if fold {
		pattern, name = strings.ToLower(pattern), strings.ToLower(name)
	}
	return match(pattern, name)
}

// match is the classic backtracking matcher: the last `*` seen is where a mismatch resumes.
func match(p, s string) bool {
	starP, starS := -1, 0
	i, j := 0, 0
	for j < len(s) || i < len(p) {
		if i < len(p) {
			switch c := p[i]; c {
			case '*':
				starP, starS = i, j
				i++
				continue
			case '?':
				if j < len(s) {
					_, n := utf8.DecodeRuneInString(s[j:])
					i, j = i+1, j+n
					continue
				}
			case '[':
				if j < len(s) {
					r, n := utf8.DecodeRuneInString(s[j:])
					if ok, width, valid := bracket(p[i:], r); valid {
						if ok {
							i, j = i+width, j+n
							continue
						}
					} else if s[j] == '[' { // an unended bracket is a literal [
						i, j = i+1, j+1
						continue
					}
				}
			case '\\':
				if i+1 < len(p) && j < len(s) && p[i+1] == s[j] {
					i, j = i+2, j+1
					continue
				}
				if i+1 == len(p) && j < len(s) && s[j] == '\\' {
					i, j = i+1, j+1
					continue
				}
			default:
				if j < len(s) && s[j] == c {
					i, j = i+1, j+1
					continue
				}
			}
		}
		if starP >= 0 && starS < len(s) {
			_, n := utf8.DecodeRuneInString(s[starS:])
			starS += n
			i, j = starP+1, starS
			continue
		}
		return false
	}
	return true
}

// bracket matches r against the bracket expression at the start of p ("[…]"): whether it
// matched, the expression's width, and whether p holds a whole expression at all.
func bracket(p string, r rune) (matched bool, width int, valid bool) {
	i := 1
	negate := false
	if i < len(p) && (p[i] == '!' || p[i] == '^') {
		negate = true
		i++
	}
	first := true
	for i < len(p) {
		if p[i] == ']' && !first {
			return matched != negate, i + 1, true
		}
		first = false
		if p[i] == '[' && i+1 < len(p) && p[i+1] == ':' {
			if end := strings.Index(p[i+2:], ":]"); end >= 0 {
				if inClass(p[i+2:i+2+end], r) {
					matched = true
				}
				i += end + 4
				continue
			}
		}
		lo, n := utf8.DecodeRuneInString(p[i:])
		if lo == '\\' && i+1 < len(p) {
			lo, n = utf8.DecodeRuneInString(p[i+1:])
			n++
		}
		i += n
		hi := lo
		if i+1 < len(p) && p[i] == '-' && p[i+1] != ']' {
			var m int
			hi, m = utf8.DecodeRuneInString(p[i+1:])
			if hi == '\\' && i+2 < len(p) {
				hi, m = utf8.DecodeRuneInString(p[i+2:])
				m++
			}
			i += 1 + m
		}
		if lo <= r && r <= hi {
			matched = true
		}
	}
	return false, 0, false
}

// inClass reports whether r is in the named character class; an unknown class matches nothing.
func inClass(name string, r rune) bool {
	switch name {
	case "alpha":
		return unicode.IsLetter(r)
	case "digit":
		return '0' <= r && r <= '9'
	case "alnum":
		return unicode.IsLetter(r) || unicode.IsDigit(r)
	case "upper":
		return unicode.IsUpper(r)
	case "lower":
		return unicode.IsLower(r)
	case "space":
		return unicode.IsSpace(r)
	case "blank":
		return r == ' ' || r == '\t'
	case "punct":
		return r < 128 && unicode.IsPunct(r) || r < 128 && unicode.IsSymbol(r)
	case "xdigit":
		return '0' <= r && r <= '9' || 'a' <= r && r <= 'f' || 'A' <= r && r <= 'F'
	case "cntrl":
		return unicode.IsControl(r)
	case "graph":
		return unicode.IsGraphic(r) && !unicode.IsSpace(r)
	case "print":
		return unicode.IsPrint(r)
	}
	return false
}

// secretNames stand for the project secrets' names (projectSecret), for testing a pattern: the
// common ones, and for each kind one whose only fixed part is the kind's (a pattern that can
// match .env.x or x.pem).
var secretNames = []string{".env", ".env.local", ".env.production", ".env.prod", ".env.development", ".env.dev",
	".env.test", ".env.staging", ".env.x", ".envrc", "server.pem", "server.key", "x.pem", "x.key", "store.p12", "store.pfx",
	"x.p12", "x.pfx", "id_rsa", "id_dsa", "id_ed25519", "id_ecdsa", "id_x", "id_deploy"}

// PatternMayMatch reports whether a file-name pattern (fnmatch(3), as find's -name uses it) may
// match a project secret's name: a pattern without wildcards is classified as the name it is;
// one with wildcards is tried against names that stand for each kind (secretNames), with `*`
// matching a leading dot too, as find's -name does. It is a test of patterns people write
// (`*.go` passes, `*`, `.e*`, `*.pem`, `[!x]env` do not), not of every language a pattern can
// denote: a `.env.go` would pass `*.go`. fold compares without case (-iname); every pattern is
// also tried folded, since a file system may fold case.
func PatternMayMatch(pattern string, fold bool) bool {
	if !strings.ContainsAny(pattern, "*?[\\") {
		return projectSecret(pattern) != ""
	}
	for _, n := range secretNames {
		if Match(pattern, n, true) {
			return true
		}
	}
	return false
}
