//go:build !(linux && (amd64 || arm64))

package sandbox

import (
	"errors"
	"os"
)

// errNoNamespaces: the edit and publish profiles' namespaces are Linux's.
var errNoNamespaces = errors.New("namespaces are Linux's")

// RunIsolated: namespaces are Linux's.
func RunIsolated([]string, Namespaces, func(*os.File) func()) (int, error) {
	return 0, errNotApplied(errNoNamespaces)
}

// BridgeNetwork: namespaces are Linux's.
func BridgeNetwork(int) (string, error) { return "", errNoNamespaces }

// StartWatcher: namespaces are Linux's.
func StartWatcher([]string) (int, error) { return -1, errNoNamespaces }

// UnshareNetwork: namespaces are Linux's.
func UnshareNetwork() error { return errNoNamespaces }

// Watch: namespaces are Linux's.
func Watch(int, int, func(*os.File) func()) error { return errNoNamespaces }

// BridgePort: namespaces are Linux's.
func BridgePort(string) uint16 { return 0 }

// ReceiveListener: namespaces are Linux's.
func ReceiveListener(*os.File) (*os.File, error) { return nil, errNoNamespaces }
