// Package verdict is kvparity's one verdict vocabulary: the protocol's verdict words, an
// explicit Undecided for what is not decided yet, stage 8's combination rules and the headless
// exit status. Every surface (the headless run and its --json, report.json and report.md, the
// workbench header, diff --campaign, the matrix) reads its words and exit code from Decide, so
// they cannot disagree. The package is standard library only and knows nothing of journals or
// files: callers gather the inputs, Decide combines them.
package verdict
