// Package matrix is the matrix driver: `kvparity matrix` runs several rows, each its own
// campaign in DIR/<row>, to their reports and the matrix report (matrix.json, matrix.md), and
// prints a line per row as it changes. Scheduling -- the rows one after another here, or one
// Slurm job per row, followed through their journals -- is engine/matrix's; this driver,
// above the report, gives it what it must not import: each row's verdicts as the report
// states them (campaignreport.Assess), the matrix report's writer, a row's report written
// again when its instruction counts end after its job, and the local runner. A local row runs
// in this process through headless.Run with typed options (the shared step, driver.Run, with
// its report written once as the run ends): options never become argv again. Only a Slurm job
// gets argv, the `kvparity run` command line of its script.
//
// It imports driver for loading a row the way every driver does (relative paths against its
// folder), engine/matrix for the scheduler and the rows' statuses, headless for the local
// rows' runs, campaignreport for the verdicts and the reports, verdict for the words of the
// matrix line and the exit statuses, and internal/layout for the report's file name.
//
//	matrix.go   Options, Run: the scheduler wired to the report and the local runner
//	printer.go  Printer: one line per row whenever it changes; Line, the line itself
//	result.go   WriteResult: the end, as text or matrix.json; RecordPlacement (job scripts)
package matrix
