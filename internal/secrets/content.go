package secrets

import (
	"regexp"
	"sync"
)

// Content: a file that holds a credential by what is in it, whatever its name says. The hook
// reads the head of a file a read names when its name is one of these (ContentBase), and
// hookctl run's scan reads every file's.

// tokenFile is a well-known file that holds a token when it has a line of a certain form.
type tokenFile struct {
	base    string
	pattern *regexp.Regexp
	what    string
}

type contentPatterns struct {
	pemPrivate, urlPassword, extraHeader *regexp.Regexp
	tokenFiles                           []tokenFile
}

// contentRules are compiled on first use: the hook process links this package and must not pay
// for them at start-up.
func contentRules() contentPatterns {
	content.once.Do(func() { content.v = compileContentRules() })
	return content.v
}

var content struct {
	once sync.Once
	v    contentPatterns
}

func compileContentRules() (p contentPatterns) {
	// A private key's header in PEM or PGP armour, whatever the algorithm (RSA, EC, DSA,
	// OPENSSH, ENCRYPTED, PGP … BLOCK), and PuTTY's key file.
	p.pemPrivate = regexp.MustCompile(`-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|PuTTY-User-Key-File-\d:`)
	// A URL with a password in it (https://user:TOKEN@host).
	p.urlPassword = regexp.MustCompile(`[a-zA-Z][a-zA-Z0-9+.-]*://[^/\s:@'"]+:[^/\s@'"]+@`)
	// A header git sends with every request (actions/checkout's AUTHORIZATION: basic …).
	p.extraHeader = regexp.MustCompile(`(?mi)^\s*extraheader\s*=`)
	p.tokenFiles = []tokenFile{
		{".npmrc", regexp.MustCompile(`(?m)(_authToken|_auth|_password)\s*=`), "an npm registry token"},
		{".yarnrc.yml", regexp.MustCompile(`(?m)npmAuth(Token|Ident)\s*:`), "a yarn registry token"},
		{".yarnrc", regexp.MustCompile(`(?m)_authToken`), "a yarn registry token"},
		{".pypirc", regexp.MustCompile(`(?m)^\s*password\s*[=:]`), "a PyPI password"},
		{"pip.conf", p.urlPassword, "a package index password"},
		{".terraformrc", regexp.MustCompile(`(?m)token\s*=`), "a Terraform token"},
		{"terraform.rc", regexp.MustCompile(`(?m)token\s*=`), "a Terraform token"},
		{".s3cfg", regexp.MustCompile(`(?m)^\s*secret_key\s*=\s*\S`), "S3 credentials"},
		{".boto", regexp.MustCompile(`(?m)_secret_access_key\s*=\s*\S`), "cloud storage credentials"},
		{"settings.xml", regexp.MustCompile(`<password>`), "a Maven repository password"},
		{"gradle.properties", regexp.MustCompile(`(?mi)(password|token|secret)\s*[=:]`), "a Gradle repository credential"},
		{"auth.json", regexp.MustCompile(`"(http-basic|github-oauth|gitlab-token|bearer)"`), "Composer credentials"},
		{".my.cnf", regexp.MustCompile(`(?mi)^\s*password\s*=`), "a MySQL password"},
	}
	return p
}

// ContentBase reports whether a file of this base name may hold a credential by its content (a
// token line, a password in a URL, an extraheader), so that a reader of it should look: the
// token files and git's config (checked as such only inside a git directory).
func ContentBase(base string) bool {
	switch base {
	case "config", ".gitconfig", ".npmrc", ".yarnrc.yml", ".yarnrc", ".pypirc", "pip.conf", ".terraformrc", "terraform.rc",
		".s3cfg", ".boto", "settings.xml", "gradle.properties", "auth.json", ".my.cnf":
		return true
	}
	return false
}

// ContentCredential classifies a file by its head: a private key's header anywhere in it, or, in
// a well-known token file (by base name), a line that sets a token; in a git directory's config
// (inGitDir) or a user's git configuration (.gitconfig), a password in a remote's URL or an
// http.extraheader, as a CI checkout leaves them (issue 23, item 2). "" when none.
func ContentCredential(base string, head []byte, inGitDir bool) string {
	pat := contentRules()
	if inGitDir || base == ".gitconfig" {
		if base != "config" && base != ".gitconfig" {
			return ""
		}
		switch {
		case pat.urlPassword.Match(head):
			return "a password in a git remote's URL"
		case pat.extraHeader.Match(head):
			return "a header git sends with every request (http.extraheader)"
		}
		return ""
	}
	if pat.pemPrivate.Match(head) {
		return "a private key (by its content)"
	}
	for _, t := range pat.tokenFiles {
		if t.base == base && t.pattern.Match(head) {
			return t.what
		}
	}
	return ""
}
