package securerun

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxListed caps the artifacts runmeta.json lists one by one; the rest are counted (and still
// validated).
const MaxListed = 100_000

// Artifact is a file the run left in its output directory.
type Artifact struct {
	// Path is relative to the output directory (artifacts/report.md, home/.claude/…), quoted
	// as Go does (strconv.Quote, without the outer quotes) if it is not printable UTF-8.
	Path   string `json:"path"`
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256,omitempty"`
	// Link is a symbolic link's target, for a link that stays inside its directory.
	Link string `json:"link,omitempty"`
}

// Quarantined is an entry the validation moved out of the output, and why.
type Quarantined struct {
	Path    string `json:"path"`
	Reason  string `json:"reason"`
	MovedTo string `json:"moved_to,omitempty"` // relative to the output directory
	Size    int64  `json:"size"`
	// Error says why it could not be moved, and that it was removed instead.
	Error string `json:"error,omitempty"`
}

// Validation is what ValidateArtifacts found.
type Validation struct {
	Artifacts   []Artifact    `json:"artifacts"`
	Quarantined []Quarantined `json:"quarantined"`
	Unlisted    int           `json:"unlisted"` // valid artifacts past MaxListed
	Bytes       int64         `json:"bytes"`    // of the valid artifacts
}

func (v *Validation) add(a Artifact) {
	if len(v.Artifacts) >= MaxListed {
		v.Unlisted++
		return
	}
	v.Artifacts = append(v.Artifacts, a)
}

// linkStaysIn says whether a link at p with target resolves, by its text alone, inside top: an
// absolute target or one that climbs out does not (the sandbox could not read through it
// either, but what reads the output later could).
func linkStaysIn(p, target, top string) bool {
	if target == "" || filepath.IsAbs(target) {
		return false
	}
	return within(filepath.Join(filepath.Dir(p), target), top)
}

// printable says whether a file name is UTF-8 without control characters: what can be recorded
// and shown as it is.
func printable(name string) bool {
	return utf8.ValidString(name) && strings.IndexFunc(name, func(r rune) bool { return !unicode.IsPrint(r) && r != ' ' }) < 0
}

// shown is s as recorded: itself if printable, otherwise Go-quoted without the outer quotes.
func shown(s string) string {
	if printable(s) {
		return s
	}
	q := strconv.Quote(s)
	return q[1 : len(q)-1]
}

// hashOpen returns the SHA-256 of f, which must still be a regular file, and its size, reading
// at most max+1 bytes (a file that grew past the cap since it was listed says so by its size);
// it closes f.
func hashOpen(f *os.File, max int64) (string, int64, error) {
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return "", 0, fmt.Errorf("not a regular file any more")
	}
	h := sha256.New()
	n, err := io.Copy(h, io.LimitReader(f, max+1))
	if err != nil {
		return "", n, err
	}
	return hex.EncodeToString(h.Sum(nil)), n, nil
}
