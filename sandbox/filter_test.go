//go:build linux && (amd64 || arm64)

package sandbox

import (
	"slices"
	"strings"
	"testing"
)

// TestPublishRulesAreReadOnlysButTheNetwork: the publish profile's filter is the read-only
// profile's with exactly the network rules left out — the ten that refuse sockets, connect,
// bind, listen, accept and sendto to an address — so that nothing else read-only mode refuses
// (chmod, ptrace, namespaces, io_uring, …) is allowed to a publish; and one added, which
// refuses unix sockets (issue 22: a container engine's socket from the publish profile).
func TestPublishRulesAreReadOnlysButTheNetwork(t *testing.T) {
	var ro, pub []string
	for _, r := range readOnlyRules() {
		ro = append(ro, r.Name)
	}
	for _, r := range publishRules() {
		pub = append(pub, r.Name)
	}
	var dropped []string
	for _, n := range ro {
		if !slices.Contains(pub, n) {
			dropped = append(dropped, n)
		}
	}
	want := []string{"socket (family)", "socket (type)", "socketpair (family)", "socketpair (type)", "connect", "bind", "listen",
		"accept", "accept4", "sendto (an address)"}
	slices.Sort(dropped)
	slices.Sort(want)
	if !slices.Equal(dropped, want) || len(pub)+len(want) != len(ro)+1 || !slices.Contains(pub, "socket (unix)") {
		t.Errorf("the publish filter drops %q from the read-only one (%d rules, %d left); want exactly %q", dropped, len(ro), len(pub), want)
	}
	for _, n := range []string{"ptrace", "unshare", "fchmodat", "io_uring_setup", "clone (new namespaces)"} {
		if !slices.ContainsFunc(pub, func(p string) bool { return strings.HasPrefix(p, n) }) {
			t.Errorf("the publish filter lets %s through", n)
		}
	}
}

// TestPublishProfileNeedsItsNetwork: the publish profile, which allows sockets, never applies
// without the egress proxy's bridge (it would have the caller's network).
func TestPublishProfileNeedsItsNetwork(t *testing.T) {
	p := Publish(nil, t.TempDir(), nil)
	if _, err := Apply(p); err == nil || !strings.Contains(err.Error(), "network namespace of its own") {
		t.Fatalf("Apply without a proxy: %v", err)
	}
}
