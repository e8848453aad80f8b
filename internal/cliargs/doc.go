// Package cliargs is the command-line plumbing urfave/cli v2 lacks, kept
// apart from standup's commands because it knows none of them.
//
// Interspersed moves flags written after positional words in front of
// them, as kubectl and flux parse a line (urfave/cli v2 stops parsing flags
// at the first positional word, so `resume apps --dry-run` would otherwise
// run for real). CheckArgs refuses positional words a command does not take,
// and flags written after "--", before the command sends any request.
//
// Suggest is the "did you mean" of a mistyped command or flag. urfave/cli's
// own (App.Suggest) is not used: it speaks only when no OnUsageError is set,
// and it always names a candidate, however far from the word.
//
// Completion writes bash, zsh and fish completion scripts holding the
// whole command tree, so that completing never runs the program.
package cliargs
