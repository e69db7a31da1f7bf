package lexer

import (
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// MaxTreeLen is the longest command mvdan.cc/sh is asked to parse. It is longer than MaxLen,
// the hand lexer's cap, because an edit-mode command may carry a here-document.
const MaxTreeLen = 64 << 10

// CommandLine is one shell command as the agent wrote it, parsed once for every judge. The
// deny-list judges (the network router, the edit-mode guard and its self-protection rules) read
// Tree, mvdan.cc/sh's bash parse; the read-only allowlist reads Shape, the hand parser's, which
// is cross-checked against that same tree and against a zsh parse. Each parse runs at most once,
// when first asked for, and every word is read through Literal.
type CommandLine struct {
	Src string

	tree     *syntax.File
	treeErr  error
	treeDone bool

	shape     *Script
	shapeErr  error
	shapeDone bool

	// parser is reused for the zsh parse of the cross-check: a Parser is reusable once a parse
	// is done (each parse allocates its own nodes), and allocating one costs as much as a
	// short parse.
	parser *syntax.Parser
}

// NewCommandLine returns src, not yet parsed.
func NewCommandLine(src string) *CommandLine { return &CommandLine{Src: src} }

// Tree returns the bash parse of the command, or why there is none (too long, or not bash).
func (c *CommandLine) Tree() (*syntax.File, error) {
	if !c.treeDone {
		c.treeDone = true
		c.tree, c.treeErr = c.parse(syntax.LangBash)
	}
	return c.tree, c.treeErr
}

// Shape returns the hand parser's reading of the command, cross-checked: nil and an *Error if
// the hand lexer or parser refuses it, nil and an error wrapping ErrDisagree if mvdan.cc/sh
// reads it differently in bash or zsh.
func (c *CommandLine) Shape() (*Script, error) {
	if !c.shapeDone {
		c.shapeDone = true
		c.shape, c.shapeErr = c.parseShape()
	}
	return c.shape, c.shapeErr
}

func (c *CommandLine) parseShape() (*Script, error) {
	sc, err := Parse(c.Src)
	if err != nil {
		return nil, err
	}
	tree, err := c.Tree()
	if err != nil {
		return nil, fmt.Errorf("%w: bash does not parse it: %v", ErrDisagree, err)
	}
	if err := crossCheck(c.Src, sc, tree, c.parse); err != nil {
		return nil, err
	}
	return sc, nil
}

// parse parses the command in lang with the command line's one parser.
func (c *CommandLine) parse(lang syntax.LangVariant) (*syntax.File, error) {
	if len(c.Src) > MaxTreeLen {
		return nil, fmt.Errorf("the command is %d bytes; the limit is %d", len(c.Src), MaxTreeLen)
	}
	if c.parser == nil {
		c.parser = syntax.NewParser()
	}
	syntax.Variant(lang)(c.parser)
	return c.parser.Parse(strings.NewReader(c.Src), "")
}
