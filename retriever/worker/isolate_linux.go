//go:build linux

package worker

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/hookctl/hookctl/internal/landlock"
)

// IsolationPaths is what the retriever process may touch once isolated.
type IsolationPaths struct {
	Read    []string // files and directories it may read (CA certificates, resolver config)
	Write   []string // directories it may write (its own temporary directory)
	Execute []string // programs and libraries a distiller backend runs (claude, a command)
}

// DefaultIsolationPaths are the files TLS and name resolution need, and tmp, the process's own
// empty temporary directory.
func DefaultIsolationPaths(tmp string) IsolationPaths {
	read := []string{
		"/etc/ssl", "/etc/pki", "/etc/ca-certificates", "/usr/share/ca-certificates",
		"/usr/local/share/ca-certificates", "/etc/resolv.conf", "/etc/hosts", "/etc/nsswitch.conf",
		"/etc/gai.conf", "/etc/host.conf", "/etc/localtime", "/usr/share/zoneinfo", "/dev/null",
		"/dev/urandom",
	}
	for _, v := range []string{"SSL_CERT_FILE", "SSL_CERT_DIR"} {
		if p := os.Getenv(v); p != "" && filepath.IsAbs(p) {
			read = append(read, p)
		}
	}
	return IsolationPaths{Read: read, Write: []string{tmp}}
}

// Isolate restricts this process, all its threads and its children to paths, with Landlock.
// It returns a description of the isolation in force, for the audit ("landlock ABI 7"), or
// "none: …" saying why there is none; an error only when isolation was possible but failed,
// which the caller must treat as fatal.
func Isolate(paths IsolationPaths) (string, error) {
	var rules []landlock.Rule
	for _, set := range []struct {
		paths  []string
		access uint64
	}{
		{paths.Read, landlock.Read},
		{paths.Write, landlock.Read | landlock.Write&^landlock.Refer},
		{paths.Execute, landlock.Read | landlock.Execute},
	} {
		for _, p := range set.paths {
			rules = append(rules, landlock.Rule{Path: p, Access: set.access})
		}
	}
	abi, err := landlock.Restrict(landlock.Ruleset{
		Rules:      rules,
		DenyNet:    landlock.NetBindTCP,                                     // it may connect out, never listen
		Scope:      landlock.ScopeAbstractUnixSocket | landlock.ScopeSignal, // no abstract sockets, no signals out
		AllThreads: true,
	})
	switch {
	case errors.Is(err, landlock.ErrUnsupported):
		return "none: " + err.Error(), nil
	case errors.Is(err, landlock.ErrCgo):
		return "none: " + err.Error(), nil
	case err != nil:
		return "", err
	}
	return fmt.Sprintf("landlock ABI %d", abi), nil
}
