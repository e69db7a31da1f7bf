// Package wordlist reads the space-separated word lists hookctl keeps its small tables in.
//
// A Go map literal at package level is built every time a process starts, and Claude Code
// starts hookctl for every tool call; a string is laid out by the compiler and costs nothing
// until it is read. The lists are tens of words, so a scan is as fast as a map lookup.
package wordlist

import "strings"

// Has reports whether w is one of the space-separated words of list. It never allocates. A w
// holding a space is never in the list, even where it would match neighbours ("-a -b" in
// "-a -b -c"): a program receives such a word as one argument, which is none of its names.
func Has(list, w string) bool {
	if w == "" || strings.IndexByte(w, ' ') >= 0 {
		return false
	}
	for len(list) > 0 {
		i := strings.Index(list, w)
		if i < 0 {
			return false
		}
		end := i + len(w)
		if (i == 0 || list[i-1] == ' ') && (end == len(list) || list[end] == ' ') {
			return true
		}
		list = list[i+1:]
	}
	return false
}
