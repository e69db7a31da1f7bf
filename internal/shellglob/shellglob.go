// Package shellglob expands a read's glob the way the shell that runs it will, for the
// sensitive-file rule: every file it matches is read. It is the hook process's I/O on the
// policy's behalf (World, the policy's World on this machine), bounded so that a glob of the
// whole disk is refused in a fraction of the hook's deadline rather than eating it.
package shellglob

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/hookctl/hookctl/internal/secrets"
)

// Bounds on one command's glob expansion (issue 23, item 9: `cat /*/*/*/*/*` spent the hook's
// whole 2 s deadline in filepath.Glob): the names it may match, the directory entries it may
// look at, and the time it may take, all well inside the hook's deadline.
const (
	maxGlobMatches = 4096
	maxGlobEntries = 20000
	maxGlobTime    = 300 * time.Millisecond
)

var errTooBig = errors.New("the glob matches too many files for hookctl to check them for secrets; name the files")

// budget is what is left of one command's bounds.
type budget struct {
	entries  int
	deadline time.Time
}

func newBudget() *budget {
	return &budget{entries: maxGlobEntries, deadline: time.Now().Add(maxGlobTime)}
}

// expand returns the existing paths pattern (absolute, or relative to the working directory
// the process has) matches, as a shell would expand it, a superset where shells differ: `*`, `?`
// and `[…]` match as fnmatch does within one name, a leading dot included (bash's dotglob, zsh's
// GLOB_DOTS); with zsh, `**/` matches any number of directories and `***/` follows links on the
// way (zsh expands them so without any option: issue 23, item 4), where bash reads both as `*/`.
// zsh is when the client's own shell may run the command (no launcher runs it under bash).
func expand(pattern string, zsh bool, b *budget) ([]string, error) {
	abs := strings.HasPrefix(pattern, "/")
	elems := strings.Split(strings.Trim(pattern, "/"), "/")
	start := "."
	if abs {
		start = "/"
	}
	var out []string
	var walk func(dir string, rest []string) error
	walk = func(dir string, rest []string) error {
		if len(rest) == 0 {
			if len(out) >= maxGlobMatches {
				return errTooBig
			}
			out = append(out, dir)
			return nil
		}
		e := rest[0]
		if e == "" || e == "." {
			return walk(dir, rest[1:])
		}
		if !strings.ContainsAny(e, "*?[") {
			next := join(dir, e)
			if _, err := os.Lstat(next); err != nil && len(rest) == 1 {
				return nil
			}
			return walk(next, rest[1:])
		}
		if zsh && (e == "**" || e == "***") && len(rest) > 1 {
			// zero or more directories, then the rest
			return recurse(dir, e == "***", b, func(d string) error { return walk(d, rest[1:]) })
		}
		entries, err := readDirBudget(dir, b)
		if err != nil {
			return err
		}
		for _, name := range entries {
			if secrets.Match(e, name, false) {
				if err := walk(join(dir, name), rest[1:]); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if err := walk(start, elems); err != nil {
		return nil, err
	}
	return out, nil
}

// recurse calls f on dir and every directory beneath it, following links to directories when
// links says so (zsh's ***), within the budget.
func recurse(dir string, links bool, b *budget, f func(string) error) error {
	if err := f(dir); err != nil {
		return err
	}
	entries, err := readDirBudget(dir, b)
	if err != nil {
		return err
	}
	for _, name := range entries {
		p := join(dir, name)
		fi, err := os.Lstat(p)
		if err != nil {
			continue
		}
		if fi.Mode()&os.ModeSymlink != 0 && links {
			if fi, err = os.Stat(p); err != nil {
				continue
			}
		}
		if fi.IsDir() {
			if err := recurse(p, links, b, f); err != nil {
				return err
			}
		}
	}
	return nil
}

// readDirBudget lists dir's names, charging them to the budget; a directory it cannot read has
// none (the shell matches nothing there), and only the budget's end is an error.
func readDirBudget(dir string, b *budget) ([]string, error) {
	if time.Now().After(b.deadline) {
		return nil, errTooBig
	}
	f, err := os.Open(dir)
	if err != nil {
		return nil, nil
	}
	defer f.Close()
	names, _ := f.Readdirnames(b.entries + 1)
	b.entries -= len(names)
	if b.entries < 0 {
		return nil, errTooBig
	}
	return names, nil
}

func join(dir, name string) string {
	if dir == "." {
		return name
	}
	return filepath.Join(dir, name)
}

// World is the policy's World (policy.World) on this machine: globs expanded on its file system
// within the bounds above, the home directory from the environment.
type World struct{}

// Globs returns the expander of one command's globs, its bounds shared by all of them.
func (World) Globs() func(pattern string, zsh bool) ([]string, error) {
	b := newBudget()
	return func(pattern string, zsh bool) ([]string, error) { return expand(pattern, zsh, b) }
}

// Home is the user's home directory, "" when unknown.
func (World) Home() string {
	h, _ := os.UserHomeDir()
	return h
}
