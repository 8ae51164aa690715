// Package driver is the one step every driver shares: run a campaign to its report. A driver
// (headless, bisect, matrix, qualify) decides which campaigns to run and which stages each
// runs, and prints progress for people; the step opens (or resumes) the campaign, hands its
// events to the driver while the stages run, closes it once every event was handed over, and
// reads the verdicts the report states (campaignreport.Assess), or writes the report and reads
// them from it, so the report is built once. Drivers sit above campaignreport and below the
// commands: no arrow runs from the engine or the report back up to a driver.
//
// It imports engine to open, run and close the campaign (and to load rows and print builds), campaignreport for the report's
// verdicts and the report itself, verdict for the words those are given in, and
// internal/layout for the journal's name (a campaign without one has no report to write).
//
// # Adding a driver
//
// A driver is a top-level package beside headless, bisect and matrix (its room and the reason
// for each of its arrows go in imports_test.go's rooms and arrowWhy). It builds a Campaign:
// the row and engine.Options, a Pump that reads the events (print them, fold them, or drop
// them), Stages, which starts the stages it asks for on the open campaign and waits for them
// (Campaign.Start…, then WaitContext), and Report (Assess, Write, or None for a driver that
// keeps its own record). Run returns the verdicts as the report states them; the driver turns
// them into its own words and exit status (verdict.ExitCode). A row file is read with LoadRow
// and builds are printed with BuildPrinter, as every driver does. The command (a cmd_*.go in
// package main) only parses flags into the driver's options and calls it. driver_test.go's
// TestAMinimalDriverAgreesWithHeadless is this recipe, run: a dozen lines of driver on a
// built-in row reach the verdicts `kvparity run` prints.
//
//	driver.go   Campaign, Report, Run, Error: the shared step
//	row.go      LoadRow: a row file, its relative paths against its folder
//	build.go    BuildPrinter: an arm's source build as it goes, for people
package driver
