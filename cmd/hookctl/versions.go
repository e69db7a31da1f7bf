package main

import (
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/hookctl/hookctl/config"

	"github.com/hookctl/hookctl/agents/clientversion"
	"github.com/hookctl/hookctl/internal/buildinfo"
)

// versionRefusal says why the policy in cfg refuses every tool call of client agent: this
// hookctl is older than the policy's minimum, or the client's version is not one it allows or
// cannot be learned. "" when it does not.
func versionRefusal(cfg *config.Config, agent string) string {
	policy := policyName(cfg)
	if why := clientversion.CheckHookctl(buildinfo.Version(), cfg.MinHookctlVersion, policy); why != "" {
		return why
	}
	rule, ok := cfg.Clients[agent]
	if !ok {
		return ""
	}
	f, err := learnClient(agent)
	return clientversion.Check(agent, rule, f, err, policy)
}

// learnClient is clientversion.Learn, once per hook process (the gate loads the config more
// than once per call).
var learnClient = func() func(string) (clientversion.Found, error) {
	var mu sync.Mutex
	type result struct {
		f   clientversion.Found
		err error
	}
	seen := map[string]result{}
	return func(agent string) (clientversion.Found, error) {
		mu.Lock()
		defer mu.Unlock()
		r, ok := seen[agent]
		if !ok {
			r.f, r.err = clientversion.Learn(agent)
			seen[agent] = r
		}
		return r.f, r.err
	}
}()

// checkVersions says what the policy asks of hookctl's and the clients' versions, and whether
// what is installed here meets it.
func (d *doctor) checkVersions(cfg *config.Config) {
	policy := policyName(cfg)
	if cfg.MinHookctlVersion != "" {
		if why := clientversion.CheckHookctl(buildinfo.Version(), cfg.MinHookctlVersion, policy); why != "" {
			d.problem("upgrade hookctl", "%s", why)
		} else {
			d.ok("hookctl %s: %s allows %s or newer", buildinfo.Version(), policy, cfg.MinHookctlVersion)
		}
	}
	names := slices.Sorted(maps.Keys(cfg.Clients))
	for _, name := range names {
		r := cfg.Clients[name]
		allows := "any version"
		if r.MinVersion != "" {
			allows = r.MinVersion + " or newer"
		}
		for _, v := range slices.Sorted(maps.Keys(r.Refuse)) {
			allows += fmt.Sprintf(", not %s (%s)", v, r.Refuse[v])
		}
		d.note("%s: %s allows %s; each hook call learns the version of the %s that runs it from the client's process and package.json, and is refused when it cannot",
			clientversion.Name(name), policy, allows, clientversion.Name(name))
		f, err := clientversion.Installed(name)
		if err != nil {
			d.note("  %s on this PATH: %v", clientversion.Name(name), err)
			continue
		}
		if why := clientversion.Check(name, r, f, nil, policy); why != "" {
			d.problem("upgrade "+clientversion.Name(name), "the %s on this PATH would be refused: %s", clientversion.Name(name), why)
		} else {
			d.ok("%s %s on this PATH (%s) is allowed", clientversion.Name(name), f.Version, f.Source)
		}
	}
}

// policyName names, for the user, the file whose version policy holds: the organisation's where
// there is one (its keys hold), else the user's own.
func policyName(cfg *config.Config) string {
	if cfg.Managed != "" {
		return "your organisation's policy (" + cfg.Managed + ")"
	}
	return "your config (" + cfg.Path + ")"
}
