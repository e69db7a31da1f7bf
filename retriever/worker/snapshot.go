package worker

// Repository snapshots (docs/decisions/0010-research-and-snapshots.md): one ref of a GitHub
// repository, fetched as the tarball GitHub's REST API links to and read into memory, never onto
// a disk. No git runs, so there is no git protocol, no hooks, no submodules (the archive holds
// none), no LFS (an LFS file is its pointer) and no credential helper; the only credential is the
// retriever's own token, and only for a repository the user listed in private_repos.
//
// Threat model. The archive is the attacker's: names that climb out (../, absolute, a backslash,
// control characters), links to anywhere, a member that decompresses to gigabytes, a hundred
// thousand empty files, duplicate names, binary files. Nothing is written anywhere, so no name
// can reach a file; a name is normalised, and refused when it could mean two things; a link is
// recorded as a link and never followed; every count and size is capped, and a cap cuts the
// snapshot short (saying so) rather than failing what came before it.

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/google/go-github/v62/github"

	"github.com/hookctl/hookctl/internal/clip"
	"github.com/hookctl/hookctl/retriever"
)

// Caps of a snapshot.
const (
	SnapshotMaxArchive  = 32 << 20  // compressed bytes downloaded
	SnapshotMaxExpanded = 256 << 20 // bytes decompressed, skipped members included (a file bomb)
	SnapshotMaxKept     = 64 << 20  // bytes of text kept in memory
	SnapshotMaxFile     = 1 << 20   // bytes of one file kept; larger files are listed, not kept
	SnapshotMaxEntries  = 20000     // files, directories and links kept
	SnapshotMaxHeaders  = 40000     // archive members read, skipped ones included
	SnapshotMaxPath     = 1024      // bytes of a path
	SnapshotMaxDepth    = 64        // directories deep
)

// Snapshot is one ref of a repository, in memory.
type Snapshot struct {
	Repo    string // OWNER/REPO, or HOST/OWNER/REPO for an enterprise host
	Ref     string // as asked, or the default branch
	Commit  string // the commit the archive holds, from its header
	Private bool   // GitHub says the repository is private
	Focus   string // a directory the caller named (a /tree/ URL), or ""

	files     map[string]*snapFile
	dirs      map[string]bool
	links     map[string]string // path → target, never followed
	parents   map[string]bool   // directories above what was kept
	skipped   map[string]int    // why → how many members
	Truncated string            // the cap that cut it short, or ""
	Archive   int64             // compressed bytes read
	Expanded  int64             // decompressed bytes read
	Kept      int64             // bytes of text kept
}

type snapFile struct {
	text  string
	lines []int // offsets of each line's start, made on first use
}

// Where names a file of the snapshot for a citation: OWNER/REPO@REF:PATH.
func (s *Snapshot) Where(p string) string { return s.Repo + "@" + s.Ref + ":" + p }

// errSnapshotCap stops reading an archive at a cap.
type errSnapshotCap struct{ what string }

func (e *errSnapshotCap) Error() string { return e.what }

// capReader counts what passes and fails past max with errSnapshotCap.
type capReader struct {
	r    io.Reader
	n    *int64
	max  int64
	what string
}

func (c *capReader) Read(p []byte) (int, error) {
	if *c.n >= c.max {
		return 0, &errSnapshotCap{c.what}
	}
	if int64(len(p)) > c.max-*c.n {
		p = p[:c.max-*c.n]
	}
	n, err := c.r.Read(p)
	*c.n += int64(n)
	return n, err
}

// ReadSnapshotArchive reads a gzipped tar stream as GitHub's tarball endpoint serves it (every
// member under one top directory, OWNER-REPO-COMMIT/) into s, within the caps. A cap, or damage
// after the first member, ends the snapshot with Truncated set; an archive that yields nothing
// is an error.
func ReadSnapshotArchive(r io.Reader, s *Snapshot) error {
	s.files, s.dirs, s.links, s.skipped = map[string]*snapFile{}, map[string]bool{}, map[string]string{}, map[string]int{}
	s.parents = map[string]bool{}
	zr, err := gzip.NewReader(&capReader{r: r, n: &s.Archive, max: SnapshotMaxArchive, what: fmt.Sprintf("the archive is larger than %d bytes", SnapshotMaxArchive)})
	if err != nil {
		return fmt.Errorf("%w: the archive is not gzip", ErrGitHubRefused)
	}
	zr.Multistream(false)
	tr := tar.NewReader(&capReader{r: zr, n: &s.Expanded, max: SnapshotMaxExpanded,
		what: fmt.Sprintf("the archive expands past %d bytes", SnapshotMaxExpanded)})
	root := ""
	for headers := 0; ; headers++ {
		if headers == SnapshotMaxHeaders {
			s.Truncated = fmt.Sprintf("the archive has more than %d members", SnapshotMaxHeaders)
			break
		}
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			if why := snapStopped(err); why != "" && headers > 0 {
				s.Truncated = why
				break
			}
			return fmt.Errorf("%w: the archive is damaged or not a tar", ErrGitHubRefused)
		}
		if hdr.Typeflag == tar.TypeXGlobalHeader {
			if c := hdr.PAXRecords["comment"]; ghIsHex(c) {
				s.Commit = c
			}
			continue
		}
		p, why := snapPath(hdr.Name, &root)
		if why != "" {
			s.skipped[why]++
			continue
		}
		if p == "" {
			continue // the top directory itself
		}
		if s.taken(p) {
			s.skipped["a duplicate name"]++
			continue
		}
		if s.underLink(p) {
			s.skipped["a name under a link"]++
			continue
		}
		if len(s.files)+len(s.dirs)+len(s.links) == SnapshotMaxEntries {
			s.Truncated = fmt.Sprintf("the archive has more than %d files, directories and links", SnapshotMaxEntries)
			break
		}
		switch hdr.Typeflag {
		case tar.TypeDir:
			s.dirs[p] = true
			s.holds(p + "/")
		case tar.TypeSymlink, tar.TypeLink:
			if s.parents[p] {
				s.skipped["a link over a directory already read"]++
				continue
			}
			s.links[p] = hdr.Linkname
		case tar.TypeReg, tar.TypeRegA:
			if hdr.Size > SnapshotMaxFile {
				s.skipped[fmt.Sprintf("larger than %d bytes", SnapshotMaxFile)]++
				continue
			}
			if s.Kept+hdr.Size > SnapshotMaxKept {
				s.Truncated = fmt.Sprintf("its text passes %d bytes", SnapshotMaxKept)
				return s.check()
			}
			b, err := io.ReadAll(io.LimitReader(tr, SnapshotMaxFile+1))
			if err != nil {
				if why := snapStopped(err); why != "" {
					s.Truncated = why
					return s.check()
				}
				s.Truncated = "the archive is damaged"
				return s.check()
			}
			text := string(b)
			if len(b) > SnapshotMaxFile || ghLooksBinary(text) {
				s.skipped["binary or not UTF-8"]++
				continue
			}
			s.files[p] = &snapFile{text: text}
			s.holds(p)
			s.Kept += int64(len(b))
		default:
			s.skipped["a device, pipe or other special file"]++
		}
	}
	return s.check()
}

func (s *Snapshot) taken(p string) bool {
	_, f := s.files[p]
	_, l := s.links[p]
	return f || l || s.dirs[p]
}

// underLink says a directory above p is a link: a name through a link means two things.
func (s *Snapshot) underLink(p string) bool {
	for i := 0; i < len(p); i++ {
		if _, ok := s.links[p[:i]]; ok && p[i] == '/' {
			return true
		}
	}
	return false
}

// holds records the directories above a kept file, so that a link cannot later claim one.
func (s *Snapshot) holds(p string) {
	for i := 0; i < len(p); i++ {
		if p[i] == '/' {
			s.parents[p[:i]] = true
		}
	}
}

func (s *Snapshot) check() error {
	if len(s.files)+len(s.dirs)+len(s.links) == 0 {
		if s.Truncated != "" {
			return fmt.Errorf("%w: %s before any file", ErrGitHubRefused, s.Truncated)
		}
		return fmt.Errorf("%w: the archive holds no file", ErrGitHubRefused)
	}
	return nil
}

// snapStopped says which cap an error is, or "".
func snapStopped(err error) string {
	var c *errSnapshotCap
	if errors.As(err, &c) {
		return c.what
	}
	return ""
}

// snapPath normalises an archive member's name to a path under the archive's top directory,
// or says why it is skipped. The first member names the top directory; every other member must
// be under it.
// Why: the name is the attacker's; nothing is written, but a path is shown to the model and
// cited to the caller, so it must mean one thing: no climbing, no absolute path, no backslash
// (a separator elsewhere), no control, format or invalid characters, no empty or dot segments.
// Test: TestSnapshotHostileArchive.
func snapPath(name string, root *string) (string, string) {
	if name == "" || len(name) > SnapshotMaxPath+256 || !utf8.ValidString(name) {
		return "", "a name that is empty, too long or not UTF-8"
	}
	for _, r := range name {
		if r < 0x20 || r == 0x7f || r == '\\' || unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			return "", "a name with a backslash, control or format character"
		}
	}
	if strings.HasPrefix(name, "/") {
		return "", "an absolute name"
	}
	segs := strings.Split(strings.TrimSuffix(name, "/"), "/")
	for _, seg := range segs {
		if seg == ".." {
			return "", "a name that climbs out (..)"
		}
		if seg == "" || seg == "." {
			return "", "a name with an empty or . segment"
		}
	}
	if *root == "" {
		*root = segs[0]
	}
	if segs[0] != *root {
		return "", "a name outside the archive's top directory"
	}
	p := strings.Join(segs[1:], "/")
	if len(p) > SnapshotMaxPath || len(segs)-1 > SnapshotMaxDepth {
		return "", "a path too long or too deep"
	}
	return p, ""
}

// --- reading GitHub ---

// ghWriteScope says a classic token's scope can write (or administer) something. Only read:
// scopes and user:email are read-only; a fine-grained token reports no scopes at all.
func ghWriteScope(scope string) bool {
	scope = strings.TrimSpace(scope)
	return scope != "" && !strings.HasPrefix(scope, "read:") && scope != "user:email"
}

// privateAllowed says the config lists op's repository in private_repos (OWNER/REPO or
// OWNER/*, case-insensitive; HOST/OWNER/REPO for an enterprise host).
func privateAllowed(list []string, op *retriever.GitHubOp) bool {
	name := op.Owner + "/" + op.Repo
	if op.Host != "" {
		name = op.Host + "/" + name
	}
	for _, p := range list {
		p = strings.TrimSpace(p)
		if strings.EqualFold(p, name) {
			return true
		}
		if owner, ok := strings.CutSuffix(p, "/*"); ok && strings.EqualFold(owner+"/"+op.Repo, name) {
			return true
		}
	}
	return false
}

// Snapshot reads a snapshot op: the repository's metadata, then the tarball of the ref, from the
// host GitHub's API redirects to (codeload), without the token (the link is signed). The token
// is used only for a repository in PrivateRepos, and refused if it reports a scope that writes.
func (g *GitHub) Snapshot(ctx context.Context, op *retriever.GitHubOp) (*Snapshot, error) {
	if op == nil || op.Op != "snapshot" {
		return nil, errors.New("failed to read a snapshot: not a snapshot operation")
	}
	if err := op.Validate(); err != nil {
		return nil, fmt.Errorf("failed to read a snapshot: %w", err)
	}
	gg := *g
	withToken := g.Token != "" && privateAllowed(g.PrivateRepos, op)
	if !withToken {
		gg.Token = ""
	}
	s, err := gg.session(op)
	if err != nil {
		return nil, err
	}
	source := s.source
	snap, err := s.snapshot(ctx, withToken, s.inner)
	if err != nil {
		if !withToken && errors.Is(s.explain(err), ErrGitHubNotFound) {
			return nil, fmt.Errorf("failed to read %s: %w (a private repository is read only when [retriever.github] private_repos lists it)", source, ErrGitHubNotFound)
		}
		return nil, fmt.Errorf("failed to read %s: %w", source, s.explain(err))
	}
	return snap, nil
}

func (s *ghSession) snapshot(ctx context.Context, withToken bool, inner http.RoundTripper) (*Snapshot, error) {
	r, resp, err := s.client.Repositories.Get(ctx, s.op.Owner, s.op.Repo)
	if err != nil {
		return nil, err
	}
	if withToken && resp != nil {
		if scopes, ok := resp.Header["X-Oauth-Scopes"]; ok {
			for _, sc := range strings.Split(strings.Join(scopes, ","), ",") {
				if ghWriteScope(sc) {
					return nil, fmt.Errorf("%w: the token in %s has the scope %s, which writes; a snapshot is read only with a read-only token (a fine-grained token with Contents: Read-only)",
						ErrGitHubRefused, retriever.GitHubTokenEnv, retriever.Quote(strings.TrimSpace(sc)))
				}
			}
		}
	}
	snap := &Snapshot{Repo: ghRepoName(s.op), Ref: s.op.Ref, Private: r.GetPrivate() || r.GetVisibility() == "private" || r.GetVisibility() == "internal", Focus: s.op.Path}
	if s.op.Host != "" {
		snap.Repo = s.op.Host + "/" + snap.Repo
	}
	if snap.Ref == "" {
		snap.Ref = r.GetDefaultBranch()
		if err := (&retriever.GitHubOp{Op: "snapshot", Owner: "o", Repo: "r", Ref: snap.Ref}).Validate(); err != nil {
			return nil, fmt.Errorf("%w: GitHub named a default branch hookctl does not use", ErrGitHubRefused)
		}
	}
	link, lresp, err := s.client.Repositories.GetArchiveLink(ctx, s.op.Owner, s.op.Repo, github.Tarball,
		&github.RepositoryContentGetOptions{Ref: snap.Ref}, 0)
	if err != nil {
		if lresp != nil && lresp.Response != nil {
			return nil, &github.ErrorResponse{Response: lresp.Response}
		}
		return nil, err
	}
	if link.Scheme != "https" || link.User != nil || !ghArchiveHost(link.Hostname(), s.apiHost) {
		return nil, fmt.Errorf("%w: the archive is stored on a host hookctl does not read from", ErrGitHubHostNotAllowed)
	}
	if err := s.download(ctx, link, inner, snap); err != nil {
		return nil, err
	}
	return snap, nil
}

// download streams the archive from its signed link into snap: no token, pinned to the link's
// host, no redirect.
func (s *ghSession) download(ctx context.Context, link *url.URL, inner http.RoundTripper, snap *Snapshot) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, link.String(), nil)
	if err != nil {
		return err
	}
	hc := *s.g.HTTPClient
	hc.Transport = &ghLogTransport{inner: inner, host: link.Host}
	hc.Jar = nil
	hc.CheckRedirect = func(*http.Request, []*http.Request) error { return errGitHubRedirectedAway }
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("the archive host answered HTTP %d", resp.StatusCode)
	}
	return ReadSnapshotArchive(resp.Body, snap)
}

// ghArchiveHost says an archive link's host is GitHub's: codeload.github.com for github.com; for
// an enterprise host, the host itself or its codeload. subdomain.
func ghArchiveHost(host, apiHost string) bool {
	host = strings.ToLower(host)
	if apiHost == "api.github.com" {
		return host == "codeload.github.com"
	}
	h := strings.ToLower(strings.Split(apiHost, ":")[0])
	return host == h || host == "codeload."+h
}

// --- what the model reads ---

// Overview is a snapshot's first documents: what it holds (counts, what was skipped and why,
// any cap), its file list, and its README, for the distiller's first look.
func (s *Snapshot) Overview() []retriever.Document {
	var b strings.Builder
	fmt.Fprintf(&b, "repository: %s\nref: %s\n", ghLine(s.Repo), ghLine(s.Ref))
	if s.Commit != "" {
		fmt.Fprintf(&b, "commit: %s\n", s.Commit)
	}
	if s.Focus != "" {
		fmt.Fprintf(&b, "directory asked for: %s\n", ghLine(s.Focus))
	}
	fmt.Fprintf(&b, "files: %d text files kept (%d bytes), %d directories, %d links (listed, never followed)\n",
		len(s.files), s.Kept, len(s.dirs), len(s.links))
	var whys []string
	for why, n := range s.skipped {
		whys = append(whys, fmt.Sprintf("%d %s", n, why))
	}
	sort.Strings(whys)
	if len(whys) > 0 {
		fmt.Fprintf(&b, "members skipped: %s\n", strings.Join(whys, "; "))
	}
	if s.Truncated != "" {
		fmt.Fprintf(&b, "truncated: yes: %s; the snapshot holds what came before\n", s.Truncated)
	}
	b.WriteString("listing (size, path; directories end in /):\n")
	b.WriteString(s.List(s.Focus, 0, 600))
	docs := []retriever.Document{{Source: "snapshot " + s.Repo + "@" + s.Ref, URL: s.Where(""), Host: "snapshot",
		ContentType: "text/plain", Title: "snapshot of " + s.Repo + "@" + s.Ref, Text: b.String()}}
	for _, name := range []string{"README.md", "README", "README.rst", "README.txt", "readme.md"} {
		p := path.Join(s.Focus, name)
		if f, ok := s.files[p]; ok {
			text := ghCut(f.text, 32<<10)
			docs = append(docs, retriever.Document{Source: "snapshot " + s.Where(p), URL: s.Where(p), Host: "snapshot",
				ContentType: "text/plain", Title: p, Text: text, Bytes: int64(len(f.text)), Truncated: len(text) < len(f.text)})
			break
		}
	}
	return docs
}

// List lists the entries under dir ("" for the root), depth levels deep (0: all), at most max.
func (s *Snapshot) List(dir string, depth, max int) string {
	dir = strings.Trim(dir, "/")
	var names []string
	under := func(p string) bool {
		if dir != "" && p != dir && !strings.HasPrefix(p, dir+"/") {
			return false
		}
		rel := strings.TrimPrefix(strings.TrimPrefix(p, dir), "/")
		return rel != "" && (depth <= 0 || strings.Count(rel, "/") < depth)
	}
	for p := range s.files {
		if under(p) {
			names = append(names, p)
		}
	}
	for p := range s.dirs {
		if under(p) {
			names = append(names, p+"/")
		}
	}
	for p := range s.links {
		if under(p) {
			names = append(names, p)
		}
	}
	slices.Sort(names)
	var b strings.Builder
	for i, n := range names {
		if i == max {
			fmt.Fprintf(&b, "… and %d more\n", len(names)-max)
			break
		}
		switch {
		case strings.HasSuffix(n, "/"):
			fmt.Fprintf(&b, "-\t%s\n", ghLine(n))
		case s.isLink(n):
			fmt.Fprintf(&b, "link\t%s -> %s (not followed)\n", ghLine(n), ghLine(clip.String(s.links[n], 200)))
		default:
			fmt.Fprintf(&b, "%d\t%s\n", len(s.files[n].text), ghLine(n))
		}
	}
	if len(names) == 0 {
		b.WriteString("(nothing)\n")
	}
	return b.String()
}

func (s *Snapshot) isLink(p string) bool { _, ok := s.links[p]; return ok }

// lineOffsets returns the start offset of each line of f.
func (f *snapFile) lineOffsets() []int {
	if f.lines == nil {
		f.lines = []int{0}
		for i := 0; i < len(f.text); i++ {
			if f.text[i] == '\n' && i+1 < len(f.text) {
				f.lines = append(f.lines, i+1)
			}
		}
	}
	return f.lines
}

// Lines is how many lines a file has, or -1 when the snapshot has no such file.
func (s *Snapshot) Lines(p string) int {
	f, ok := s.files[p]
	if !ok {
		return -1
	}
	if f.text == "" {
		return 0
	}
	return len(f.lineOffsets())
}

// snapMaxRead caps one read of a file, in lines and bytes.
const (
	snapMaxReadLines = 400
	snapMaxReadBytes = 32 << 10
)

// Read returns lines start to end (1-based, inclusive; 0 for end means start+399) of a file,
// each prefixed with its number, and the range actually read.
func (s *Snapshot) Read(p string, start, end int) (text string, from, to int, err error) {
	f, ok := s.files[p]
	if !ok {
		if t, isLink := s.links[p]; isLink {
			return "", 0, 0, fmt.Errorf("%s is a link (to %s), which a snapshot never follows", retriever.Quote(p), retriever.Quote(t))
		}
		if s.dirs[p] {
			return "", 0, 0, fmt.Errorf("%s is a directory; list it", retriever.Quote(p))
		}
		return "", 0, 0, fmt.Errorf("the snapshot has no file %s (skipped files are binary, over %d bytes, or past a cap)", retriever.Quote(p), SnapshotMaxFile)
	}
	offs := f.lineOffsets()
	n := len(offs)
	if f.text == "" {
		return "(empty file)\n", 0, 0, nil
	}
	if start < 1 {
		start = 1
	}
	if start > n {
		return "", 0, 0, fmt.Errorf("%s has %d lines; line %d is past its end", retriever.Quote(p), n, start)
	}
	if end <= 0 || end > n {
		end = n
	}
	end = min(end, start+snapMaxReadLines-1)
	var b strings.Builder
	for i := start; i <= end; i++ {
		lineEnd := len(f.text)
		if i < n {
			lineEnd = offs[i]
		}
		line := strings.TrimSuffix(f.text[offs[i-1]:lineEnd], "\n")
		if b.Len()+len(line) > snapMaxReadBytes {
			end = i - 1
			break
		}
		fmt.Fprintf(&b, "%d\t%s\n", i, line)
	}
	if end < start {
		end = start
		line := f.text[offs[start-1]:]
		fmt.Fprintf(&b, "%d\t%s\n", start, clip.String(line, snapMaxReadBytes))
	}
	return b.String(), start, end, nil
}

// snapMaxMatches caps a grep's matches.
const snapMaxMatches = 100

// Grep finds lines matching an RE2 pattern (linear time, whatever the pattern) in the files
// under dir, as PATH:LINE: TEXT, at most snapMaxMatches.
func (s *Snapshot) Grep(pattern, dir string) (string, error) {
	if len(pattern) > 512 {
		return "", errors.New("the pattern is longer than 512 bytes")
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return "", fmt.Errorf("the pattern is not an RE2 regular expression: %v", err)
	}
	dir = strings.Trim(dir, "/")
	var paths []string
	for p := range s.files {
		if dir == "" || p == dir || strings.HasPrefix(p, dir+"/") {
			paths = append(paths, p)
		}
	}
	slices.Sort(paths)
	var b strings.Builder
	n := 0
	for _, p := range paths {
		f := s.files[p]
		offs := f.lineOffsets()
		for i, off := range offs {
			end := len(f.text)
			if i+1 < len(offs) {
				end = offs[i+1]
			}
			line := strings.TrimSuffix(f.text[off:end], "\n")
			if !re.MatchString(line) {
				continue
			}
			if n == snapMaxMatches {
				fmt.Fprintf(&b, "… stopped at %d matches\n", snapMaxMatches)
				return b.String(), nil
			}
			fmt.Fprintf(&b, "%s:%d: %s\n", ghLine(p), i+1, clip.String(line, 240))
			n++
		}
	}
	if n == 0 {
		return "no line matches\n", nil
	}
	return b.String(), nil
}

// parseLines reads a citation's line range "12" or "12-40" (or "L12-L40").
func parseLines(s string) (int, int, bool) {
	s = strings.ReplaceAll(strings.ToUpper(s), "L", "")
	a, b, isRange := strings.Cut(s, "-")
	from, err1 := strconv.Atoi(strings.TrimSpace(a))
	to := from
	var err2 error
	if isRange {
		to, err2 = strconv.Atoi(strings.TrimSpace(b))
	}
	return from, to, err1 == nil && err2 == nil && from >= 1 && to >= from
}
