package report

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"sort"
	"strconv"
)

// GenerateConversationTrace writes a synthetic multi-turn conversation trace in Mooncake JSONL
// (the four keys of the published conversation trace, in its layout). The same seed always gives
// the same bytes. The shape is fitted to the published Mooncake conversation trace: input median
// about 6,900 tokens with a tail to about 120k, output median about 350, about 35% of hash-id
// occurrences reused, non-decreasing timestamps, 512-token trace blocks.
func GenerateConversationTrace(w io.Writer, requests int, seed int64) error {
	if requests < 0 {
		return fmt.Errorf("gen-trace: requests must be non-negative, got %d", requests)
	}
	rows := generateConversationRows(requests, seed)
	bw := bufio.NewWriterSize(w, 1<<16)
	buf := make([]byte, 0, 4096)
	for _, r := range rows {
		buf = buf[:0]
		buf = append(buf, `{"timestamp": `...)
		buf = strconv.AppendInt(buf, r.ts, 10)
		buf = append(buf, `, "input_length": `...)
		buf = strconv.AppendInt(buf, int64(r.input), 10)
		buf = append(buf, `, "output_length": `...)
		buf = strconv.AppendInt(buf, int64(r.output), 10)
		buf = append(buf, `, "hash_ids": [`...)
		for i, h := range r.ids {
			if i > 0 {
				buf = append(buf, ", "...)
			}
			buf = strconv.AppendUint(buf, h, 10)
		}
		buf = append(buf, "]}\n"...)
		if _, err := bw.Write(buf); err != nil {
			return err
		}
	}
	return bw.Flush()
}

const genBlock = 512

type genRow struct {
	ts     int64
	seq    int // creation order, the tie-break for equal timestamps
	input  int
	output int
	ids    []uint64
}

// generateConversationRows builds conversations turn by turn: a turn's prompt is the previous
// turn's prompt and answer (whose full trace blocks keep their ids, the shared prefix) plus a new
// user message; the first turn starts from one of a few shared system prompts. Rows are then
// ordered by arrival time (stable), and the first `requests` are kept.
func generateConversationRows(requests int, seed int64) []genRow {
	rng := rand.New(rand.NewPCG(uint64(seed), 0x6b7670617269747a))
	var nextID uint64
	newID := func() uint64 { id := nextID; nextID++; return id }

	// Shared system prompts: one id each, as the real trace's id 0 is shared by most rows.
	system := make([]uint64, 4)
	for i := range system {
		system[i] = newID()
	}
	lognormal := func(median, sigma float64) float64 {
		return median * math.Exp(sigma*rng.NormFloat64())
	}
	clampInt := func(v float64, lo, hi int) int {
		n := int(math.Round(v))
		if n < lo {
			return lo
		}
		if n > hi {
			return hi
		}
		return n
	}

	var rows []genRow
	var clock float64
	// Generate enough conversations; follow-up turns may land after later first turns, so
	// produce a margin and cut after sorting by time.
	for len(rows) < requests+requests/4+8 {
		clock += rng.ExpFloat64() * 370 // ms between new conversations
		turns := 1 + int(rng.ExpFloat64()*0.95)
		if turns > 8 {
			turns = 8
		}
		ids := []uint64{system[rng.IntN(len(system))]}
		tokens := genBlock // the system prompt fills one trace block
		at := clock
		for t := 0; t < turns; t++ {
			var msg int
			if t == 0 {
				msg = clampInt(lognormal(4950, 0.9), 64, 118000)
			} else {
				msg = clampInt(lognormal(1800, 1.0), 16, 60000)
			}
			input := tokens + msg
			if input > 125000 {
				break
			}
			// Keep the full blocks of the shared prefix; the partial tail and the new message get
			// fresh ids, since their 512-token contents differ.
			keep := tokens / genBlock
			if keep > len(ids) {
				keep = len(ids)
			}
			ids = append(ids[:keep:keep], nil...)
			for len(ids)*genBlock < input {
				ids = append(ids, newID())
			}
			output := clampInt(lognormal(350, 0.55), 1, 2000)
			rows = append(rows, genRow{ts: int64(at), seq: len(rows), input: input, output: output, ids: append([]uint64(nil), ids...)})
			tokens = input + output
			at += 20000 + rng.ExpFloat64()*60000 // think time before the next turn
		}
	}
	sort.SliceStable(rows, func(i, j int) bool {
		if rows[i].ts != rows[j].ts {
			return rows[i].ts < rows[j].ts
		}
		return rows[i].seq < rows[j].seq
	})
	rows = rows[:requests]
	// Renumber ids in first-seen order so the file reads like the published one (0, 1, 2, ...).
	remap := map[uint64]uint64{}
	for i := range rows {
		for k, h := range rows[i].ids {
			n, ok := remap[h]
			if !ok {
				n = uint64(len(remap))
				remap[h] = n
			}
			rows[i].ids[k] = n
		}
	}
	return rows
}
