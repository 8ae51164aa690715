package engine

import (
	"encoding/json"
	"time"

	"kvparity/engine/journal"
	"kvparity/engine/run"
	"kvparity/verdict"
)

// The journal (journal.jsonl) is the campaign's append-only history: its file (checksummed,
// fsync'd lines, sequence numbers, torn tails, the one reader and its followers) is
// engine/journal's; what its records say is here and in records.go.

// campaignJournal is the campaign's journal file, of Records.
type campaignJournal = journal.File[Record, *Record]

// A RecordType names what a journal record says.
type RecordType string

// Record types of the engine core (defined in records.go). Other stages add their own, each
// defined in its file with its payload's Go type (doc.go, "Adding a record kind").
const (
	RecCampaign    RecordType = "campaign"     // the campaign was created (Note: kvparity version)
	RecPinned      RecordType = "pinned"       // an artifact was pinned (Artifact)
	RecRunStart    RecordType = "run_start"    // a process started (Run, Arm, Kind, Index, Attempt, Gen, CPUs, PID)
	RecRunEnd      RecordType = "run_end"      // a process ended and its outputs were checked
	RecVerdict     RecordType = "verdict"      // a stage verdict (Stage, Arm, Verdict, Reason)
	RecStale       RecordType = "stale"        // an arm's source changed: its results up to Gen are stale
	RecBlocked     RecordType = "blocked"      // the row was blocked (Stage, Reason)
	RecReportsGone RecordType = "reports_gone" // matching full reports were deleted (Runs)
)

// A Record is one journal entry. Fields are optional per type; Data carries a stage-specific
// payload, decoded only by History (records.go): readers ask History, never a Record's Data.
type Record struct {
	Seq  int64      `json:"seq"`
	Type RecordType `json:"type"`
	At   time.Time  `json:"at"`

	Run     RunID   `json:"run,omitempty"`
	Arm     Arm     `json:"arm,omitempty"`
	Kind    RunKind `json:"kind,omitempty"`
	Index   int     `json:"index,omitempty"`   // repetition, pair or warmup index (1-based)
	Attempt int     `json:"attempt,omitempty"` // 1-based
	Gen     int     `json:"gen,omitempty"`     // the arm's artifact generation the run used
	CPUs    []int   `json:"cpus,omitempty"`
	PID     int     `json:"pid,omitempty"`
	PGID    int     `json:"pgid,omitempty"` // run_start: the replay's process group (killed on resume if the run never ended)
	// Owner is run_start's kvparity: a resume kills a run's survivors only once it is dead.
	Owner *run.Owner `json:"owner,omitempty"`

	ExitCode   int     `json:"exit_code,omitempty"`
	Signal     string  `json:"signal,omitempty"`
	TimedOut   bool    `json:"timed_out,omitempty"`
	ElapsedMs  float64 `json:"elapsed_ms,omitempty"`
	Error      string  `json:"error,omitempty"`
	Digest     string  `json:"digest,omitempty"`
	FixedPoint string  `json:"fixed_point,omitempty"`
	ReportPath string  `json:"report_path,omitempty"` // relative to the campaign dir
	Evidence   string  `json:"evidence,omitempty"`    // relative path of the evidence JSON

	Stage   Stage        `json:"stage,omitempty"`
	Verdict verdict.Word `json:"verdict,omitempty"`
	Reason  string       `json:"reason,omitempty"`

	Artifact *ArtifactInfo `json:"artifact,omitempty"`
	OldSHA   string        `json:"old_sha256,omitempty"`
	NewSHA   string        `json:"new_sha256,omitempty"`
	Runs     []RunID       `json:"runs,omitempty"`
	Note     string        `json:"note,omitempty"`

	// The founding campaign record's frozen row: row.toml's SHA-256 and text, so an edited
	// row.toml is refused on resume, naming its first differing key (row_frozen.go).
	RowSHA256 string `json:"row_sha256,omitempty"`
	RowTOML   string `json:"row_toml,omitempty"`

	// A perturbed repetition's set ("set": the row's whole set at once; else the one variation
	// tried alone, Index being the try) and the variations applied.
	Variation  string      `json:"variation,omitempty"`
	Variations []Variation `json:"variations,omitempty"`

	Data json.RawMessage `json:"data,omitempty"`
}

// Sequence is the record's sequence number (journal.Entry).
func (r *Record) Sequence() int64 { return r.Seq }

// Prepare readies a record for its journal line (journal.Entry): its sequence number, the time
// when none was given, and a run_start's process group and owner.
func (r *Record) Prepare(seq int64) {
	r.Seq = seq
	if r.At.IsZero() {
		r.At = time.Now().UTC()
	}
	if r.Type == RecRunStart && r.PGID == 0 {
		r.PGID = r.PID // the runner makes every replay the leader of its own process group
	}
	if r.Type == RecRunStart && r.Owner == nil {
		o := run.Self()
		r.Owner = &o
	}
}
