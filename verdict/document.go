package verdict

// SchemaVersion is the version of kvparity's machine-readable documents: run --json,
// report.json and matrix.json (each of its rows) share one schema. Every document starts with
// schema_version and kind, then the Verdicts fields (overall, semantic, performance,
// footprint, coverage, parity, determinism, blocked, exit_code); each outcome is an object
// with at least "verdict" and "reason" (a document may add detail fields beside them). Keys are
// snake_case throughout. Version 2 is the first shared schema (report.json's
// "kvparity-campaign-report/1" was version 1).
const SchemaVersion = 2

// Document kinds.
const (
	KindRun    = "run"    // kvparity run --json
	KindReport = "report" // report.json
	KindMatrix = "matrix" // matrix.json
	KindRow    = "row"    // one row of matrix.json
)

// A Document is the part every machine-readable document shares: a reader decodes this first,
// checks SchemaVersion, and can compare the verdicts of any two surfaces field by field.
type Document struct {
	SchemaVersion int    `json:"schema_version"`
	Kind          string `json:"kind"`
	Verdicts
}

// NewDocument stamps verdicts as a document of kind.
func NewDocument(kind string, v Verdicts) Document {
	return Document{SchemaVersion: SchemaVersion, Kind: kind, Verdicts: v}
}

// Combine is the verdict over several rows (the matrix): the worst overall of them, with
// the exit code that goes with it.
func Combine(rows []Verdicts) Outcome {
	if len(rows) == 0 {
		return Of(Undecided, "no row")
	}
	worst := -1
	var o Outcome
	for _, v := range rows {
		if r := severity(v.Overall.Verdict); r > worst {
			worst, o = r, v.Overall
		}
	}
	return o
}
