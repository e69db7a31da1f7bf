package lexer

import "fmt"

// CrossCheck parses src with mvdan.cc/sh, a full shell parser written independently of this
// one, in each of bash and zsh, and returns an error unless every parse has the same structure
// as sc, with the same words (same values, same loop variables) for every command and the same
// redirections. Any difference means one of the two misread the command, so it is refused rather
// than explained. CommandLine.Shape runs the same check on the tree the other judges read; this
// form, for the tests, parses src itself.
func CrossCheck(src string, sc *Script) error {
	cl := NewCommandLine(src)
	tree, err := cl.Tree()
	if err != nil {
		return fmt.Errorf("%w: bash does not parse it: %v", ErrDisagree, err)
	}
	return crossCheck(src, sc, tree, cl.parse)
}
