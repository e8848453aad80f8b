// Package input reads the files of a repository checkout the way a program
// that runs at 3 a.m. on someone else's commit must: bounded. Every file
// standup reads from --path, --crds or the repository root goes through it
// (or, where a library reads the file itself, is checked by it first).
//
// ReadFile refuses, with a *LimitError naming the file and saying what to do:
//   - anything but a regular file (a named pipe would block the read
//     forever, a device may never end): the file is stat'ed before it is
//     opened, and opened non-blocking in case it changed in between;
//   - a file larger than MaxFileSize, read through an io.LimitReader so that
//     a file growing under us is bounded too;
//   - YAML that would explode once a decoder expands it (CheckYAML): more
//     than MaxAliasNodes nodes added by aliases (an alias bomb of a dozen
//     lines expands to hundreds of millions), more than MaxNodes in all
//     (kustomize holds over a KiB per node), nesting deeper than MaxDepth,
//     or mappings so wide that kustomize, whose handling of a mapping is
//     quadratic in its keys, would run for hours (MaxKeyWork).
//
// CheckYAML parses each document into a yaml.v3 Node tree, which keeps
// aliases as pointers rather than expanding them, and sums the expansion in
// time linear in the file: each anchored node is measured once. Input that
// is not YAML at all (a generator's data file) is not its concern: a parse
// error ends the check without a verdict, and the reader of the file reports
// it as it always has. A file whose bytes alone keep it within every limit
// (no '*', so no alias; small enough to bound its nodes and key work; fewer
// collection openers than MaxDepth) is not parsed at all (withinLimits).
package input
