// Package hygiene holds the checks on what the repository tracks: no
// executable binary anywhere, and no file over 1 MB outside a testdata/
// directory. A build product committed once stays in every clone's history
// for good, so the test suite refuses the commit that adds one.
package hygiene
