// Package fix writes the fixes of `standup audit --fix` that are edits of
// a Kustomization: a dependsOn entry (MISSING_EDGE), and a health check on
// the trigger or HelmRelease a provider must wait for (MISSING_EDGE on a
// second-order kind, UNGUARDED_PROVIDER).
//
// Two rooms. Apply (edit.go, seq.go, text.go) is pure: the bytes of one
// file, the Kustomization's document in it and the changes in, the new
// bytes out. It reads the file with go.yaml.in/yaml/v3 only to find where
// things are (line and column of each node) and splices text at those
// places, so every line it does not mean to touch stays byte for byte as it
// was: comments, key order, quoting, indentation, other documents of the
// file. A list gets one more item in the style of the last one (block or
// flow, its indentation, its key order and quoting); a new list follows the
// indentation of the document's other lists. A change already present is
// left alone, so a second run changes nothing.
//
// MakePlan (plan.go, files.go, simulate.go) turns an audit report into those
// changes, file by file, and says what it leaves alone and why: a file
// outside the repository, a Kustomization a template makes (postBuild
// variables in its name, one document for several Kustomizations, a
// generator's or a chart's output, a remote), a dependsOn or healthChecks
// that a patch sets, an edge that would make the cold start worse (the
// edits are played on the render in memory and audited again first), and
// the findings that need objects moved rather than edits. Write (write.go)
// writes the files, and Diff (diff.go) is the unified diff of a plan.
package fix
