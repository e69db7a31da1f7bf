package policy

import (
	"github.com/hookctl/hookctl/config"
	"github.com/hookctl/hookctl/internal/shellglob"
	"github.com/hookctl/hookctl/lexer"
)

// judgeReadOnly judges cmd with the read-only rules under cfg (JudgeReadOnly), its globs
// expanded on this machine as the hook expands them.
func judgeReadOnly(cmd string, cfg *config.Config) (string, *Refusal) {
	return JudgeReadOnly(lexer.NewCommandLine(cmd), cfg, shellglob.World{})
}

// corpusConfig is the config the corpora are judged under.
func corpusConfig() *config.Config { return &config.Config{UserHome: "/home/agent"} }
