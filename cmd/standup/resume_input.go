package main

import (
	"context"
	"strings"

	"github.com/kubestandup/standup/pkg/crds"
	"github.com/kubestandup/standup/pkg/flux"
)

// resumeInput is what `standup resume` reads before it connects: its kinds,
// its positional names, the CRD bundle and the runtime CRDs' triggers. A
// mistake in any of them is reported before a request is sent.
type resumeInput struct {
	kinds []string
	names []string
	// kind is the kind word's kind (resume hr NAME), "" without one.
	kind     string
	bundle   *crds.Bundle
	triggers crds.Triggers
	// spokeBundles are --spoke-crds's, by the SECRET given.
	spokeBundles map[string]*crds.Bundle
}

// readResumeInput checks opts and args and reads the bundle and
// standup.yaml they name.
func readResumeInput(ctx context.Context, opts resumeOptions, args []string) (resumeInput, error) {
	var in resumeInput
	var err error
	if in.kinds, err = flux.ParseKinds(opts.Kinds.Value()); err != nil {
		return in, usageErrorf("--kinds: %v", err)
	}
	if in.names, err = resumeNames(args); err != nil {
		return in, err
	}
	if len(args) > 0 {
		in.kind, _ = flux.ParseKind(args[0])
	}
	if opts.MaxInflight < 0 {
		return in, usageErrorf("--max-inflight %d: want the most reconciles at once, or 0 for no limit", opts.MaxInflight)
	}
	if in.bundle, err = crds.LoadBundleOrDefault(opts.CRDs); err != nil {
		return in, err
	}
	if in.spokeBundles, err = spokeBundles(opts.SpokeCRDs.Value()); err != nil {
		return in, err
	}
	if in.triggers, err = loadTriggers(ctx, opts.Config); err != nil {
		return in, err
	}
	if opts.RepoRoot != "" && opts.Path == "" {
		return in, usageErrorf("--repo-root is read only with --path: name the checkout's directory with --path, or leave --repo-root out")
	}
	return in, nil
}

// resumeNames reads `resume [ks|hr] NAME...`: the names are --only's, and
// a leading kind word is accepted as flux resume takes it.
func resumeNames(args []string) ([]string, error) {
	if len(args) == 0 {
		return nil, nil
	}
	if kind, ok := flux.ParseKind(args[0]); ok {
		args = args[1:]
		if len(args) == 0 {
			return nil, usageErrorf("resume %s: name the %ss to walk (NAME or NAMESPACE/NAME), or give no kind word to walk them all", fluxKindWord(kind), kind)
		}
	}
	for _, a := range args {
		if strings.Count(a, "/") > 1 || strings.HasPrefix(a, "/") || strings.HasSuffix(a, "/") {
			return nil, usageErrorf("resume: %q is not NAME or NAMESPACE/NAME", a)
		}
	}
	return args, nil
}

// fluxKindWord is the short word flux's CLI takes for kind ("ks" for a
// Kustomization, "hr" for a HelmRelease, and the Flux Operator's "rset" for
// a ResourceSet), as `resume ks NAME` accepts it:
// a refusal quotes the word the user would type.
func fluxKindWord(kind string) string {
	switch kind {
	case flux.KindHelmRelease:
		return "hr"
	case flux.KindResourceSet:
		return "rset"
	}
	return "ks"
}
