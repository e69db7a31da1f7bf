package editguard

import (
	"fmt"

	"github.com/hookctl/hookctl/internal/testrows"
	"github.com/hookctl/hookctl/lexer"
	"github.com/hookctl/hookctl/programs"
)

// judgeText judges a command given as text, parsing it as the hook does.
func judgeText(cmd string, ctx *Context) *programs.Refusal {
	return Judge(lexer.NewCommandLine(cmd), ctx)
}

// judgeAsHook judges a command as the hook does in edit mode: a command that is exactly one
// network command is the router's (a plain read is answered by hookctl retrieve, anything
// else refused), every other command the edit guard's.
func judgeAsHook(cmd string, ctx *Context) *programs.Refusal {
	cl := lexer.NewCommandLine(cmd)
	route, r := programs.RouteNetwork(cl)
	switch {
	case r != nil:
		return r
	case route != nil:
		return nil
	}
	return Judge(cl, ctx)
}

// reporter is the part of *testing.T that check uses (testrows.Reporter).
type reporter = testrows.Reporter

// recorder is a reporter that counts errors instead of failing the test.
type recorder struct {
	errors   []string
	cleanups []func()
}

func (*recorder) Helper() {}
func (c *recorder) Errorf(format string, args ...any) {
	c.errors = append(c.errors, fmt.Sprintf(format, args...))
}
func (c *recorder) Cleanup(f func()) { c.cleanups = append(c.cleanups, f) }
func (c *recorder) finish() {
	for _, f := range c.cleanups {
		f()
	}
}
