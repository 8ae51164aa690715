package engine

import (
	"encoding/json"
	"fmt"
)

// Every record type the engine folds is defined once, by defineRecord (a record with a Data
// payload) or definePlainRecord (one without), in the file of the stage that writes it: the Go
// type of its payload, how History folds it, and the events a reopened campaign replays for
// it. History.Add decodes a record's payload (DecodePayload: the one place Record.Data is
// decoded) and hands the typed value to both, so no reader decodes a payload for itself.
//
// run_start and run_end are the core's records, shared by every stage; a stage whose runs
// carry a payload names its Go type per run kind with defineRunData.

// A recordKind is what the engine knows about one record type (or one run kind's run records).
type recordKind struct {
	decode func(json.RawMessage) any // a fresh *T of the payload's type (nil: none or undecodable)
	fold   func(h *History, r *Record, data any)
	replay func(c *Campaign, h *History, r *Record, data any)
}

var (
	recordKinds = map[RecordType]*recordKind{}
	runData     = map[runDataKey]*recordKind{}
)

type runDataKey struct {
	typ  RecordType // RecRunStart or RecRunEnd
	kind RunKind
}

// defineRecord defines a record type whose Data is a T. fold and replay (either may be nil)
// run only for a record whose payload decoded.
func defineRecord[T any](t RecordType, fold func(*History, *Record, *T), replay func(*Campaign, *History, *Record, *T)) {
	define(recordKinds, t, typedKind(fold, replay), t)
}

// definePlainRecord defines a record type without a payload (its fields are Record's own).
func definePlainRecord(t RecordType, fold func(*History, *Record), replay func(*Campaign, *History, *Record)) {
	k := &recordKind{}
	if fold != nil {
		k.fold = func(h *History, r *Record, _ any) { fold(h, r) }
	}
	if replay != nil {
		k.replay = func(c *Campaign, h *History, r *Record, _ any) { replay(c, h, r) }
	}
	define(recordKinds, t, k, t)
}

// defineRunData says that the run records of typ (RecRunStart or RecRunEnd) of the given run
// kinds carry a T; fold runs after the core's fold of the run record.
func defineRunData[T any](typ RecordType, kinds []RunKind, fold func(*History, *Record, *T)) {
	for _, kind := range kinds {
		define(runData, runDataKey{typ, kind}, typedKind(fold, nil), fmt.Sprintf("%s of a %s run", typ, kind))
	}
}

func define[K comparable](m map[K]*recordKind, key K, k *recordKind, what any) {
	if _, dup := m[key]; dup {
		panic(fmt.Sprintf("engine: record %v is defined twice", what)) // at init: a copy-paste slip
	}
	m[key] = k
}

func typedKind[T any](fold func(*History, *Record, *T), replay func(*Campaign, *History, *Record, *T)) *recordKind {
	k := &recordKind{decode: func(b json.RawMessage) any {
		d, err := DecodePayload[T](Record{Data: b})
		if err != nil {
			return nil
		}
		return d
	}}
	if fold != nil {
		k.fold = func(h *History, r *Record, data any) { fold(h, r, data.(*T)) }
	}
	if replay != nil {
		k.replay = func(c *Campaign, h *History, r *Record, data any) { replay(c, h, r, data.(*T)) }
	}
	return k
}

// DecodePayload decodes a record's payload as a T: the one place Record.Data is decoded, for
// the campaign journal's folds and the bisect's. An error names the record; the campaign's fold
// then skips it (a record written by a newer kvparity, say), as it skips a type it does not
// know.
func DecodePayload[T any](r Record) (*T, error) {
	if len(r.Data) == 0 {
		return nil, fmt.Errorf("record %d (%s): no payload", r.Seq, r.Type)
	}
	v := new(T)
	if err := json.Unmarshal(r.Data, v); err != nil {
		return nil, fmt.Errorf("record %d (%s): %w", r.Seq, r.Type, err)
	}
	return v, nil
}

// MarshalData encodes a record's payload (Record.Data) as the journal keeps it.
func MarshalData(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("engine: record payload does not marshal: %v", err)) // plain structs always do
	}
	return b
}

// kindsOf are the definitions that apply to r: its type's, then its run kind's payload's.
func kindsOf(r *Record) (core, data *recordKind) {
	core = recordKinds[r.Type]
	if r.Type == RecRunStart || r.Type == RecRunEnd {
		data = runData[runDataKey{r.Type, r.Kind}]
	}
	return core, data
}

// payloadOf decodes r's payload by its definition (nil when it carries none).
func payloadOf(k *recordKind, r *Record) any {
	if k == nil || k.decode == nil || (k.fold == nil && k.replay == nil) {
		return nil
	}
	return k.decode(r.Data)
}

// The core's records (journal.go names them; the stages' records are defined in their files).
func init() {
	// The founding record (its frozen row is read by CheckFrozenRow, before a row is folded).
	definePlainRecord(RecCampaign, func(h *History, r *Record) { h.progress.pinned() }, nil)
	definePlainRecord(RecPinned, func(h *History, r *Record) {
		h.progress.pinned()
		if r.Artifact == nil {
			return
		}
		p := pinFromRecord(*r)
		h.pins, h.pinSeqs = append(h.pins, p), append(h.pinSeqs, r.Seq)
		if cur, ok := h.Current[r.Arm]; !ok || p.Gen >= cur.Gen {
			h.Current[r.Arm], h.pinSeq[r.Arm] = p, r.Seq
		}
	}, nil)
	definePlainRecord(RecStale, func(h *History, r *Record) {
		if p, ok := h.Current[r.Arm]; ok {
			p.Stale = true
			h.Current[r.Arm] = p
		}
		h.progress.stale(r.Arm)
	}, func(c *Campaign, h *History, r *Record) {
		c.emit(ArtifactChanged{Arm: r.Arm, Path: c.Pinned(r.Arm).Source, OldSHA256: r.OldSHA, NewSHA256: r.NewSHA, OldGen: r.Gen})
	})
	definePlainRecord(recAddRep, func(h *History, r *Record) {
		h.Added[r.Arm] = max(h.Added[r.Arm], r.Index-h.row.Determinism.Repetitions)
	}, nil)
	definePlainRecord(RecReportsGone, func(h *History, r *Record) {
		for _, id := range r.Runs {
			h.Gone[id] = r.Seq
		}
	}, nil)
	definePlainRecord(RecRunStart, func(h *History, r *Record) {
		h.blocked, h.blocks = nil, nil
		h.foldRunRecord(r)
		h.progress.runStarted(h.row, r)
	}, func(c *Campaign, h *History, r *Record) {
		c.emit(RunStarted{Run: r.Run, Arm: r.Arm, Kind: r.Kind, Repetition: r.Index, Variation: r.Variation, Gen: r.Gen, CPUs: r.CPUs, PID: r.PID, At: r.At})
	})
	definePlainRecord(RecRunEnd, func(h *History, r *Record) {
		h.foldRunRecord(r)
		h.progress.runEnded(h.row, r)
	}, func(c *Campaign, h *History, r *Record) { campaignHost{c}.EmitEnd(*r, nil) })
	definePlainRecord(RecVerdict, nil, func(c *Campaign, h *History, r *Record) {
		c.emit(StageVerdict{Stage: r.Stage, Arm: r.Arm, Verdict: r.Verdict, Reason: r.Reason, Finding: r.Note})
	})
	definePlainRecord(RecBlocked, func(h *History, r *Record) {
		h.blocked = append(h.blocked, fmt.Sprintf("%s: %s", r.Stage, r.Reason))
		h.blocks = append(h.blocks, stageBlock{r.Stage, r.Reason})
		h.progress.blocked(r)
	}, func(c *Campaign, h *History, r *Record) { c.emit(RowBlocked{Stage: r.Stage, Reason: r.Reason}) })
}

// foldRunRecord folds a run_start or run_end into the runs index and its repetition log.
func (h *History) foldRunRecord(r *Record) {
	h.foldRun(r)
	switch r.Kind {
	case KindRepetition:
		h.repLog(r.Arm, max(r.Gen, 1)).add(*r)
	case KindPerturbed:
		h.perturbedLog(r.Arm, max(r.Gen, 1), r.Variation).add(*r)
	}
}
