package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// SecureLaunch is what the secure-read-only profile's launcher and its run's init are told on
// their command line (hookctl run starts them: docs/secure-read-only.md).
type SecureLaunch struct {
	Read, Write []string // the roots it may read (a file too: hookctl's executable), and write
	StatusFD    int      // where what was applied, or why nothing ran, is reported (LaunchReport)
	// ModelFD is the init's handover, on which it sends the credential broker's listener (the
	// run's --network model-only), and ModelVars the variables it points at the broker
	// (ANTHROPIC_BASE_URL). ModelPort is the launcher's: the one port it may connect to, the
	// listener's.
	ModelFD   int
	ModelVars []string
	ModelPort int
}

// ExecSecure applies the secure-read-only profile to this process and replaces it with argv,
// run with env (the run's already). It returns only on failure, which it also reports on
// StatusFD: then nothing has run.
func ExecSecure(l SecureLaunch, argv, env []string) error {
	err := func() error {
		switch {
		case len(argv) == 0:
			return errors.New("give the program after --")
		case len(l.Read) == 0 || len(l.Write) == 0:
			return errors.New("the secure-read-only profile needs --read DIR and --write DIR (or --session ID)")
		}
		for i, d := range append(slices.Clone(l.Read), l.Write...) {
			if !filepath.IsAbs(d) {
				return fmt.Errorf("%s is not an absolute path", d)
			}
			// A root to read may be a file (hookctl's executable, for the agent's hooks).
			if fi, err := os.Stat(d); err != nil || (i >= len(l.Read) && !fi.IsDir()) {
				return fmt.Errorf("%s is not a directory", d)
			}
		}
		p := SecureReadOnly(l.Read, l.Write)
		p.StatusFD = l.StatusFD
		if l.ModelPort > 0 {
			p.ConnectPorts = []uint16{uint16(l.ModelPort)} // the run's init made the listener
		}
		return Exec(p, argv, env)
	}()
	if l.StatusFD > 0 {
		ReportFailure(l.StatusFD, err)
	}
	return err
}

// ServeSecureInit is the init of a hookctl run's launch (pid 1 of the process namespace the
// run's supervisor started it in, ServeRunInit): with ModelFD it makes the broker's listener in
// the run's network namespace (the command may connect to that port alone) and points
// ModelVars at it; then it starts the launcher again (hookctl sandbox --profile
// secure-read-only), which applies the profile and execs argv, and returns the command's
// status.
func ServeSecureInit(l SecureLaunch, argv, env []string) int {
	inner := []string{"hookctl", "sandbox", "--profile", SecureReadOnlyName}
	for _, r := range l.Read {
		inner = append(inner, "--read", r)
	}
	for _, w := range l.Write {
		inner = append(inner, "--write", w)
	}
	inner = append(inner, "--status-fd", strconv.Itoa(l.StatusFD))
	if l.ModelFD > 0 {
		// The network namespace hookctl run started this init in holds only loopback; the
		// broker (outside it) accepts on the listener made here.
		url, err := BridgeNetwork(l.ModelFD)
		if err != nil {
			ReportFailure(l.StatusFD, err)
			return exitLaunchFailed
		}
		inner = append(inner, "--model-port", strconv.Itoa(int(BridgePort(url))))
		// getenv finds the first of duplicates: drop any the environment has already.
		env = slices.DeleteFunc(slices.Clone(env), func(kv string) bool {
			name, _, _ := strings.Cut(kv, "=")
			return slices.Contains(l.ModelVars, name)
		})
		for _, v := range l.ModelVars {
			env = append(env, v+"="+url)
		}
	}
	return ServeRunInit(append(append(inner, "--"), argv...), env, l.StatusFD)
}

// exitLaunchFailed is a launcher's status when the sandbox could not be applied and so nothing
// ran (126: "found but could not be run", as the shell says it).
const exitLaunchFailed = 126
