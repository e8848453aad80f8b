// Package cliargs is the command-line plumbing urfave/cli v2 lacks, kept
// apart from standup's commands because it knows none of them.
//
// Interspersed moves flags written after positional words in front of
// them, as kubectl and flux parse a line (urfave/cli v2 stops parsing flags
// at the first positional word, so `resume apps --dry-run` would otherwise
// run for real). CheckArgs refuses positional words a command does not take,
// and flags written after "--", before the command sends any request.
package cliargs
