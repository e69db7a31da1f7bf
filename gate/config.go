package gate

import (
	"github.com/hookctl/hookctl/config"
	"github.com/hookctl/hookctl/policy"
)

// LoadConfig is config.LoadConfig with the judges' checks: the config the hook, the CLI and the
// sandbox launcher decide with. (The dashboard and the exporter, which link no judge, read the
// config without them.)
func LoadConfig(home string) (*config.Config, error) {
	return config.LoadConfig(home, policy.JudgeChecks...)
}

// LoadConfigFor is config.LoadConfigFor with the judges' checks.
func LoadConfigFor(home, dir string) (*config.Config, error) {
	return config.LoadConfigFor(home, dir, policy.JudgeChecks...)
}
