package gate

import (
	"github.com/hookctl/hookctl/config"
	"github.com/hookctl/hookctl/policy"
)

// ParseConfig is config.ParseConfig with the judges' checks, as LoadConfig reads a file.
func ParseConfig(path, text string) (*config.Config, error) {
	return config.ParseConfig(path, text, policy.JudgeChecks...)
}
