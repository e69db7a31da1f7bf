package egress

import (
	"slices"
	"strings"
	"testing"
)

func TestParseRule(t *testing.T) {
	for _, row := range []struct {
		in, host string
		port     int
		bad      string
	}{
		{in: "registry.npmjs.org", host: "registry.npmjs.org"},
		{in: "Registry.NPMjs.org.", host: "registry.npmjs.org"},
		{in: "npm.corp.example:8443", host: "npm.corp.example", port: 8443},
		{in: "*.corp.example", host: "*.corp.example"},
		{in: "*.corp.example:4873", host: "*.corp.example", port: 4873},
		{in: "10.0.0.7", host: "10.0.0.7"},
		{in: "127.0.0.1:4873", host: "127.0.0.1", port: 4873},
		{in: "[::1]:4873", host: "::1", port: 4873},
		{in: "[fd00::7]", host: "fd00::7"},
		{in: "", bad: "not a host name"},
		{in: "*", bad: "not a host name"},
		{in: "*.", bad: "not a host name"},
		{in: "a.*.example", bad: "not a host name"},
		{in: "evil.example:0", bad: "port"},
		{in: "evil.example:65536", bad: "port"},
		{in: "evil.example:", bad: "port"},
		{in: "evil.example:443:1", bad: "brackets"},
		{in: "::1", bad: "brackets"},
		{in: "[::1", bad: "brackets"},
		{in: "[::1]x", bad: ":port"},
		{in: "[evil.example]", bad: "brackets"},
		{in: "http://evil.example", bad: "port"}, // a URL is not an entry
		{in: "evil.example/path", bad: "not a host name"},
		{in: "ev il.example", bad: "not a host name"},
		{in: "évil.example", bad: "not a host name"},
		{in: "-evil.example", bad: "not a host name"},
		{in: "evil..example", bad: "not a host name"},
		{in: "*.[::1]", bad: "brackets"},
	} {
		r, err := ParseRule(row.in, "config", true)
		switch {
		case row.bad != "":
			if err == nil || !strings.Contains(err.Error(), row.bad) {
				t.Errorf("ParseRule(%q) = %+v, %v; want an error about %q", row.in, r, err, row.bad)
			}
		case err != nil || r.Host != row.host || r.Port != row.port:
			t.Errorf("ParseRule(%q) = %+v, %v; want %s port %d", row.in, r, err, row.host, row.port)
		}
	}
}

func TestAdmit(t *testing.T) {
	p, err := New([]string{"github.com", "git.corp.example:8443", "git.corp.example"}, []string{"*.corp.example", "127.0.0.1:4873", "[::1]:9000"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range []struct {
		host string
		port int
		rule string // "" refused
	}{
		{"registry.npmjs.org", 443, "registry.npmjs.org"},
		{"REGISTRY.npmjs.org.", 443, "registry.npmjs.org"},
		{"registry.npmjs.org", 80, "registry.npmjs.org"},
		{"registry.npmjs.org", 22, ""},   // a default host on its web ports only
		{"registry.npmjs.org", 8080, ""}, //
		{"evil.registry.npmjs.org", 443, ""},
		{"registry.npmjs.org.evil.example", 443, ""},
		{"github.com", 443, "github.com"}, // the project's remote
		{"gist.github.com", 443, ""},
		{"api.github.com", 443, ""},
		{"git.corp.example", 8443, "git.corp.example:8443"}, // the remote's port; *.corp.example is 443 and 80
		{"npm.corp.example", 443, "*.corp.example"},
		{"corp.example", 443, ""}, // *.domain is the subdomains
		{"127.0.0.1", 4873, "127.0.0.1:4873"},
		{"127.0.0.1", 443, ""},
		{"::1", 9000, "[::1]:9000"},
		{"[::1]", 9000, "[::1]:9000"},
		{"localhost", 4873, ""},
		{"", 443, ""},
		{"evil.example", 443, ""},
		{"evil example", 443, ""},
		{"evil.example\x00registry.npmjs.org", 443, ""},
	} {
		r, ok := p.Admit(row.host, row.port)
		if ok != (row.rule != "") || ok && r.String() != row.rule {
			t.Errorf("Admit(%q, %d) = %v, %v; want %q", row.host, row.port, r, ok, row.rule)
		}
	}
	if r, _ := p.Admit("github.com", 443); r.Trusted || r.Source != "remote" {
		t.Errorf("a remote's rule is %+v: it must not be trusted with private addresses", r)
	}
	if r, _ := p.Admit("registry.npmjs.org", 443); r.Trusted || r.Source != "default" {
		t.Errorf("a default rule is %+v", r)
	}
	if r, _ := p.Admit("127.0.0.1", 4873); !r.Trusted || r.Source != "config" {
		t.Errorf("the user's rule is %+v: it is trusted", r)
	}
	if _, err := New(nil, []string{"http://evil.example"}, nil); err == nil {
		t.Error("a bad entry of the user's must be an error")
	}
	if r, _ := p.Admit("git.corp.example", 443); !r.Trusted {
		t.Errorf("a remote's host the user also lists is trusted: %+v", r)
	}
	if p, err := New([]string{"not a host", "/srv/repo.git"}, nil, nil); err != nil || len(p.Rules) != len(DefaultHosts) {
		t.Errorf("bad remote hosts are dropped: %v %+v", err, p)
	}
}

func TestRemoteHosts(t *testing.T) {
	config := `[core]
	repositoryformatversion = 0
	url = https://not-a-remote.example/x
[remote "origin"]
	url = git@github.com:hookctl/hookctl.git
	fetch = +refs/heads/*:refs/remotes/origin/*
[remote "fork"]
	url = https://user:token@gitlab.com/me/hookctl.git
	pushurl = ssh://git@push.example:2222/me/hookctl.git
[remote "corp"]
	URL = "https://git.corp.example:8443/team/hookctl"
[remote "local"]
	url = /srv/git/hookctl.git
[remote "file"]
	url = file:///srv/git/hookctl.git
[remote "rel"]
	url = ../other
[remote "dup"]
	url = https://github.com/hookctl/other
[branch "main"]
	remote = origin
	url = https://branch.example/
`
	got := RemoteHosts(config)
	want := []string{"github.com", "github.com:22", "gitlab.com", "push.example", "push.example:2222", "git.corp.example:8443"}
	if !slices.Equal(got, want) {
		t.Errorf("RemoteHosts = %q, want %q", got, want)
	}
	if got := RemoteHosts(""); got != nil {
		t.Errorf("no config: %q", got)
	}
}

func TestRefusalTellsTheModelWhatItCanDo(t *testing.T) {
	e := Event{Host: "evil.example", Port: 443, Reason: "not an allowed host"}
	msg := e.Refusal(false)
	for _, want := range []string{"evil.example:443", "not an allowed host", "WebFetch", "[network] allow"} {
		if !strings.Contains(msg, want) {
			t.Errorf("refusal %q lacks %q", msg, want)
		}
	}
	if msg := e.Refusal(true); !strings.Contains(msg, "publish reaches only api.github.com:443; evil.example:443 was refused") {
		t.Errorf("a publish's refusal: %q", msg)
	}
	e = Event{Host: "registry.npmjs.org", Port: 443, Rule: "registry.npmjs.org", Reason: "failed to resolve registry.npmjs.org"}
	if msg := e.Refusal(false); !strings.Contains(msg, "could not reach registry.npmjs.org:443: failed to resolve") {
		t.Errorf("an allowed host that failed: %q", msg)
	}
}

// FuzzPolicy: whatever a client names, Admit never panics, admits only a host a rule names
// (the same name, or a subdomain of a wildcard's), on a port the rule allows; and an entry
// ParseRule accepts prints as an entry it accepts again, the same.
func FuzzPolicy(f *testing.F) {
	for _, s := range []string{"registry.npmjs.org", "*.corp.example:8443", "[::1]:9000", "10.0.0.7", "evil.example.", "a..b", "*.", "[", "x:99999"} {
		f.Add(s, s, 443)
	}
	p, err := New([]string{"github.com", "git.corp.example:8443"}, []string{"*.corp.example", "127.0.0.1:4873"}, nil)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, entry, host string, port int) {
		if r, err := ParseRule(entry, "config", true); err == nil {
			again, err := ParseRule(r.String(), "config", true)
			if err != nil || again != r {
				t.Fatalf("%q parsed as %+v, printed %q, parsed again as %+v, %v", entry, r, r.String(), again, err)
			}
		}
		r, ok := p.Admit(host, port)
		if !ok {
			return
		}
		h := strings.ToLower(strings.TrimSuffix(strings.Trim(host, "[]"), "."))
		if !matchHost(r.Host, h) || h != r.Host && !strings.HasPrefix(r.Host, "*.") {
			t.Fatalf("Admit(%q) by %+v: not the rule's host", host, r)
		}
		if r.Port != port && !(r.Port == 0 && (port == 443 || port == 80)) {
			t.Fatalf("Admit(%q, %d) by %+v: not the rule's port", host, port, r)
		}
	})
}
