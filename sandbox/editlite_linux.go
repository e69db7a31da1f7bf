//go:build linux && (amd64 || arm64)

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"syscall"

	"github.com/hookctl/hookctl/internal/landlock"
	"github.com/hookctl/hookctl/internal/seccomp"
)

// EditLandlock makes p, an edit profile (Edit), the edit profile where the kernel gives no
// namespaces (no user namespaces: Ubuntu 23.10+'s AppArmor restriction, a container that
// forbids them), held by Landlock and the seccomp filter alone (issue 28).
//
// What Landlock can still hold: it grants hierarchies and cannot carve a read-only path out
// of a writable tree, so the writable directories are granted piece by piece, as the read-only
// profile hides a path without mounts (grantTree): a writable directory that holds a frozen
// (or hidden) path is not granted itself; each of its entries is, whole, but the frozen one,
// and an entry that holds a frozen path deeper is split the same way. So hookctl's files, the
// clients' settings, git's hooks and config, the auto-run files and the shell's start-up
// files stay read-only, and nothing outside the writable directories can be written. The
// price, which the user is told: no new entry can be made in a directory that was split (the
// project's top directory, its .git: git commit cannot make its index.lock), because a right
// to make entries in a directory is a right in everything beneath it; the tools' caches are
// not writable (their overlays need mounts); a client's settings directory can be made deeper
// in the project (the supervisor that refuses it by name runs in the namespaces); and there is
// no network (the egress proxy's namespace is missing: TCP and every other socket but a local
// unix stream are refused, unless the user gave edit mode the whole network).
//
// An entry that is a symbolic link is not granted: a write through it would reach what it
// names, which its own rule (or none) decides.
func EditLandlock(p *Profile, fullNetwork bool) {
	p.Name, p.Edit, p.landlockOnly, p.Network = EditLandlockName, false, true, fullNetwork
	p.Writable = slices.DeleteFunc(p.Writable, func(w string) bool {
		real, err := filepath.EvalSymlinks(w)
		return err != nil || slices.Contains(p.Layered, real)
	})
	p.Layered = nil
}

// EditLandlockName is the Landlock-only edit profile's name (`hookctl sandbox --profile`).
const EditLandlockName = "edit-landlock"

// landlockOnlyRules are EditLandlock's: read and execute everything but Hidden, write the
// writable directories but Frozen and Hidden, and WriteFiles but the machine's terminals.
func landlockOnlyRules(p *Profile) ([]landlock.Rule, error) {
	rules, hidden, err := grantAllBut(p)
	if err != nil {
		return nil, err
	}
	keep := append(resolvedHidden(p.Frozen), hidden...)
	for _, f := range p.Frozen {
		keep = append(keep, f) // a missing one too: its directory may not make it
	}
	for _, w := range p.Writable {
		real, err := filepath.EvalSymlinks(w)
		if err != nil {
			continue
		}
		if rules, err = grantWritable(rules, real, keep); err != nil {
			return nil, err
		}
	}
	rules = append(rules, p.scratchRules()...)
	for _, f := range p.WriteFiles {
		if f != "/dev/ptmx" && f != "/dev/pts" { // no terminals of its own without a devpts
			rules = append(rules, writeFileRules([]string{f})...)
		}
	}
	return rules, nil
}

// grantWritable appends rules granting read, execute and write beneath dir, but keep.
func grantWritable(rules []landlock.Rule, dir string, keep []string) ([]landlock.Rule, error) {
	switch {
	case slices.ContainsFunc(keep, func(k string) bool { return within(dir, k) }):
		return rules, nil // frozen, or inside a frozen directory
	case !slices.ContainsFunc(keep, func(k string) bool { return within(k, dir) }):
		return append(rules, landlock.Rule{Path: dir, Access: readExec | landlock.Write}), nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("failed to list %s for the sandbox: %v", dir, err)
	}
	for _, e := range entries {
		if e.Type()&os.ModeSymlink != 0 {
			continue
		}
		if rules, err = grantWritable(rules, filepath.Join(dir, e.Name()), keep); err != nil {
			return nil, err
		}
	}
	return rules, nil
}

// landlockOnlyFilter is EditLandlock's seccomp filter: the edit profile's (no ptrace, no
// namespaces or mounts, no terminal injection, no io_uring), and without the whole network the
// read-only profile's network rules; abi below 3 adds oldABIRules.
func landlockOnlyFilter(p *Profile) []seccomp.Rule {
	rules := editRules()
	if !p.Network {
		for _, r := range readOnlyRules() {
			switch r.Name {
			case "socket (family)", "socket (type)", "socketpair (family)", "socketpair (type)", "connect", "bind", "listen",
				"accept", "accept4", "sendto (an address)":
				rules = append(rules, r)
			}
		}
	}
	sortRules(rules)
	return rules
}

// InsideCheckEditLandlock is the Landlock-only edit probe's inside half: dir is the probe's
// directory, whose project/ it may write but project/.claude, outside it may not.
func InsideCheckEditLandlock(dir, marker, outside string) []Check {
	var checks []Check
	check := func(name string, err error, want ...syscall.Errno) {
		c := Check{Name: name, OK: len(want) == 0 && err == nil}
		for _, e := range want {
			c.OK = c.OK || err != nil && errors.Is(err, e)
		}
		if !c.OK {
			c.Detail = fmt.Sprintf("got %v", err)
		}
		checks = append(checks, c)
	}
	project := filepath.Join(dir, "project-landlock")
	check("allowed: a write to a file of the project", os.WriteFile(filepath.Join(project, "file"), []byte("x"), 0o644))
	check("allowed: a new file in a directory of the project", os.WriteFile(filepath.Join(project, "src", "new"), []byte("x"), 0o644))
	check("refused: a write to the project's .claude", os.WriteFile(filepath.Join(project, ".claude", "settings.json"), []byte("x"), 0o644),
		syscall.EACCES, syscall.EPERM)
	check("refused: moving the project's .claude away", os.Rename(filepath.Join(project, ".claude"), filepath.Join(project, "moved")),
		syscall.EACCES, syscall.EPERM, syscall.EXDEV)
	check("refused: a write outside the project", os.WriteFile(filepath.Join(outside, "new"), nil, 0o600), syscall.EACCES, syscall.EPERM)
	_, err := os.ReadFile(marker)
	check("refused: reading hookctl's home", err, syscall.EACCES, syscall.EPERM)
	check("refused: a connection (no egress proxy without a network namespace)", connectOutErr(), syscall.EPERM, syscall.EACCES)
	return append(checks, layerChecks()...)
}
