package copilot_test

import (
	"os"
	"testing"

	"github.com/hookctl/hookctl/agents/agenttest"
	"github.com/hookctl/hookctl/internal/testbin"
)

// TestMain runs the tests with only the loopback network (agenttest.IsolateNetwork), and removes
// the hookctl they built.
func TestMain(m *testing.M) {
	code := agenttest.IsolateNetwork(m)
	testbin.Cleanup()
	os.Exit(code)
}
