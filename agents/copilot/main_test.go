package copilot_test

import (
	"os"
	"testing"

	"github.com/hookctl/hookctl/internal/testbin"
)

// TestMain removes the hookctl the tests built.
func TestMain(m *testing.M) {
	code := m.Run()
	testbin.Cleanup()
	os.Exit(code)
}
