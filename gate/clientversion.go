package gate

import (
	"sync"

	"github.com/hookctl/hookctl/agents/clientversion"
	"github.com/hookctl/hookctl/config"
	"github.com/hookctl/hookctl/internal/buildinfo"
)

// VersionRefusal says why the policy in cfg refuses every tool call of client agent: this
// hookctl is older than the policy's minimum, or the client's version is not one it allows or
// cannot be learned. "" when it does not. The hook asks it as it loads the config, before any
// decider runs; doctor shows the same facts.
func VersionRefusal(cfg *config.Config, agent string) string {
	policy := VersionPolicy(cfg)
	if why := clientversion.CheckHookctl(buildinfo.Version(), cfg.MinHookctlVersion, policy); why != "" {
		return why
	}
	rule, ok := cfg.Clients[agent]
	if !ok {
		return ""
	}
	f, err := LearnClient(agent)
	return clientversion.Check(agent, rule, f, err, policy)
}

// LearnClient is clientversion.Learn, once per hook process (the gate loads the config more
// than once per call). The cache is made on first use: nothing allocates at start-up.
func LearnClient(agent string) (clientversion.Found, error) {
	learned.Lock()
	defer learned.Unlock()
	r, ok := learned.seen[agent]
	if !ok {
		if learned.seen == nil {
			learned.seen = map[string]learnedClient{}
		}
		r.f, r.err = clientversion.Learn(agent)
		learned.seen[agent] = r
	}
	return r.f, r.err
}

type learnedClient struct {
	f   clientversion.Found
	err error
}

var learned struct {
	sync.Mutex
	seen map[string]learnedClient
}

// VersionPolicy names, for the user, the file whose version policy holds: the organisation's
// where there is one (its keys hold), else the user's own.
func VersionPolicy(cfg *config.Config) string {
	if cfg.Managed != "" {
		return "your organisation's policy (" + cfg.Managed + ")"
	}
	return "your config (" + cfg.Path + ")"
}
