package sandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/tidwall/gjson"

	"github.com/hookctl/hookctl/internal/buildinfo"
	"github.com/hookctl/hookctl/internal/fsutil"
	"github.com/hookctl/hookctl/internal/landlock"
)

// Status is what the probe found: whether commands can run sandboxed on this machine, and if
// not, why. The hook rewrites admitted commands into the launcher only when Available.
type Status struct {
	Available bool    `json:"available"`
	Reason    string  `json:"reason,omitempty"` // why not, in the user's terms
	Isolation string  `json:"isolation,omitempty"`
	Checks    []Check `json:"checks,omitempty"`
	// Edit: the edit profile holds too (it needs a private mount namespace); EditReason says
	// why not.
	Edit       bool    `json:"edit"`
	EditReason string  `json:"edit_reason,omitempty"`
	EditChecks []Check `json:"edit_checks,omitempty"`
	// EditLandlock, where Edit is false: the Landlock-only edit profile holds (EditLandlock: no
	// namespaces here); EditLandlockReason says why not.
	EditLandlock       bool    `json:"edit_landlock,omitempty"`
	EditLandlockReason string  `json:"edit_landlock_reason,omitempty"`
	EditLandlockChecks []Check `json:"edit_landlock_checks,omitempty"`
	// PolicyOnly, where the sandbox is not Available, names what the policy-only launch still
	// holds (RunPolicyOnly), as the probe found it: "" for nothing.
	PolicyOnly string `json:"policy_only,omitempty"`
	// LauncherFile is the read-only launcher beside Binary (LauncherName) as the probe found it
	// (fsutil.Identity, "" for none), and Launcher whether it was of this build then. The hook
	// starts admitted commands in it only then; in `hookctl sandbox` otherwise, the same
	// profiles in hookctl's own binary. A launcher changed since is a cache miss: another probe.
	LauncherFile string `json:"launcher_file,omitempty"`
	Launcher     bool   `json:"launcher,omitempty"`
	// HeldSince and EditHeldSince: when a probe on this machine (Machine) first found each
	// sandbox holding. A sandbox that held here and fails now is failing, not absent (Failing):
	// only the kernel's facts (Machine: no Landlock, another kernel) say a machine has none,
	// never something a command could cause (a link at a hidden path, a full temporary
	// directory, a cache removed). The user forgets it with `hookctl sandbox --forget`.
	HeldSince     *time.Time `json:"held_since,omitempty"`
	EditHeldSince *time.Time `json:"edit_held_since,omitempty"`
	// The key: a probe holds for one kernel, booted with Landlock at one ABI (or without it),
	// and one build of hookctl at one path.
	Machine string    `json:"machine"`
	Build   string    `json:"build"`
	Binary  string    `json:"binary"`
	Time    time.Time `json:"time"`
}

// Failing says whether the read-only sandbox held on this machine and does not now: every
// shell command is then refused, never run without it.
func (s Status) Failing() bool { return !s.Available && s.HeldSince != nil }

// EditFailing is Failing for the edit profile.
func (s Status) EditFailing() bool { return !s.Edit && s.EditHeldSince != nil }

// Check is one attempt the probe made from inside the sandbox.
type Check struct {
	Name   string `json:"name"`
	OK     bool   `json:"ok"`
	Detail string `json:"detail,omitempty"`
}

// CacheName is the probe's cache file in hookctl's home (which sandboxed commands cannot read
// or write, and edit mode protects).
const CacheName = "sandbox.json"

// ProbeTimeout bounds a probe's checks: two execs of hookctl (and before them, half a second at
// most for the launcher's version).
const ProbeTimeout = 3 * time.Second

// Current returns the probe's result for this machine, build and launcher, probing (and
// caching the result) if no cached one matches. A cache that cannot be written costs a probe
// per call, nothing else. It runs in every hook call that admits a command, so it reads the
// cache with gjson and its key with three system calls (the kernel, Landlock, the launcher's
// file): decoding with encoding/json and reading the boot id cost the hook 0.2 ms
// (docs/decisions/0005).
func Current(home, binary string) Status { return CurrentWaiting(home, binary, nil) }

// CurrentWaiting is Current, calling waiting (if not nil) before it waits for another
// process's probe: a hook in a burst lowers its priority there, so that when the answer comes
// the burst's waiters do not all wake at full priority, ahead of the hooks whose deadline runs.
func CurrentWaiting(home, binary string, waiting func()) Status {
	if st, ok := cached(home, binary); ok {
		return st
	}
	// One process probes; the others wait for its answer rather than each probe as well: a
	// probe is two execs of hookctl, and in a burst of hooks with no answer cached (the first
	// after an upgrade) half of 600 missed their deadline while 600 probes ran at once.
	lock := filepath.Join(home, probeLock)
	os.MkdirAll(home, 0o700)
	if unlock, err := fsutil.TryLock(lock); err == nil {
		defer unlock()
		if st, ok := cached(home, binary); ok {
			return st
		}
		return Refresh(home, binary)
	}
	if waiting != nil {
		waiting()
	}
	if unlock, err := fsutil.LockShared(lock, ProbeWait); err == nil {
		unlock()
		if st, ok := cached(home, binary); ok {
			return st
		}
	}
	return Refresh(home, binary) // the prober failed, or held the lock past its own timeout: probe here
}

// probeLock is the lock in hookctl's home that the process probing holds.
const probeLock = "sandbox.probe.lock"

// ProbeWait bounds how long a process waits for another's probe: past the probe's own timeout,
// so that a waiter probes only when the prober failed or is stuck. A hook's deadline comes
// first, and refuses the call (it never runs a command without knowing the sandbox); a waiter
// that probed sooner would join hundreds of probes that slow the one that counts, as it did
// with a 1.5 s wait on a loaded machine (296-299 of 600 refused).
const ProbeWait = ProbeTimeout + time.Second

// cached is the cached result, if it is this machine's and this build's.
func cached(home, binary string) (Status, bool) {
	data, err := fsutil.ReadFile(filepath.Join(home, CacheName), 64<<10, true)
	if err == nil {
		// One pass over the file's keys, taking the first of each as gjson.Get would: a Get for
		// each key scanned the file once per key.
		keys := [...]string{"machine", "build", "binary", "available", "reason", "isolation", "edit", "edit_reason",
			"held_since", "edit_held_since", "policy_only", "edit_landlock", "edit_landlock_reason", "launcher_file", "launcher"}
		var f [len(keys)]gjson.Result
		gjson.ParseBytes(data).ForEach(func(k, v gjson.Result) bool {
			if i := slices.Index(keys[:], k.Str); i >= 0 && !f[i].Exists() {
				f[i] = v
			}
			return true
		})
		if f[0].Str == machineKey() && f[1].Str == buildinfo.ID() && f[2].Str == binary && f[13].Str == fsutil.Identity(LauncherPath(binary)) {
			return Status{Machine: f[0].Str, Build: f[1].Str, Binary: f[2].Str,
				Available: f[3].Bool(), Reason: f[4].Str, Isolation: f[5].Str, Edit: f[6].Bool(), EditReason: f[7].Str,
				HeldSince: heldTime(f[8]), EditHeldSince: heldTime(f[9]), PolicyOnly: f[10].Str,
				EditLandlock: f[11].Bool(), EditLandlockReason: f[12].Str, LauncherFile: f[13].Str, Launcher: f[14].Bool()}, true
		}
	}
	return Status{}, false
}

func heldTime(r gjson.Result) *time.Time {
	if !r.Exists() {
		return nil
	}
	t := r.Time()
	return &t
}

// Refresh probes and caches the result, carrying over when each sandbox first held on this
// machine (a cache from another machine key carries nothing: the kernel's facts changed).
func Refresh(home, binary string) Status {
	st := Probe(home, binary)
	st.Machine = machineKey()
	if prev, ok := Cached(home); ok && prev.Machine == st.Machine {
		st.HeldSince, st.EditHeldSince = prev.HeldSince, prev.EditHeldSince
	}
	now := st.Time
	if st.Available && st.HeldSince == nil {
		st.HeldSince = &now
	}
	if st.Edit && st.EditHeldSince == nil {
		st.EditHeldSince = &now
	}
	if data, err := json.Marshal(st); err == nil {
		if os.MkdirAll(home, 0o700) == nil {
			fsutil.WriteAtomic(filepath.Join(home, CacheName), append(data, '\n'), 0o600)
		}
	}
	return st
}

// Cached reads the probe's cache, whatever its key.
func Cached(home string) (Status, bool) {
	var st Status
	data, err := fsutil.ReadFile(filepath.Join(home, CacheName), 64<<10, true)
	if err != nil || json.Unmarshal(data, &st) != nil {
		return Status{}, false
	}
	return st, true
}

// Forget removes the cache, and with it what it remembers of a sandbox that held, so that the
// next hook probes afresh: the user's `hookctl sandbox --forget`, for a machine that really has
// no sandbox any more. No sandboxed command can reach it (hookctl's home is hidden from every
// profile), and the launcher never calls it: a sandbox that fails to apply refuses the command.
func Forget(home string) error {
	if err := os.Remove(filepath.Join(home, CacheName)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}

// machineKey names what a probe's answer depends on that can change under a cached one: the
// kernel and whether (and at which ABI) it runs Landlock, which a boot option or a container's
// filter can take away.
func machineKey() string {
	abi := "none"
	if n, err := landlock.ABI(); err == nil {
		abi = strconv.Itoa(n)
	}
	return kernelRelease() + "; landlock " + abi
}

// Probe runs a real restricted exec: binary's launcher applies the read-only profile and
// execs binary again, which tries from inside what the profile must refuse (a write outside the
// scratch directory, a read of hookctl's home, a socket, a chmod) and what it must allow (a
// read, a write to the scratch directory). The sandbox is available only if every attempt went
// as the profile says.
func Probe(home, binary string) Status {
	st := Status{Build: buildinfo.ID(), Binary: binary, Time: time.Now().UTC()}
	st.LauncherFile, st.Launcher = launcherBeside(binary)
	if !Supported {
		st.Reason = "hookctl has no sandbox for this platform yet"
		return st
	}
	// Without Landlock the read-only profile may still hold, with read-only mounts in a mount
	// namespace of its own (treeOps): the probe tries it.
	noLandlock := ready()
	if noLandlock != nil && !errors.Is(noLandlock, landlock.ErrUnsupported) {
		st.Reason = noLandlock.Error()
		return st
	}
	// The temporary directory, else beside hookctl's home (a TMPDIR may be another user's, or
	// full): the edit check needs a project outside hookctl's home, which it hides.
	dir, err := os.MkdirTemp("", "hookctl-probe-")
	if err != nil {
		if dir, err = os.MkdirTemp(filepath.Dir(filepath.Clean(home)), ".hookctl-probe-"); err != nil {
			st.Reason = "the probe could not create a directory: " + err.Error()
			return st
		}
	}
	defer os.RemoveAll(dir)
	if err := os.MkdirAll(home, 0o700); err != nil {
		st.Reason = "the probe could not create hookctl's directory: " + err.Error()
		return st
	}
	marker, err := os.CreateTemp(home, ".probe-")
	if err != nil {
		st.Reason = "the probe could not write in hookctl's directory: " + err.Error()
		return st
	}
	marker.Close()
	defer os.Remove(marker.Name())
	for _, d := range []string{"scratch", "outside"} {
		os.Mkdir(filepath.Join(dir, d), 0o700)
	}
	os.WriteFile(filepath.Join(dir, "outside", "file"), []byte("x"), 0o600)

	ctx, cancel := context.WithTimeout(context.Background(), ProbeTimeout)
	defer cancel()
	st.Checks, st.Reason = runChecks(ctx, home, "the sandbox", binary, "sandbox", "--scratch", filepath.Join(dir, "scratch"), "--",
		binary, "sandbox", "--inside-check", dir, "--marker", marker.Name())
	if st.Reason != "" {
		if noLandlock != nil && !strings.Contains(st.Reason, "no Landlock") {
			st.Reason = noLandlock.Error() + ", and the read-only mounts that stand in for it cannot apply here: " + st.Reason
		}
		checks, _ := runChecks(ctx, home, "the policy-only launch", binary, "sandbox", "--profile", "policy-only", "--scratch", filepath.Join(dir, "scratch"), "--",
			binary, "sandbox", "--inside-check", dir, "--marker", marker.Name())
		st.PolicyOnly = policyOnlyHolds(checks)
		return st
	}
	st.Available = true
	st.Isolation = describe() + layerSummary(st.Checks)
	st.EditChecks, st.EditReason = probeEdit(ctx, dir, binary, home, marker.Name())
	st.Edit = st.EditReason == ""
	if !st.Edit {
		st.EditLandlockChecks, st.EditLandlockReason = probeEditLandlock(ctx, dir, binary, home, marker.Name())
		st.EditLandlock = st.EditLandlockReason == ""
	}
	return st
}

// LauncherName is the read-only launcher's executable (cmd/hookctl-sandbox, sandbox/readonly),
// which the hook starts admitted commands in where it is installed beside hookctl.
const LauncherName = "hookctl-sandbox"

// LauncherPath is where the read-only launcher of the hookctl at binary is installed: beside it.
func LauncherPath(binary string) string { return filepath.Join(filepath.Dir(binary), LauncherName) }

// launcherBeside is the launcher beside binary as it is now: its file's identity ("" where
// there is none) and whether it is of this build, as its version says. One of another build
// (hookctl upgraded without it) would refuse every command: its rules are not the hook's.
func launcherBeside(binary string) (string, bool) {
	path := LauncherPath(binary)
	id := fsutil.Identity(path)
	if id == "" {
		return "", false
	}
	// Half a second at most, within what waiters allow a probe past its checks' own timeout
	// (ProbeWait): the launcher prints two lines. One that takes longer is not started.
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	out, err := exec.CommandContext(ctx, path, "version").Output()
	return id, err == nil && string(out) == buildinfo.Describe(LauncherName) && fsutil.Identity(path) == id
}

// probeEdit tries the edit profile for real: a project it may write, holding a .claude it may
// not, beside a directory it may not write, and hookctl's home, which it may not read.
func probeEdit(ctx context.Context, dir, binary, home, marker string) ([]Check, string) {
	project := filepath.Join(dir, "project")
	os.MkdirAll(filepath.Join(project, ".claude"), 0o755)
	os.WriteFile(filepath.Join(project, ".claude", "settings.json"), []byte("{}\n"), 0o644)
	// --probe-confine: the profile as edit mode has it, but with the project as its only
	// writable directory, so that a directory beside it (in the temporary directory, which edit
	// mode may write) shows whether writes outside are refused.
	outside := filepath.Join(dir, "outside")
	// A service outside the sandbox, listening on a unix socket (the supervisor must refuse it).
	if fd, err := unixListen(filepath.Join(outside, "service.sock")); err == nil {
		defer syscall.Close(fd)
	}
	return runChecks(ctx, home, "the edit sandbox", binary, "sandbox", "--profile", EditName, "--probe-confine",
		"--scratch", filepath.Join(dir, "scratch"), "--project", project, "--",
		binary, "sandbox", "--inside-check-edit", dir, "--marker", marker, "--outside", outside)
}

// probeEditLandlock tries the Landlock-only edit profile for real (where the edit profile's
// namespaces are missing): a project it may write, holding a .claude it may not, beside a
// directory it may not write, and hookctl's home, which it may not read.
func probeEditLandlock(ctx context.Context, dir, binary, home, marker string) ([]Check, string) {
	project := filepath.Join(dir, "project-landlock")
	os.MkdirAll(filepath.Join(project, ".claude"), 0o755)
	os.MkdirAll(filepath.Join(project, "src"), 0o755)
	os.WriteFile(filepath.Join(project, ".claude", "settings.json"), []byte("{}\n"), 0o644)
	os.WriteFile(filepath.Join(project, "file"), nil, 0o644)
	return runChecks(ctx, home, "the Landlock-only edit sandbox", binary, "sandbox", "--profile", EditLandlockName, "--probe-confine",
		"--scratch", filepath.Join(dir, "scratch"), "--project", project, "--",
		binary, "sandbox", "--inside-check-edit-landlock", dir, "--marker", marker, "--outside", filepath.Join(dir, "outside"))
}

// runChecks runs one half of the probe, the launcher execing the inside check, and returns the
// checks it printed and, if the sandbox (named what) could not be applied or did not hold, why.
func runChecks(ctx context.Context, home, what, name string, args ...string) ([]Check, string) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = append(os.Environ(), "HOOKCTL_HOME="+home)
	// From /, not from the caller's directory: the result is remembered for the machine, and
	// must not depend on where the hook that ran the probe happened to be (a directory the
	// user cannot enter made the edit sandbox's checks fail, and edit mode fall back).
	cmd.Dir = "/"
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	runErr := cmd.Run()
	var checks []Check
	if json.Unmarshal(out.Bytes(), &checks) != nil || len(checks) == 0 {
		msg := strings.TrimSpace(errb.String())
		if msg == "" && runErr != nil {
			msg = runErr.Error()
		}
		msg = strings.TrimPrefix(firstLine(msg), "hookctl sandbox: ")
		return nil, strings.TrimPrefix(msg, "the sandbox could not be applied, so the command did not run: ")
	}
	for _, c := range checks {
		if !c.OK {
			return checks, what + " did not hold: " + c.Name + ": " + c.Detail
		}
	}
	return checks, ""
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

// InsideCheck is the probe's other half, run inside the sandbox: dir is the probe's directory
// (scratch/ is this sandbox's scratch, outside/ is not), marker a file in hookctl's home.
func InsideCheck(dir, marker string) []Check {
	var checks []Check
	check := func(name string, ok bool, detail string) {
		if ok {
			detail = ""
		}
		checks = append(checks, Check{Name: name, OK: ok, Detail: detail})
	}
	refused := func(name string, err error, want ...syscall.Errno) {
		for _, e := range want {
			if errors.Is(err, e) {
				check(name, true, "")
				return
			}
		}
		check(name, false, fmt.Sprintf("got %v", err))
	}
	outside := filepath.Join(dir, "outside")
	// EACCES from Landlock; EROFS from the read-only mounts that stand in for it (treeOps).
	refused("refused: a write outside the scratch directory", os.WriteFile(filepath.Join(outside, "new"), nil, 0o600), syscall.EACCES, syscall.EPERM, syscall.EROFS)
	refused("refused: a directory made outside the scratch directory", os.Mkdir(filepath.Join(outside, "d"), 0o700), syscall.EACCES, syscall.EPERM, syscall.EROFS)
	refused("refused: removing a file", os.Remove(filepath.Join(outside, "file")), syscall.EACCES, syscall.EPERM, syscall.EROFS)
	refused("refused: a mode change", os.Chmod(filepath.Join(outside, "file"), 0o777), syscall.EPERM)
	_, err := os.ReadFile(marker)
	// ENOENT where a mount masks it (maskOps), EACCES where Landlock hides it.
	refused("refused: reading hookctl's home", err, syscall.EACCES, syscall.EPERM, syscall.ENOENT)
	refused("refused: an inet socket", socketErr(syscall.AF_INET, syscall.SOCK_STREAM), syscall.EPERM)
	refused("refused: a UDP socket", socketErr(syscall.AF_INET6, syscall.SOCK_DGRAM), syscall.EPERM)
	refused("refused: a unix datagram socket", socketErr(syscall.AF_UNIX, syscall.SOCK_DGRAM), syscall.EPERM)
	refused("refused: connecting a unix socket", unixConnectErr(filepath.Join(outside, "sock")), syscall.EPERM)
	err = os.WriteFile(filepath.Join(dir, "scratch", "ok"), []byte("x"), 0o600)
	check("allowed: a write to the scratch directory", err == nil, fmt.Sprint(err))
	_, err = os.ReadFile(filepath.Join(outside, "file"))
	check("allowed: reading a file", err == nil, fmt.Sprint(err))
	// The launcher, outside: its environment is the client's whole one (issue 23). In a process
	// namespace of its own the command cannot see it at all; without one, Landlock refuses it.
	_, err = os.ReadFile(fmt.Sprintf("/proc/%d/environ", os.Getppid()))
	refused("refused: another process's environment", err, syscall.EACCES, syscall.EPERM, syscall.ENOENT)
	if os.Getpid() == 1 {
		check("hidden: every other process (a process namespace of its own)", true, "")
	} else {
		check("listed: other processes (no process namespace here: their command lines can be read; their environments and memory cannot)", true, "")
	}
	return append(checks, layerChecks()...)
}

// layerChecks are what the process it runs in says of itself (/proc/self/status): whether
// no_new_privs, a seccomp filter and no capabilities hold it, and for root whether its
// capability bounding set is empty (it cannot be where root lacks CAP_SETPCAP: a container
// that dropped every capability). They never fail the probe; the ones named "missing:" say
// what does not hold, and the probe's description (layerSummary) names them.
func layerChecks() []Check {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return nil
	}
	field := func(name string) string {
		for _, line := range strings.Split(string(status), "\n") {
			if v, ok := strings.CutPrefix(line, name+":"); ok {
				return strings.TrimSpace(v)
			}
		}
		return ""
	}
	var checks []Check
	fact := func(holds bool, yes, no string) {
		if holds {
			checks = append(checks, Check{Name: "holds: " + yes, OK: true})
		} else if no != "" {
			checks = append(checks, Check{Name: "missing: " + no, OK: true})
		}
	}
	none := func(v string) bool { return strings.Trim(v, "0") == "" && v != "" }
	if _, err := landlock.ABI(); err != nil {
		fact(false, "", "Landlock (the kernel has none: read-only mounts hold the writes, masks the hidden paths)")
	}
	fact(field("NoNewPrivs") == "1", "no_new_privs", "no_new_privs")
	fact(field("Seccomp") == "2", "seccomp filter", "a seccomp filter")
	fact(none(field("CapEff")) && none(field("CapPrm")), "no capabilities", "dropping the capabilities")
	if os.Geteuid() == 0 {
		fact(none(field("CapBnd")), "an empty capability bounding set",
			"an empty capability bounding set (no CAP_SETPCAP here to empty it; no_new_privs keeps an exec from regaining any)")
	}
	return checks
}

// layerSummary is what the probe's description adds from layerChecks: the layers that hold,
// then what is missing.
func layerSummary(checks []Check) string {
	var holds, missing []string
	for _, c := range checks {
		if v, ok := strings.CutPrefix(c.Name, "holds: "); ok {
			holds = append(holds, v)
		} else if v, ok := strings.CutPrefix(c.Name, "missing: "); ok {
			missing = append(missing, v)
		} else if strings.HasPrefix(c.Name, "hidden: every other process") {
			holds = append(holds, "a process namespace of its own")
		} else if strings.HasPrefix(c.Name, "listed: other processes") {
			missing = append(missing, "a process namespace (other processes' command lines can be read)")
		}
	}
	s := ""
	if len(holds) > 0 {
		s += ", " + strings.Join(holds, ", ")
	}
	if len(missing) > 0 {
		s += "; without " + strings.Join(missing, ", ")
	}
	return s
}

// InsideCheckEdit is the edit probe's inside half (see probeEdit).
func InsideCheckEdit(dir, marker, outside string) []Check {
	var checks []Check
	check := func(name string, err error, want ...syscall.Errno) {
		c := Check{Name: name, OK: len(want) == 0 && err == nil}
		for _, e := range want {
			c.OK = c.OK || errors.Is(err, e)
		}
		if !c.OK {
			c.Detail = fmt.Sprintf("got %v", err)
		}
		checks = append(checks, c)
	}
	project := filepath.Join(dir, "project")
	check("allowed: a write to the project", os.WriteFile(filepath.Join(project, "new"), []byte("x"), 0o644))
	check("refused: a write to the project's .claude", os.WriteFile(filepath.Join(project, ".claude", "settings.json"), []byte("x"), 0o644),
		syscall.EROFS, syscall.EACCES, syscall.EPERM)
	check("refused: moving the project's .claude away", os.Rename(filepath.Join(project, ".claude"), filepath.Join(project, "moved")),
		syscall.EBUSY, syscall.EROFS, syscall.EACCES, syscall.EPERM)
	check("refused: a write outside the project", os.WriteFile(filepath.Join(outside, "new"), nil, 0o600), syscall.EACCES, syscall.EPERM)
	check("refused: a client's settings directory below the project", os.MkdirAll(filepath.Join(project, "sub", ".claude"), 0o755), syscall.EACCES)
	check("refused: a unix socket a service outside listens on", unixConnectErr(filepath.Join(outside, "service.sock")), syscall.EACCES)
	check("allowed: a unix socket made inside", insideSocketErr(filepath.Join(project, "inside.sock")))
	_, err := os.ReadFile(marker)
	check("refused: reading hookctl's home", err, syscall.EACCES, syscall.EPERM, syscall.ENOENT)
	// No route but loopback: a connection to an address outside fails at once (ENETUNREACH),
	// where the user's network would be trying it (EINPROGRESS).
	check("refused: a connection out of the network namespace", connectOutErr(), syscall.ENETUNREACH)
	var proxyErr error
	if p := os.Getenv("HTTPS_PROXY"); !strings.HasPrefix(p, "http://127.0.0.1:") {
		proxyErr = fmt.Errorf("HTTPS_PROXY is %q", p)
	}
	check("allowed: the egress proxy, named in HTTPS_PROXY", proxyErr)
	return checks
}

// connectOutErr starts a connection to an address of the documentation range (192.0.2.1, which
// nothing answers), without waiting for it.
func connectOutErr() error {
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
	if err != nil {
		return err
	}
	defer syscall.Close(fd)
	if err := syscall.SetNonblock(fd, true); err != nil {
		return err
	}
	err = syscall.Connect(fd, &syscall.SockaddrInet4{Port: 80, Addr: [4]byte{192, 0, 2, 1}})
	if err == nil {
		return errors.New("it connected")
	}
	return err
}

// unixListen listens on a unix stream socket at path. (System calls, not package net: the hook
// process links this package and links no network code.)
func unixListen(path string) (int, error) {
	fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err != nil {
		return -1, err
	}
	syscall.CloseOnExec(fd)
	if err := syscall.Bind(fd, &syscall.SockaddrUnix{Name: path}); err != nil {
		syscall.Close(fd)
		return -1, err
	}
	if err := syscall.Listen(fd, 8); err != nil {
		syscall.Close(fd)
		return -1, err
	}
	return fd, nil
}

// insideSocketErr listens on a unix socket at path and connects to it.
func insideSocketErr(path string) error {
	l, err := unixListen(path)
	if err != nil {
		return err
	}
	defer syscall.Close(l)
	return unixConnectErr(path)
}

func socketErr(family, typ int) error {
	fd, err := syscall.Socket(family, typ, 0)
	if err == nil {
		syscall.Close(fd)
		return errors.New("the socket opened")
	}
	return err
}

func unixConnectErr(path string) error {
	fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err != nil {
		return err
	}
	defer syscall.Close(fd)
	return syscall.Connect(fd, &syscall.SockaddrUnix{Name: path})
}
