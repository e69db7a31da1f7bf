package editguard

import (
	"github.com/hookctl/hookctl/internal/testrows"
	"github.com/hookctl/hookctl/lexer"
	"github.com/hookctl/hookctl/programs"
	"github.com/hookctl/hookctl/route"
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
	rt, r := route.RouteNetwork(cl)
	switch {
	case r != nil:
		return r
	case rt != nil:
		return nil
	}
	return Judge(cl, ctx)
}

// reporter is the part of *testing.T that check uses (testrows.Reporter).
type reporter = testrows.Reporter
