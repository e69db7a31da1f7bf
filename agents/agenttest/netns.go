package agenttest

import (
	"fmt"
	"os"
	"os/exec"
	"testing"
)

// isolatedVar marks the test process IsolateNetwork started in its own network namespace.
const isolatedVar = "HOOKCTL_E2E_ISOLATED"

// IsolateNetwork runs the tests in a network namespace holding only the loopback interface, as
// the clients were first run here: the client, its hooks and the fake model API can reach each
// other on 127.0.0.1 and nothing else, so no test sends anything off the machine (a client's
// telemetry or update check included). It re-runs the test binary under unshare (as root: a new
// network namespace; otherwise a user namespace too) and returns its exit code; where unshare or
// ip is missing, or the namespace cannot be made, it runs the tests where they are and says so.
// Call it from TestMain: os.Exit(agenttest.IsolateNetwork(m)).
func IsolateNetwork(m *testing.M) int {
	if os.Getenv(isolatedVar) == "1" {
		return m.Run()
	}
	unshare, err1 := exec.LookPath("unshare")
	ip, err2 := exec.LookPath("ip")
	if err1 != nil || err2 != nil {
		fmt.Fprintln(os.Stderr, "agenttest: unshare or ip not found: the clients run with this machine's network")
		return m.Run()
	}
	flags := "-n"
	if os.Geteuid() != 0 {
		flags = "-rn"
	}
	probe := exec.Command(unshare, flags, ip, "link", "set", "lo", "up")
	if out, err := probe.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "agenttest: cannot make a network namespace (%v: %s): the clients run with this machine's network\n", err, out)
		return m.Run()
	}
	self, err := os.Executable()
	if err != nil {
		return m.Run()
	}
	cmd := exec.Command(unshare, append([]string{flags, "sh", "-c", `"$0" link set lo up && shift && exec "$@"`, ip, "--", self}, os.Args[1:]...)...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.Env = append(os.Environ(), isolatedVar+"=1")
	if err := cmd.Run(); err != nil {
		if e, ok := err.(*exec.ExitError); ok {
			return e.ExitCode()
		}
		fmt.Fprintln(os.Stderr, "agenttest:", err)
		return 1
	}
	return 0
}
