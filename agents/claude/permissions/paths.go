package permissions

import (
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// Read and Edit rules on a Bash command. The client checks the files its file commands name
// against the user's Read rules (what they read) and Edit rules (what they write), and the
// targets of redirections too (live, 2.1.328: with Read(./secrets/**) denied, `cat secrets/k`,
// `head`, `wc -l`, `sort` and `grep -r s secrets` were all refused; with Edit(docs/**) denied,
// `echo x > docs/d`, `cp README.md docs/e` and `tee docs/f`).

// fileCommand is how one of the client's file commands names its files.
type fileCommand struct {
	name string
	// writes: its operands are written (Edit rules); otherwise read (Read rules). cp reads all
	// but its last operand; sed writes only with -i.
	writes bool
	// scriptFirst: the first operand is a pattern, program or filter, not a file, unless one of
	// scriptOpts gave it.
	scriptFirst bool
	scriptOpts  []string
	// valueOpts take the next word as their value, which is no file.
	valueOpts []string
	// readOpts take the next word as a file read (grep -f, awk -f); writeOpts one written
	// (sort -o).
	readOpts, writeOpts []string
}

var fileCommands = []fileCommand{
	{name: "cat"}, {name: "tac"}, {name: "nl"}, {name: "rev"}, {name: "fold"}, {name: "expand"}, {name: "unexpand"},
	{name: "fmt"}, {name: "pr"}, {name: "numfmt"}, {name: "tsort"}, {name: "strings"}, {name: "hexdump"}, {name: "od"},
	{name: "base64"}, {name: "file"}, {name: "stat"}, {name: "ls"}, {name: "cd"}, {name: "less"}, {name: "more"},
	{name: "sha256sum"}, {name: "sha1sum"}, {name: "md5sum"}, {name: "comm"}, {name: "cmp"}, {name: "diff"},
	{name: "paste", valueOpts: []string{"-d"}},
	{name: "column", valueOpts: []string{"-s", "-t", "-c", "-o"}},
	{name: "uniq", valueOpts: []string{"-f", "-s", "-w"}},
	{name: "wc"},
	{name: "head", valueOpts: []string{"-n", "-c"}},
	{name: "tail", valueOpts: []string{"-n", "-c", "-s"}},
	{name: "cut", valueOpts: []string{"-d", "-f", "-c", "-b"}},
	{name: "sort", valueOpts: []string{"-k", "-t", "-S", "-T", "--buffer-size", "--temporary-directory", "--parallel"},
		writeOpts: []string{"-o", "--output"}},
	{name: "grep", scriptFirst: true, scriptOpts: []string{"-e", "--regexp", "-f", "--file"},
		valueOpts: []string{"-e", "--regexp", "-A", "-B", "-C", "-m", "--max-count", "-d", "-D", "--label", "--include", "--exclude", "--exclude-dir"},
		readOpts:  []string{"-f", "--file"}},
	{name: "egrep", scriptFirst: true, scriptOpts: []string{"-e", "-f"}, valueOpts: []string{"-e", "-A", "-B", "-C", "-m"}, readOpts: []string{"-f"}},
	{name: "fgrep", scriptFirst: true, scriptOpts: []string{"-e", "-f"}, valueOpts: []string{"-e", "-A", "-B", "-C", "-m"}, readOpts: []string{"-f"}},
	{name: "rg", scriptFirst: true, scriptOpts: []string{"-e", "--regexp", "-f", "--file", "--files"},
		valueOpts: []string{"-e", "--regexp", "-g", "--glob", "-t", "--type", "-T", "--type-not", "-A", "-B", "-C", "-m",
			"--max-count", "-j", "--threads", "-M", "--max-columns", "--max-depth", "-d", "-r", "--replace"},
		readOpts: []string{"-f", "--file"}},
	{name: "awk", scriptFirst: true, scriptOpts: []string{"-f", "--file"}, valueOpts: []string{"-F", "-v"}, readOpts: []string{"-f", "--file"}},
	{name: "gawk", scriptFirst: true, scriptOpts: []string{"-f", "--file"}, valueOpts: []string{"-F", "-v"}, readOpts: []string{"-f", "--file"}},
	{name: "mawk", scriptFirst: true, scriptOpts: []string{"-f"}, valueOpts: []string{"-F", "-v"}, readOpts: []string{"-f"}},
	{name: "nawk", scriptFirst: true, scriptOpts: []string{"-f"}, valueOpts: []string{"-F", "-v"}, readOpts: []string{"-f"}},
	{name: "jq", scriptFirst: true, scriptOpts: []string{"-f", "--from-file"}, valueOpts: []string{"--indent"}, readOpts: []string{"-f", "--from-file"}},
	{name: "sed", scriptFirst: true, scriptOpts: []string{"-e", "--expression", "-f", "--file"},
		valueOpts: []string{"-e", "--expression", "-l", "--line-length"}, readOpts: []string{"-f", "--file"}},
	{name: "find"},
	{name: "rm", writes: true}, {name: "rmdir", writes: true}, {name: "mv", writes: true}, {name: "touch", writes: true},
	{name: "mkdir", writes: true, valueOpts: []string{"-m", "--mode"}},
	{name: "cp", writes: true, valueOpts: []string{"-S", "--suffix"}},
	{name: "tee", writes: true},
}

func findFileCommand(name string) *fileCommand {
	for i := range fileCommands {
		if fileCommands[i].name == name {
			return &fileCommands[i]
		}
	}
	return nil
}

// access is one file a command opens.
type access struct {
	path  string // as written (a literal word)
	write bool
}

// accesses lists the files a part names: its redirections' targets, and the operands of a file
// command. Words that are not literal (a variable, a substitution) name no file the rules can
// check, as for the client.
func (p *part) accesses() []access {
	var out []access
	for _, r := range p.redirs {
		if r.target.ok && r.target.lit != "/dev/null" {
			out = append(out, access{r.target.lit, r.write})
		}
	}
	prog, args := p.program()
	fc := findFileCommand(prog)
	if fc == nil {
		return out
	}
	inPlace := false // sed -i
	var files []string
	scriptGiven := false
	endOpts := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !a.ok {
			continue
		}
		l := a.lit
		if !endOpts && l == "--" {
			endOpts = true
			continue
		}
		if !endOpts && strings.HasPrefix(l, "-") && l != "-" {
			name, value, hasValue := strings.Cut(l, "=")
			if prog == "find" {
				break // find: the paths come before the expression
			}
			if prog == "sed" && (name == "-i" || strings.HasPrefix(name, "-i") || name == "--in-place" || strings.Contains(name[1:], "i") && !strings.HasPrefix(name, "--")) {
				inPlace = true
			}
			switch {
			case slices.Contains(fc.readOpts, name) || slices.Contains(fc.writeOpts, name):
				v := value
				if !hasValue && i+1 < len(args) {
					i++
					v = args[i].lit
				}
				if v != "" {
					out = append(out, access{v, slices.Contains(fc.writeOpts, name)})
				}
				scriptGiven = scriptGiven || slices.Contains(fc.scriptOpts, name)
			case slices.Contains(fc.valueOpts, name):
				scriptGiven = scriptGiven || slices.Contains(fc.scriptOpts, name)
				if !hasValue {
					i++
				}
			case slices.Contains(fc.scriptOpts, name):
				scriptGiven = true
			}
			continue
		}
		if prog == "find" && (l == "(" || l == "!" || l == "\\(") {
			break
		}
		files = append(files, l)
	}
	if fc.scriptFirst && !scriptGiven && len(files) > 0 {
		files = files[1:]
	}
	for i, f := range files {
		w := fc.writes
		switch prog {
		case "cp":
			w = i == len(files)-1
		case "sed":
			w = inPlace
		}
		out = append(out, access{f, w})
	}
	return out
}

// pathPattern is a Read or Edit rule's content, anchored.
type pathPattern struct {
	base string // the absolute directory the pattern is relative to
	// segs are the pattern's segments below base; "**" matches any number of them.
	segs []string
	// anyDepth: the pattern matches under base at any depth (a bare name, as gitignore reads
	// one; or, for a deny or ask rule, a single directory's `dir/**`).
	anyDepth bool
	negated  bool
}

// where a rule's relative paths are anchored.
type anchors struct {
	cwd, home string
}

// compilePath anchors a Read or Edit rule's content (gitignore syntax): `//p` is the absolute
// /p, `~/p` under the home directory, `/p` under the rule's source root, anything else under
// the working directory. ok is false for a pattern that cannot be anchored.
func compilePath(content string, r *Rule, an anchors) (pathPattern, bool) {
	pp := pathPattern{}
	c := strings.TrimSpace(content)
	if strings.HasPrefix(c, "!") {
		pp.negated, c = true, c[1:]
	}
	relative := false
	switch {
	case strings.HasPrefix(c, "//"):
		pp.base, c = "/", c[2:]
	case c == "~" || strings.HasPrefix(c, "~/"):
		pp.base, c = an.home, strings.TrimPrefix(strings.TrimPrefix(c, "~"), "/")
	case strings.HasPrefix(c, "/") && !pp.negated:
		pp.base, c = r.Source.Root, c[1:]
	default:
		pp.base, relative = an.cwd, true
		c = strings.TrimPrefix(c, "./")
		for strings.HasPrefix(c, "/") {
			c = c[1:] // a carve-out `!/x` is read relative to the working directory too
		}
	}
	if !filepath.IsAbs(pp.base) {
		return pp, false
	}
	c = strings.TrimSuffix(c, "/")
	if c == "" {
		pp.segs = []string{"**"}
		return pp, true
	}
	pp.segs = strings.Split(c, "/")
	if relative {
		switch {
		case len(pp.segs) == 1:
			pp.anyDepth = true // a bare name matches at any depth, as in gitignore
		case len(pp.segs) == 2 && pp.segs[1] == "**" && !strings.ContainsAny(pp.segs[0], "*?[") && r.Behavior != Allow:
			pp.anyDepth = true // deny and ask: a `dir/**` matches a dir of that name at any depth
		}
	}
	return pp, true
}

// match reports whether an absolute, clean path is one the pattern covers: the path itself or a
// directory above it (a rule on a directory covers what is in it). dir says the path may be a
// directory the command reads whole (ls, grep -r), which the rule covers when it covers what is
// in it.
func (pp pathPattern) match(abs string, dir bool) bool {
	rel, ok := under(pp.base, abs)
	if !ok {
		return false
	}
	segs := []string{}
	if rel != "." {
		segs = strings.Split(rel, "/")
	}
	pat := pp.segs
	if pp.anyDepth {
		pat = append([]string{"**"}, pat...)
	}
	for n := 1; n <= len(segs); n++ {
		if globSegs(pat, segs[:n]) {
			return true
		}
	}
	if dir && globSegs(pat, append(segs, "\x00probe")) {
		return true
	}
	return len(segs) == 0 && globSegs(pat, segs)
}

// under returns p relative to base, if p is base or below it.
func under(base, p string) (string, bool) {
	if base == "/" {
		return strings.TrimPrefix(p, "/"), strings.HasPrefix(p, "/")
	}
	if p == base {
		return ".", true
	}
	if rest, ok := strings.CutPrefix(p, base+"/"); ok {
		return rest, true
	}
	return "", false
}

// globSegs matches path segments against pattern segments: `**` any number of segments, each
// other segment with path.Match (`*`, `?`, `[…]` within one segment).
func globSegs(pat, segs []string) bool {
	if len(pat) == 0 {
		return len(segs) == 0
	}
	if pat[0] == "**" {
		for i := 0; i <= len(segs); i++ {
			if globSegs(pat[1:], segs[i:]) {
				return true
			}
		}
		return false
	}
	if len(segs) == 0 {
		return false
	}
	ok, err := path.Match(pat[0], segs[0])
	if err != nil {
		ok = pat[0] == segs[0] // a pattern that is no glob still guards its literal path
	}
	return ok && globSegs(pat[1:], segs[1:])
}

// absPath makes a path a command names absolute: ~ is the home directory, a relative path is
// under dir.
func absPath(p, dir, home string) string {
	switch {
	case p == "~" || strings.HasPrefix(p, "~/"):
		p = home + strings.TrimPrefix(p, "~")
	case !filepath.IsAbs(p):
		p = filepath.Join(dir, p)
	}
	return filepath.Clean(p)
}
