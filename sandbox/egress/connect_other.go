//go:build !linux

package egress

import (
	"errors"
	"io"
)

// ProxyConnect: edit mode's network namespace and its proxy are Linux's.
func ProxyConnect(io.Reader, io.Writer, string, string) error {
	return errors.New("--proxy-connect runs inside edit mode's sandbox, which has a network of its own only on Linux")
}
