// Package sarifcheck holds the tests of standup's SARIF to what code
// scanning reads: the SARIF 2.1.0 JSON schema, vendored from the OASIS
// SARIF technical committee's repository into testdata/ (CI has no
// network), and the properties GitHub code scanning needs of every result
// (a location in a file of the git repository, a line, a fingerprint).
// Only tests import it: the standup binary does not carry the schema.
package sarifcheck
