package conformance

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/hookctl/hookctl/agents/agenttest"
)

// managedPolicyDir is the organisation's policy directory, at the fixed place hookctl reads.
const managedPolicyDir = "/etc/hookctl"

// clientVersionPolicy: the organisation's policy, bind-mounted at /etc/hookctl in a mount
// namespace of the client's own (over a layer of its own: agenttest.InPlace), allows some versions of the client. hookctl learns the
// version of the client that runs it from the client's process and package: a policy that
// refuses exactly the installed version refuses the model's read, naming the version and the
// policy's reason; one whose minimum is exactly the installed version lets the same read run
// (its output reaches the model) — each is the other's control, and together they show the
// version was learned exactly.
func clientVersionPolicy(t *testing.T, c *agenttest.Client) {
	if os.Geteuid() != 0 {
		t.Skip("mounting the policy at /etc/hookctl needs root")
	}
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Skip("needs unshare")
	}
	if _, err := os.Lstat(filepath.Join(managedPolicyDir, "config.toml")); err == nil {
		t.Skipf("this machine has an organisation's policy at %s already", managedPolicyDir)
	}
	marker := "version-policy-marker-" + c.Agent
	for _, r := range []struct {
		name, policy string
		refused      bool
	}{
		{"refuses the installed version", "[clients." + c.Agent + "]\nrefuse = { \"" + c.Version + "\" = \"a fail-open hook bug (test)\" }\n", true},
		{"allows it as the minimum", "[clients." + c.Agent + "]\nmin_version = \"" + c.Version + "\"\n", false},
	} {
		t.Run(r.name, func(t *testing.T) {
			s := c.NewSession(t, func(*agenttest.Project) []agenttest.Step { return []agenttest.Step{agenttest.Shell("cat marker.txt")} })
			if err := os.WriteFile(filepath.Join(s.Dir, "marker.txt"), []byte(marker+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			policy := agenttest.MachineDir(t, "hookctl-version-policy-")
			if err := os.WriteFile(filepath.Join(policy, "config.toml"), []byte(r.policy), 0o644); err != nil {
				t.Fatal(err)
			}
			// The client runs where the policy is in place, and its hooks with it.
			wrapper := agenttest.InPlaceWrapper(t, policy, managedPolicyDir, s.Bin)
			s.Bin = wrapper
			s.Register(t)
			s.Run(t, "Read the marker.")
			why := c.Refused + "hookctl refuses every call until this is fixed: " + c.Name + " " + c.Version + " is refused by your organisation's policy (" + managedPolicyDir + "/config.toml): a fail-open hook bug (test)"
			switch ran, refused := s.API.Saw(marker), s.API.Saw(why); {
			case r.refused && (ran || !refused):
				t.Errorf("a policy refusing %s %s: the read ran %v, the model was told %q: %v", c.Name, c.Version, ran, why, refused)
			case !r.refused && (!ran || s.API.Saw("organisation's policy")):
				t.Errorf("a policy whose minimum is %s %s: the read ran %v (want true) or was refused", c.Name, c.Version, ran)
			}
		})
	}
}
