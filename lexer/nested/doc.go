// Package nested holds the shell's tables of the programs that run another command or code, and
// where in their arguments that command starts: the wrappers (env, nice, timeout, xargs, sudo,
// flock, watch, perf's subcommands, …: Wrapper, Peel), tmux's commands (TmuxCommands), and the
// interpreters (sh -c, python -c, awk's program, make's recipes: Interpreter, CodeArgs).
//
// They describe how commands nest, not what any one program reads, so they sit beside the lexer
// rather than among the read-only rules (package programs): the edit guard peels them to judge
// the command inside, the read-only judge names them when it refuses one, and every judge that
// must see through `timeout 5 CMD` reads the same table, so that no two judges can disagree
// about where a wrapper's command starts. Each entry is modelled on the program's own parser;
// the tables are data, read in the hook process, and nothing here opens a file or runs a
// program.
package nested
