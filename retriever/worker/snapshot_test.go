package worker

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hookctl/hookctl/retriever"
)

// hostileArchive holds every trick of an attacker's archive that climbs out: .. in a name, an
// absolute name, a backslash name, a symlink to a directory outside and a file written through
// it, a hard link to a file outside, a device, a duplicate, a binary file, and one honest file.
// Each trick aims at a file under out.
func hostileArchive(t testing.TB, out string) []byte {
	return tarball(t, "o-r-0123456", func(tw *tar.Writer) {
		file := func(name, body string) {
			tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: 0o644, Size: int64(len(body))})
			tw.Write([]byte(body))
		}
		file("o-r-0123456/ok.go", "package ok // FACT-OK\n")
		file("o-r-0123456/../../../../../../.."+out+"/by-dotdot", "pwned by ..\n")
		file(out+"/by-absolute", "pwned by an absolute name\n")
		file(`o-r-0123456/..\..\by-backslash`, "pwned by a backslash\n")
		tw.WriteHeader(&tar.Header{Typeflag: tar.TypeSymlink, Name: "o-r-0123456/lnk", Linkname: out, Mode: 0o777})
		file("o-r-0123456/lnk/by-symlink", "pwned through a link\n")
		tw.WriteHeader(&tar.Header{Typeflag: tar.TypeLink, Name: "o-r-0123456/hard", Linkname: "/etc/passwd"})
		tw.WriteHeader(&tar.Header{Typeflag: tar.TypeChar, Name: "o-r-0123456/dev", Devmajor: 1, Devminor: 3})
		file("o-r-0123456/ok.go", "package ok // DUPLICATE\n")
		file("o-r-0123456/bin.dat", "\x00\x01\x02binary")
		file("other-top/x", "outside the top directory\n")
		file("o-r-0123456/d/inside.go", "package d\n")
		tw.WriteHeader(&tar.Header{Typeflag: tar.TypeSymlink, Name: "o-r-0123456/d", Linkname: out})
	})
}

// TestSnapshotHostileArchive: no name of a hostile archive reaches a file: the snapshot keeps
// the honest file, records the links as links, and skips the rest with a reason; nothing is
// written, in the process's directory or at any target. Control: Python's tarfile, extracting
// the same archive as a trusting extractor does, writes outside its directory.
func TestSnapshotHostileArchive(t *testing.T) {
	out := t.TempDir()
	archive := hostileArchive(t, out)
	wd, _ := os.Getwd()
	before := listDir(t, wd)

	s := &Snapshot{Repo: "o/r", Ref: "main"}
	if err := ReadSnapshotArchive(bytes.NewReader(archive), s); err != nil {
		t.Fatal(err)
	}
	if s.Files() != 2 || s.files["ok.go"].text != "package ok // FACT-OK\n" {
		t.Errorf("files: %v", s.List("", 0, 100))
	}
	if s.links["lnk"] != out || s.links["hard"] != "/etc/passwd" {
		t.Errorf("links: %q", s.links)
	}
	if _, _, _, err := s.Read("lnk/by-symlink", 1, 0); err == nil {
		t.Error("a file through the link was kept")
	}
	if _, _, _, err := s.Read("hard", 1, 0); err == nil || !strings.Contains(err.Error(), "never follows") {
		t.Errorf("reading the hard link: %v", err)
	}
	for _, why := range []string{"a name that climbs out (..)", "an absolute name", "a name with a backslash, control or format character",
		"a duplicate name", "a name under a link", "a link over a directory already read", "binary or not UTF-8", "a device, pipe or other special file", "a name outside the archive's top directory"} {
		if s.skipped[why] == 0 {
			t.Errorf("nothing skipped as %q: %v", why, s.skipped)
		}
	}
	if got := listDir(t, out); len(got) != 0 {
		t.Errorf("written at the target: %q", got)
	}
	if after := listDir(t, wd); strings.Join(after, " ") != strings.Join(before, " ") {
		t.Errorf("written in the working directory: %q", after)
	}
	ov := s.Overview()[0].Text
	for _, want := range []string{"2 text files kept", "2 links (listed, never followed)", "members skipped:", "link\tlnk -> " + out + " (not followed)"} {
		if !strings.Contains(ov, want) {
			t.Errorf("overview lacks %q:\n%s", want, ov)
		}
	}

	// Control: a trusting extractor writes outside its directory.
	py, err := exec.LookPath("python3")
	if err != nil {
		if os.Getenv("HOOKCTL_REQUIRE_ALL") == "1" {
			t.Fatal("control: no python3 (HOOKCTL_REQUIRE_ALL=1)")
		}
		t.Skip("control: no python3")
	}
	arc := filepath.Join(t.TempDir(), "a.tar.gz")
	os.WriteFile(arc, archive, 0o644)
	dest := filepath.Join(t.TempDir(), "x", "y", "z", "w", "v", "u")
	os.MkdirAll(dest, 0o755)
	script := `import sys, tarfile
t = tarfile.open(sys.argv[1])
for m in t.getmembers():
    try:
        t.extract(m, sys.argv[2], filter="fully_trusted")
    except Exception as e:
        pass
`
	if b, err := exec.Command(py, "-c", script, arc, dest).CombinedOutput(); err != nil {
		t.Fatalf("control: %v %s", err, b)
	}
	escaped := listDir(t, out)
	if !containsAll(escaped, "by-symlink", "by-absolute") {
		t.Errorf("control: the trusting extractor wrote only %q outside its directory", escaped)
	}
	t.Logf("control: a trusting extractor wrote %q outside its directory", escaped)
}

func listDir(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

func containsAll(have []string, want ...string) bool {
	for _, w := range want {
		found := false
		for _, h := range have {
			found = found || h == w
		}
		if !found {
			return false
		}
	}
	return true
}

// TestSnapshotFileBomb: a member that decompresses to 300 MiB of zeros is skipped unread past the
// expansion cap, and the snapshot says it was cut there; reading it stays within the cap.
func TestSnapshotFileBomb(t *testing.T) {
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	tw := tar.NewWriter(zw)
	tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: "o-r-1/ok.go", Mode: 0o644, Size: 6})
	tw.Write([]byte("ok ok\n"))
	const bomb = 300 << 20
	tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: "o-r-1/bomb", Mode: 0o644, Size: bomb})
	zero := make([]byte, 1<<20)
	for i := 0; i < bomb>>20; i++ {
		tw.Write(zero)
	}
	tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: "o-r-1/after.go", Mode: 0o644, Size: 3})
	tw.Write([]byte("ab\n"))
	tw.Close()
	zw.Close()
	t.Logf("the bomb: %d bytes compressed, %d expanded", buf.Len(), bomb)
	s := &Snapshot{}
	start := time.Now()
	if err := ReadSnapshotArchive(&buf, s); err != nil {
		t.Fatal(err)
	}
	if s.Files() != 1 || !strings.Contains(s.Truncated, "expands past") || s.Expanded > SnapshotMaxExpanded || s.Kept != 6 {
		t.Errorf("files %d, truncated %q, expanded %d, kept %d", s.Files(), s.Truncated, s.Expanded, s.Kept)
	}
	t.Logf("read %d bytes of it in %v, kept %d", s.Expanded, time.Since(start).Round(time.Millisecond), s.Kept)
}

// TestSnapshotManyTinyFiles: 100,000 empty files stop at the entry cap, the snapshot says so,
// and what came before is kept.
func TestSnapshotManyTinyFiles(t *testing.T) {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for i := 0; i < 100000; i++ {
		tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: fmt.Sprintf("o-r-1/d%d/f%d", i/1000, i), Mode: 0o644, Size: 1})
		tw.Write([]byte("x"))
	}
	tw.Close()
	zw.Close()
	s := &Snapshot{}
	start := time.Now()
	if err := ReadSnapshotArchive(&buf, s); err != nil {
		t.Fatal(err)
	}
	if s.Files() != SnapshotMaxEntries || !strings.Contains(s.Truncated, "more than 20000") {
		t.Errorf("files %d, truncated %q", s.Files(), s.Truncated)
	}
	t.Logf("100000 tiny files: kept %d, stopped after %v (%s)", s.Files(), time.Since(start).Round(time.Millisecond), s.Truncated)
}

// TestSnapshotArchiveLimits: an archive larger than its cap keeps what came before; one that is
// not gzip, or gives nothing, is refused; a member too large is listed as skipped.
func TestSnapshotArchiveLimits(t *testing.T) {
	if err := ReadSnapshotArchive(strings.NewReader("not gzip"), &Snapshot{}); !errors.Is(err, ErrGitHubRefused) {
		t.Errorf("not gzip: %v", err)
	}
	big := strings.Repeat("y", SnapshotMaxFile+1)
	a := tarball(t, "o-r-0123456", tarFiles(map[string]string{"big.txt": big, "small.txt": "s\n"}))
	s := &Snapshot{}
	if err := ReadSnapshotArchive(bytes.NewReader(a), s); err != nil || s.Files() != 1 || s.skipped[fmt.Sprintf("larger than %d bytes", SnapshotMaxFile)] != 1 {
		t.Errorf("%v, %d files, skipped %v", err, s.Files(), s.skipped)
	}
	// The compressed cap: random (incompressible) content past 32 MiB.
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.NoCompression)
	tw := tar.NewWriter(zw)
	tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: "o-r-1/first.txt", Mode: 0o644, Size: 2})
	tw.Write([]byte("1\n"))
	chunk := bytes.Repeat([]byte("z"), 512<<10)
	for i := 0; i < 70; i++ {
		tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: fmt.Sprintf("o-r-1/c%d.txt", i), Mode: 0o644, Size: int64(len(chunk))})
		tw.Write(chunk)
	}
	tw.Close()
	zw.Close()
	s = &Snapshot{}
	if err := ReadSnapshotArchive(&buf, s); err != nil || !strings.Contains(s.Truncated, "larger than") || s.Archive > SnapshotMaxArchive {
		t.Errorf("%v: truncated %q, archive %d", err, s.Truncated, s.Archive)
	}
}

// TestSnapshotThroughGitHub: a snapshot of the default branch comes from the tarball GitHub's
// API redirects to, without the token there; the token goes to the API only for a repository
// in private_repos, and a token with a scope that writes is refused.
func TestSnapshotThroughGitHub(t *testing.T) {
	archive := tarball(t, "o-r-0123456", tarFiles(repoFiles))
	for _, c := range []struct {
		name, scopes string
		private      []string
		wantAuth     bool
		wantErr      string
	}{
		{"public, no listing: no token", "", nil, false, ""},
		{"listed: the token", "", []string{"o/r"}, true, ""},
		{"listed with a read scope", "read:org", []string{"O/*"}, true, ""},
		{"a classic token with repo", "repo, read:org", []string{"o/r"}, true, "which writes"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newGHFake(t)
			if c.wantErr != "" {
				serveRepo(f, false, "main", nil, c.scopes) // refused before the archive
			} else {
				serveRepo(f, false, "main", archive, c.scopes)
			}
			g := &GitHub{Token: "tok3n", PrivateRepos: c.private, HTTPClient: f.client()}
			snap, err := g.Snapshot(context.Background(), &retriever.GitHubOp{Op: "snapshot", Owner: "o", Repo: "r"})
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("err %v, want %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if snap.Ref != "main" || snap.Files() != len(repoFiles) {
				t.Errorf("ref %q, %d files", snap.Ref, snap.Files())
			}
			for _, q := range f.requests() {
				switch {
				case q.host == "codeload.github.com" && q.auth != "":
					t.Errorf("the token went to codeload")
				case q.host == "api.github.com" && (q.auth != "") != c.wantAuth:
					t.Errorf("%s: authorization %q", q.path, q.auth)
				}
			}
		})
	}
	// An archive link to any other host is refused before it is fetched.
	f := newGHFake(t)
	f.on("GET /repos/o/r", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"full_name":"o/r","default_branch":"main"}`)
	})
	f.on("GET /repos/o/r/tarball/main", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Location", "https://evil.example/o/r.tar.gz")
		w.WriteHeader(http.StatusFound)
	})
	_, err := (&GitHub{HTTPClient: f.client()}).Snapshot(context.Background(), &retriever.GitHubOp{Op: "snapshot", Owner: "o", Repo: "r"})
	if !errors.Is(err, ErrGitHubHostNotAllowed) {
		t.Errorf("a link to another host: %v", err)
	}
	for _, q := range f.requests() {
		if q.host == "evil.example" {
			t.Error("the link to another host was fetched")
		}
	}
}
