// Package diffview compares two canonical reports field by field, finds the first divergence
// in virtual time, diagnoses the signature of a nondeterminism leak or semantic change,
// keeps semantic-exception records, and renders the diff pane.
package diffview
