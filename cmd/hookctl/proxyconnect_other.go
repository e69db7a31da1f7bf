//go:build !linux

package main

import "errors"

// proxyConnect: edit mode's network namespace and its proxy are Linux's.
func proxyConnect(*streams, string, string) error {
	return errors.New("--proxy-connect runs inside edit mode's sandbox, which has a network of its own only on Linux")
}
