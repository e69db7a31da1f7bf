//go:build !linux

package main

import "errors"

func execWithoutLandlock([]string, bool) error { return errors.New("Landlock is Linux's") }

func execAtLandlockABI(int, []string) error { return errors.New("Landlock is Linux's") }

func execChildCannotMap([]string) error { return errors.New("user namespaces are Linux's") }
