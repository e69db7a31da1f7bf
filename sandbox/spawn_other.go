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

// RunInit: namespaces are Linux's.
func RunInit(InitLaunch) (int, error) { return 0, errNotApplied(errNoNamespaces) }

// ServeInit: namespaces are Linux's.
func ServeInit(InitConfig) int { return 126 }

// EditDir: namespaces are Linux's.
func EditDir(string, string) (string, error) { return "", errNoNamespaces }

// RegisterInit: namespaces are Linux's.
func RegisterInit(string, string, int) error { return errNoNamespaces }

// ForgetInit: namespaces are Linux's.
func ForgetInit(string, string, int) {}

// EndEdit: nothing runs in an edit sandbox here.
func EndEdit(string, string) int { return 0 }

// LayersDir: namespaces are Linux's.
func LayersDir(string, string) string { return "" }

// ServeRunInit: namespaces are Linux's.
func ServeRunInit([]string, []string, int) int { return 126 }
