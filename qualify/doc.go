// Package qualify is the qualify driver: `kvparity qualify` runs protocol stage 3 (qualify and
// freeze) in a campaign of the row through the shared step (driver.Run), prints its probes as
// they end (or hands them to the qualify view, Options.Progress), writes qualify/result.json and,
// when qualified, the frozen row (qualify/row.toml, and --out), and prints the probe table. The
// search itself is a stage, engine/qualify (imported here as stage); this package only drives it
// and says it for people.
//
// It imports driver for the shared step and the build printer, engine for the campaign and the
// probe processes' RunStarted, engine/qualify for the search, its probes and the frozen row,
// verdict for the exit statuses, and internal/atomicfile and internal/layout to write the
// qualification's files whole, under their names.
//
//	qualify.go  Options, Progress, Run: the qualification, its files and its probe table
package qualify
