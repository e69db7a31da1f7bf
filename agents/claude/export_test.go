package claude

import "github.com/hookctl/hookctl/hook"

// KindOf says what a Claude Code tool does.
func KindOf(tool string) hook.Kind { return protocol.Lookup(tool).Kind }
