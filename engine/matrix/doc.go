// Package matrix runs several rows: a matrix is a campaign of rows (protocol "Campaign
// concurrency"), one row per node, each row its own campaign in DIR/<row>. Without a scheduler
// the rows run one after another on this machine through the same code path as `kvparity run`;
// with Slurm each row is one job on one whole node (and a row's instruction counts a second job,
// instructions.go), and the matrix follows the rows through their journals (engine/journal's
// Tail, folded by engine.History).
//
// The matrix never computes a row's verdicts nor formats a report itself: Options.Assess (the
// campaign report's computation), Options.Report (campaignreport's matrix.json and matrix.md
// writer) and Options.RowReport (a row's report, written again when its instruction counts end
// after its job) are given by the matrix driver (kvparity/matrix, with Options.RunLocal, its local
// row run through headless), so this package needs nothing above the engine. It imports engine
// for rows and their records' fold, engine/journal to follow each row's journal and append a job's
// records, engine/build to build rows' source arms once before any job and record the toolchain,
// engine/run for the node's CPUs and NUMA nodes (the placement record) and a job's campaign lock,
// verdict to combine the rows' verdicts, internal/layout for file names, internal/atomicfile and
// internal/digest for jobs.json and the staged binary, and internal/procgroup to run local rows in
// their own process groups.
//
// # Layout
//
//	matrix.go      Run, Options, Result: the rows' states, the staged binary, job ends
//	status.go      RowStatus and the row stages: a row's journal (followed with engine/journal's
//	               Tail) folded into its matrix line
//	follow.go      dirWatcher: fsnotify plus polling over the rows' folders
//	local.go       the rows one after another on this machine
//	slurm.go       Slurm's client tools (sbatch, squeue, scontrol, sacct)
//	submit.go      one job per row, followed and resubmitted
//	instructions.go  a row's instruction counts in a Slurm job of their own (--stage all, [perf]
//	               instructions_runs): a campaign of their own in DIR/<row>/instructions, submitted
//	               with the row's job (which runs --no-instructions), followed and resubmitted alike
//	script.go      the job script (job.sh)
//	jobs.go        jobs.json and the matrix_job journal record
//	placement.go   placement.json: where each job of a row ran
//	lock.go        matrix.lock: one follower per matrix folder
//	sources.go     rows' source arms built once, into the cache every job reads
package matrix
