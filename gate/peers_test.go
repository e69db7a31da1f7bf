package gate

// The peer measurement (issue 15): the edit guard judged against the public test suites of the
// destructive-command guards users compare it with. A measurement tool, not CI: it runs only
// when a fetched copy of a peer is named by a flag, and it reports; it fails only on a panic.
//
//	go test -count=1 -run TestPeers -v ./hook \
//	  -peer.dcg=/work/.mirror/Dicklesworthstone+destructive_command_guard/repo \
//	  -peer.safetynet=/work/.mirror/kenryu42+claude-code-safety-net/repo \
//	  -peer.nah=/work/.mirror/manuelschipper+nah/repo [-peer.misses]
//
// A path is a bare git directory (read at HEAD with git show) or a checked-out tree. The rows are
// read from the peers' own files at run time and never copied into hookctl: hookctl's corpus of
// the same classes is its own (editguard's TestPeerClasses, fixtures/corpus/edit-*). Each row is
// decided as the hook decides a Bash call in an edit-mode session (Policy.Decide: the network
// router, the edit guard, the credential-read rule): a Deny is a refusal.

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"iter"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/hookctl/hookctl/config"
	"github.com/hookctl/hookctl/hook"
	"github.com/hookctl/hookctl/internal/shellglob"
	"github.com/hookctl/hookctl/policy"
	"mvdan.cc/sh/v3/syntax"
)

var (
	peerDCG       = flag.String("peer.dcg", "", "a fetched copy of Dicklesworthstone/destructive_command_guard")
	peerSafetyNet = flag.String("peer.safetynet", "", "a fetched copy of kenryu42/claude-code-safety-net")
	peerNah       = flag.String("peer.nah", "", "a fetched copy of manuelschipper/nah")
	peerMisses    = flag.Bool("peer.misses", false, "list every row the guard judges unlike the peer")
)

// peerRow is one row of a peer's suite.
type peerRow struct {
	family string // the peer's pack, test file or guard
	cmd    string
	block  bool // the peer's verdict: must block (true) or must allow
	// delegate marks a row the peer neither blocks nor allows (nah hands it to the client's
	// prompt): counted apart, never as a must-allow row.
	delegate bool
	opt      bool // the peer blocks it only with a non-default setting or pack
	project  string
	home     string
}

// peerSource reads a peer's files: from a bare git directory at HEAD, or from a tree.
type peerSource struct{ dir string }

func (s peerSource) bare() bool {
	_, err := os.Stat(filepath.Join(s.dir, "objects"))
	_, err2 := os.Stat(filepath.Join(s.dir, "HEAD"))
	return err == nil && err2 == nil
}

// files lists the files under dir whose names end in suffix.
func (s peerSource) files(t *testing.T, dir, suffix string) []string {
	var out []string
	if s.bare() {
		b, err := exec.Command("git", "--git-dir="+s.dir, "ls-tree", "-r", "--name-only", "HEAD", "--", dir).Output()
		if err != nil {
			t.Fatalf("git ls-tree %s: %v", s.dir, err)
		}
		for _, f := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			if strings.HasSuffix(f, suffix) {
				out = append(out, f)
			}
		}
		return out
	}
	filepath.WalkDir(filepath.Join(s.dir, dir), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, suffix) {
			rel, _ := filepath.Rel(s.dir, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	sort.Strings(out)
	return out
}

func (s peerSource) read(t *testing.T, name string) string {
	var b []byte
	var err error
	if s.bare() {
		b, err = exec.Command("git", "--git-dir="+s.dir, "show", "HEAD:"+name).Output()
	} else {
		b, err = os.ReadFile(filepath.Join(s.dir, name))
	}
	if err != nil {
		t.Fatalf("read %s: %v", name, err)
	}
	return string(b)
}

// readLiteral decodes the string literal starting at src[i] (", ', `, Rust's r#"…"#, TOML's
// '…' when rawSingle), returning it and the offset after it; ok is false when src[i] opens none
// or the literal interpolates (a JavaScript template with ${…}).
func readLiteral(src string, i int, rawSingle bool) (s string, end int, ok bool) {
	if i >= len(src) {
		return "", i, false
	}
	if src[i] == 'r' && i+1 < len(src) && (src[i+1] == '"' || src[i+1] == '#') {
		j := i + 1
		for j < len(src) && src[j] == '#' {
			j++
		}
		if j >= len(src) || src[j] != '"' {
			return "", i, false
		}
		close := `"` + strings.Repeat("#", j-i-1)
		k := strings.Index(src[j+1:], close)
		if k < 0 {
			return "", i, false
		}
		return src[j+1 : j+1+k], j + 1 + k + len(close), true
	}
	q := src[i]
	if q != '"' && q != '\'' && q != '`' {
		return "", i, false
	}
	if strings.HasPrefix(src[i:], strings.Repeat(string(q), 3)) && q != '`' { // TOML multi-line
		k := strings.Index(src[i+3:], strings.Repeat(string(q), 3))
		if k < 0 {
			return "", i, false
		}
		return strings.TrimPrefix(src[i+3:i+3+k], "\n"), i + 6 + k, true
	}
	var b strings.Builder
	for j := i + 1; j < len(src); j++ {
		c := src[j]
		switch {
		case c == q:
			return b.String(), j + 1, true
		case q == '`' && c == '$' && j+1 < len(src) && src[j+1] == '{':
			return "", j, false
		case c == '\\' && !(rawSingle && q == '\'') && j+1 < len(src):
			j++
			switch e := src[j]; e {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			case '0':
				b.WriteByte(0)
			case '\n': // a Rust line continuation: the newline and the next line's indent go
				for j+1 < len(src) && (src[j+1] == ' ' || src[j+1] == '\t' || src[j+1] == '\n') {
					j++
				}
			case 'u', 'x':
				var hex string
				if e == 'u' && j+1 < len(src) && src[j+1] == '{' {
					k := strings.IndexByte(src[j:], '}')
					hex, j = src[j+2:j+k], j+k
				} else {
					n := 4
					if e == 'x' {
						n = 2
					}
					hex, j = src[j+1:min(j+1+n, len(src))], j+n
				}
				var r rune
				fmt.Sscanf(hex, "%x", &r)
				b.WriteRune(r)
			default:
				b.WriteByte(e)
			}
		default:
			b.WriteByte(c)
		}
	}
	return "", i, false
}

// past yields, for each occurrence of name in src, the index just past it.
func past(src, name string) iter.Seq[int] {
	return func(yield func(int) bool) {
		for off := 0; ; {
			k := strings.Index(src[off:], name)
			if k < 0 || !yield(off+k+len(name)) {
				return
			}
			off += k + len(name)
		}
	}
}

// skipSpace skips white space and // comments.
func skipSpace(src string, i int) int {
	for i < len(src) {
		switch {
		case src[i] == ' ' || src[i] == '\t' || src[i] == '\n' || src[i] == '\r':
			i++
		case strings.HasPrefix(src[i:], "//"):
			k := strings.IndexByte(src[i:], '\n')
			if k < 0 {
				return len(src)
			}
			i += k
		default:
			return i
		}
	}
	return i
}

// dcgRows reads destructive_command_guard's suite: the regression corpus (tests/corpus), the pack
// fixtures (tests/fixtures/*_commands.yaml) and every pack's assert_blocks / assert_allows /
// assert_safe_pattern_matches. Its default configuration enables the core packs only (core.git,
// core.filesystem); rows of the other packs are marked opt-in.
func dcgRows(t *testing.T, s peerSource) []peerRow {
	const project, home = "/home/user/proj", "/home/user"
	var rows []peerRow
	add := func(family, cmd string, block bool) {
		rows = append(rows, peerRow{family: family, cmd: cmd, block: block, opt: !strings.HasPrefix(family, "core"), project: project, home: home})
	}
	for _, f := range s.files(t, "tests/corpus", ".toml") {
		src := s.read(t, f)
		for _, c := range strings.Split(src, "[[case]]")[1:] {
			cmd, expected, ruleID := "", "", ""
			for _, key := range []string{"command", "expected", "rule_id"} {
				i := strings.Index(c, "\n"+key+" = ")
				if i < 0 {
					continue
				}
				v, _, ok := readLiteral(c, i+len(key)+4, true)
				if !ok {
					continue
				}
				switch key {
				case "command":
					cmd = v
				case "expected":
					expected = v
				case "rule_id":
					ruleID = v
				}
			}
			if expected != "deny" && expected != "allow" {
				continue
			}
			family := "core (corpus)"
			if pack, _, ok := strings.Cut(ruleID, ":"); ok && !strings.HasPrefix(pack, "core") {
				family = pack
			}
			add(family, cmd, expected == "deny")
		}
	}
	for _, f := range []string{"tests/fixtures/destructive_commands.yaml", "tests/fixtures/safe_commands.yaml"} {
		pack := ""
		for _, line := range strings.Split(s.read(t, f), "\n") {
			if line != "" && line[0] != ' ' && line[0] != '#' && strings.HasSuffix(line, ":") {
				pack = strings.TrimSuffix(line, ":")
				continue
			}
			i := strings.Index(line, "- command: ")
			if i < 0 || pack == "" {
				continue
			}
			v, _, ok := readLiteral(line, i+len("- command: "), true)
			if !ok {
				v = strings.TrimSpace(line[i+len("- command: "):])
			}
			add(pack, v, strings.Contains(f, "destructive"))
		}
	}
	for _, f := range s.files(t, "src/packs", ".rs") {
		src := s.read(t, f)
		pack := strings.TrimSuffix(strings.TrimPrefix(f, "src/packs/"), ".rs")
		pack = strings.TrimSuffix(strings.ReplaceAll(pack, "/", "."), ".mod")
		for _, call := range []struct {
			name  string
			block bool
		}{{"assert_blocks", true}, {"assert_allows", false}, {"assert_safe_pattern_matches", false}} {
			for i := range past(src, call.name) {
				if j := strings.IndexByte(src[i:], '('); j < 0 || j > len("_with_severity") || strings.HasPrefix(src[i:], "_works") {
					continue
				} else {
					i += j + 1
				}
				i = skipSpace(src, i)
				if c := strings.IndexByte(src[i:], ','); c < 0 || c > 40 {
					continue
				} else {
					i = skipSpace(src, i+c+1)
				}
				if v, _, ok := readLiteral(src, i, false); ok {
					add(pack, v, call.block)
				}
			}
		}
	}
	return rows
}

// safetyNetRows reads claude-code-safety-net's assertBlocked / assertAllowed calls. A call made
// inside withEnv (strict or paranoid mode) is opt-in; a call given its own working directory
// needs the temporary tree that test builds and is left out.
func safetyNetRows(t *testing.T, s peerSource) []peerRow {
	var rows []peerRow
	for _, f := range s.files(t, "tests", ".test.ts") {
		src := s.read(t, f)
		family := strings.TrimSuffix(path.Base(f), ".test.ts")
		for _, call := range []struct {
			name  string
			block bool
		}{{"assertBlocked(", true}, {"assertAllowed(", false}} {
			for i := range past(src, call.name) {
				if strings.HasPrefix(strings.TrimSpace(src[max(0, i-len(call.name)-9):i-len(call.name)]), "function") {
					continue
				}
				v, end, ok := readLiteral(src, skipSpace(src, i), false)
				if !ok {
					continue
				}
				end = skipSpace(src, end)
				if call.block && end < len(src) && src[end] == ',' { // the reason
					_, end, _ = readLiteral(src, skipSpace(src, end+1), false)
					end = skipSpace(src, end)
				}
				if end < len(src) && src[end] == ',' && src[skipSpace(src, end+1)] != ')' {
					continue // its own working directory
				}
				testStart := max(strings.LastIndex(src[:i], "test("), strings.LastIndex(src[:i], "it("))
				opt := testStart >= 0 && strings.Contains(src[testStart:i], "withEnv(")
				rows = append(rows, peerRow{family: family, cmd: v, block: call.block, opt: opt, project: "/home/user/proj", home: "/home/user"})
			}
		}
	}
	return rows
}

// nahRows reads nah's corpus (corpus/*.jsonl): "block" rows must be refused; nah's other verdict,
// "delegate", hands the call to the client's own permission prompt, which is not an allow, so
// those rows are reported beside the others but are not its must-allow rows. Each row is judged
// with its fixture's working directory as the project and nah's fixture home.
func nahRows(t *testing.T, s peerSource) []peerRow {
	var fixtures struct {
		Observation map[string]struct {
			Cwd string `json:"cwd"`
		} `json:"observation_fixtures"`
		Ctx map[string]struct {
			Home string `json:"home"`
		} `json:"ctx_fixtures"`
	}
	if err := json.Unmarshal([]byte(s.read(t, "corpus/FIXTURES.json")), &fixtures); err != nil {
		t.Fatal(err)
	}
	var rows []peerRow
	for _, f := range s.files(t, "corpus", ".jsonl") {
		sc := bufio.NewScanner(strings.NewReader(s.read(t, f)))
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var r struct {
				ID       string `json:"id"`
				Command  string `json:"command"`
				Ctx      string `json:"ctx_fixture"`
				Obs      string `json:"observation_fixture"`
				Expected struct {
					Verdict string `json:"verdict"`
					Guard   string `json:"guard"`
				} `json:"expected"`
			}
			if json.Unmarshal(sc.Bytes(), &r) != nil || r.Command == "" {
				continue
			}
			family := r.Expected.Guard
			if family == "" {
				family, _, _ = strings.Cut(r.ID, ".")
			}
			rows = append(rows, peerRow{family: family, cmd: r.Command, block: r.Expected.Verdict == "block",
				delegate: r.Expected.Verdict == "delegate", opt: r.Expected.Verdict != "block" && r.Expected.Verdict != "delegate",
				project: fixtures.Observation[r.Obs].Cwd, home: fixtures.Ctx[r.Ctx].Home})
		}
	}
	return rows
}

// decideEdit decides a peer's row as the hook does in an edit session, returning the refusal's
// reason or "". The peers' rows assume $TMPDIR is set, as it is on macOS (on Linux it often is
// not, and $TMPDIR/x is then /x): the config says /tmp.
func decideEdit(r peerRow) string {
	conf := filepath.Join(r.home, ".config", "hookctl")
	p := &policy.Policy{World: shellglob.World{}, Client: testClient, Config: &config.Config{TempDir: "/tmp", UserHome: r.home}, Binary: filepath.Join(r.home, ".local", "bin", "hookctl"),
		Protection: policy.Protection{Home: r.home, Paths: policy.ProtectedPaths(testClient, conf, r.home, filepath.Join(r.home, ".local", "bin", "hookctl"), r.project)}}
	d := p.Decide(&hook.ToolCall{Tool: "Bash", Kind: hook.KindShell, Cwd: r.project, Command: r.cmd}, policy.SessionState{Mode: hook.ModeEdit})
	if d.Verdict == hook.Deny {
		return d.Reason
	}
	return ""
}

// realShell reports whether a row is a shell command at all: not empty, parsed by bash, and not
// a bare SQL statement (dcg's database packs test `DROP TABLE users;` as text). Rows that are
// not (an unterminated quote kept to test a peer's fallback, a statement for a database) are
// reported apart and not counted.
func realShell(cmd string) bool {
	f := strings.Fields(cmd)
	if len(f) == 0 {
		return false
	}
	switch strings.ToUpper(f[0]) {
	case "DROP", "DELETE", "TRUNCATE", "SELECT", "INSERT", "UPDATE", "ALTER", "CREATE", "GRANT", "REVOKE":
		return false
	}
	_, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(cmd), "")
	return err == nil
}

// peerTally is one family's figures.
type peerTally struct{ blocks, blocksRefused, allows, allowsRefused, notShell int }

// TestPeers measures the guard against each peer whose copy a flag names: per family, how many
// of the peer's must-block rows the guard refuses and how many of its must-allow rows it refuses,
// for the peer's default configuration and (apart) for its opt-in packs and modes.
func TestPeers(t *testing.T) {
	peers := []struct {
		name string
		dir  string
		rows func(*testing.T, peerSource) []peerRow
	}{
		{"destructive_command_guard", *peerDCG, dcgRows},
		{"claude-code-safety-net", *peerSafetyNet, safetyNetRows},
		{"nah", *peerNah, nahRows},
	}
	ran := false
	for _, p := range peers {
		if p.dir == "" {
			continue
		}
		ran = true
		t.Run(p.name, func(t *testing.T) {
			rows := p.rows(t, peerSource{p.dir})
			if len(rows) == 0 {
				t.Fatalf("no rows read from %s", p.dir)
			}
			reportPeer(t, p.name, rows)
		})
	}
	if !ran {
		t.Skip("no peer named: pass -peer.dcg, -peer.safetynet or -peer.nah (a fetched copy)")
	}
}

func reportPeer(t *testing.T, name string, rows []peerRow) {
	seen := map[string]bool{}
	tallies := map[string]*peerTally{}
	var misses []string
	for _, r := range rows {
		key := fmt.Sprintf("%v\x00%v\x00%s", r.block, r.opt, r.cmd)
		if seen[key] {
			continue // a peer asserts the same row in several tests
		}
		seen[key] = true
		fam := r.family
		if r.delegate {
			fam = "delegated (not must-allow): " + fam
		}
		if r.opt {
			fam = "opt-in: " + fam
		}
		tl := tallies[fam]
		if tl == nil {
			tl = &peerTally{}
			tallies[fam] = tl
		}
		if !realShell(r.cmd) {
			tl.notShell++
			continue
		}
		ref := decideEdit(r)
		if ref != "" && strings.Contains(ref, "internal error") {
			t.Errorf("%s: the guard panicked on %q", name, r.cmd)
		}
		if r.block {
			tl.blocks++
			if ref != "" {
				tl.blocksRefused++
			} else if !r.opt {
				misses = append(misses, fmt.Sprintf("  must-block ALLOWED  [%s] %q", fam, r.cmd))
			}
		} else {
			tl.allows++
			if ref != "" {
				tl.allowsRefused++
			}
			if ref != "" && !r.opt && !r.delegate {
				misses = append(misses, fmt.Sprintf("  must-allow refused  [%s] %q: %s", fam, r.cmd, ref))
			}
		}
	}
	fams := make([]string, 0, len(tallies))
	for f := range tallies {
		fams = append(fams, f)
	}
	sort.Slice(fams, func(i, k int) bool {
		oi, ok := fams[i][0] == 'o' || fams[i][0] == 'd', fams[k][0] == 'o' || fams[k][0] == 'd'
		if oi != ok {
			return !oi
		}
		return fams[i] < fams[k]
	})
	var out strings.Builder
	fmt.Fprintf(&out, "%s: per family, must-block rows refused / counted, must-allow rows refused / counted (rows not bash left out)\n", name)
	var def, opt, delegated peerTally
	for _, f := range fams {
		tl := tallies[f]
		fmt.Fprintf(&out, "  %-44s block %4d/%-4d allow-refused %3d/%-4d not-shell %d\n", f, tl.blocksRefused, tl.blocks, tl.allowsRefused, tl.allows, tl.notShell)
		sum := &def
		switch {
		case strings.HasPrefix(f, "opt-in"):
			sum = &opt
		case strings.HasPrefix(f, "delegated"):
			sum = &delegated
		}
		sum.blocks += tl.blocks
		sum.blocksRefused += tl.blocksRefused
		sum.allows += tl.allows
		sum.allowsRefused += tl.allowsRefused
		sum.notShell += tl.notShell
	}
	pct := func(a, b int) float64 {
		if b == 0 {
			return 0
		}
		return 100 * float64(a) / float64(b)
	}
	fmt.Fprintf(&out, "  DEFAULT: must-block refused %d/%d (%.1f%%), must-allow refused %d/%d (%.1f%%), not shell %d\n",
		def.blocksRefused, def.blocks, pct(def.blocksRefused, def.blocks), def.allowsRefused, def.allows, pct(def.allowsRefused, def.allows), def.notShell)
	fmt.Fprintf(&out, "  OPT-IN:  must-block refused %d/%d (%.1f%%), must-allow refused %d/%d (%.1f%%), not shell %d\n",
		opt.blocksRefused, opt.blocks, pct(opt.blocksRefused, opt.blocks), opt.allowsRefused, opt.allows, pct(opt.allowsRefused, opt.allows), opt.notShell)
	if delegated.allows > 0 {
		fmt.Fprintf(&out, "  DELEGATED (the peer asks; not counted): refused %d/%d\n", delegated.allowsRefused, delegated.allows)
	}
	t.Log("\n" + out.String())
	if *peerMisses {
		sort.Strings(misses)
		t.Log("\n" + strings.Join(misses, "\n"))
	}
}
