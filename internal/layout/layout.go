// Package layout names the files of a campaign folder (docs/guide.md, "The campaign folder")
// and of a matrix folder, so a layout change is made in one place. The engine writes a
// campaign, the campaign report and its cleanup read it, diffview keeps its exception records
// there and the matrix adds its job records; all of them name the files through these
// constants.
//
// Names are slash-separated and relative to their folder (join them with filepath.FromSlash
// where the separator matters).
package layout

// The campaign folder.
const (
	FileRow        = "row.toml"             // the frozen row
	FileHost       = "host.json"            // the host the campaign was created on
	FileArtifacts  = "artifacts.json"       // every pinned artifact, oldest first
	FileJournal    = "journal.jsonl"        // the append-only, checksummed journal
	FileSchedule   = "schedule.json"        // the perf stage's pair schedule
	FileTraceSums  = "trace/checksums.json" // the trace window's checksums
	FileWindow     = "trace/window.jsonl"   // the trace window the replays read
	FileExceptions = "exceptions.jsonl"     // semantic exception records (diffview)
	FileReportMD   = "report.md"            // the campaign report, for people
	FileReportJSON = "report.json"          // the campaign report, in the shared verdict schema
	FileSummaryMD  = "summary.md"           // the report's summary, sized for a pull request
	// FileLock is the campaign lock: the one kvparity that writes the campaign holds an flock
	// on it and names itself in it (pid, start time, command, since when).
	FileLock = "campaign.lock"

	// FileCreating marks a folder kvparity is creating a campaign in: written first into an
	// empty folder and removed once the journal exists, so a creation killed halfway is
	// recognised as kvparity's own and created again, while any other folder without a journal
	// is refused (never built over).
	FileCreating = ".kvparity-creating"

	// FileExceptionsLock is flocked while exceptions.jsonl is read, changed and written back,
	// so two kvparity processes saving records at once lose none; it names its last holder.
	FileExceptionsLock = "exceptions.lock"

	DirRuns      = "runs"      // runs/<run id>/: one replay process's outputs
	DirArtifacts = "artifacts" // the pinned copies of the binaries
	DirPatch     = "patch"     // the row's declared determinism patch, copied
	DirSources   = "sources"   // a worktree arm's diff against its base commit, per generation
	DirPerf      = "perf"      // the performance exports: every sample, ratio and bound
	DirDiffs     = "diffs"     // the report's focused diffs of mismatching canonical reports
	DirPlots     = "plots"     // the report's plots as images (SVG and PNG)

	// Stage 3's qualification: its result (every probe, the chosen capacity, the confirmation)
	// and the frozen row it wrote.
	FileQualifyResult = "qualify/result.json"
	FileQualifiedRow  = "qualify/row.toml"
)

// A run folder (runs/<run id>/).
const (
	FileRunEvidence = "evidence.json" // a repetition's lifecycle evidence (kept by the cleanup)
	FileRunMetrics  = "metrics.json"  // a repetition's product metrics (kept by the cleanup)
)

// The matrix folder (DIR) and the matrix's files in each row's campaign folder (DIR/<row>).
const (
	FileMatrixMD   = "matrix.md"   // the matrix report, for people
	FileMatrixJSON = "matrix.json" // the matrix report, in the shared verdict schema
	FileMatrixLock = "matrix.lock" // one kvparity matrix follows a folder at a time
	// MatrixBinary is the kvparity copy in the matrix folder that every job runs, so the jobs
	// run one fixed executable whatever happens to the one that submitted them.
	MatrixBinary = "kvparity"

	FileJobs           = "jobs.json"      // every job (or local run) of the row and how it ended
	FilePlacement      = "placement.json" // where each job of the row ran
	FileJobScript      = "job.sh"         // the row's batch script: sbatch it by hand to resume
	FileLocalRunOutput = "run.out"        // kvparity run's output for a row run locally
	// DirInstructions is the campaign of a row's instruction counts when kvparity matrix counts
	// them in a Slurm job of their own (DIR/<row>/instructions/): a campaign folder, and a matrix
	// row folder for that job (its job.sh, jobs.json, placement.json, slurm-<id>.out).
	DirInstructions = "instructions"
)
