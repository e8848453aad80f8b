package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/kubestandup/standup/pkg/render"
)

// noRepoRootError is render.ErrNoRepoRoot told as the command line that
// gets past it: a checkout without .git (an export, a tarball, a CI
// workspace) has no root standup can find, and spec.path is relative to
// the root, most often the directory standup is run from.
type noRepoRootError struct {
	path string // --path as typed
	line string // the command line with --repo-root . added
	err  error
}

func (e *noRepoRootError) Error() string {
	return fmt.Sprintf("%v: no .git or %s in or above %s; name the top of the checkout, where spec.path starts, with --repo-root: from there, %s",
		render.ErrNoRepoRoot, render.ConfigFile, e.path, e.line)
}

func (e *noRepoRootError) Unwrap() error { return e.err }

// explainNoRepoRoot turns a render without a repository root into the
// command to run instead; any other error is returned as it is.
func explainNoRepoRoot(c *cli.Context, err error) error {
	if !errors.Is(err, render.ErrNoRepoRoot) || setAt(c, "repo-root").String("repo-root") != "" {
		return err
	}
	path := c.String("path")
	line := c.App.HelpName + " " + commandPath(c)
	if path != "" {
		line += " --path " + shellWord(path)
	}
	return &noRepoRootError{path: path, line: line + " --repo-root .", err: err}
}

// shellWord quotes s for a shell when it needs it.
func shellWord(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n'\"\\$`;&|<>()*?[]#~!{}") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
