package report

import (
	"bufio"
	"container/heap"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"strconv"
)

// MaxGeneratedRequests is the largest generated trace kvparity accepts, in requests (rows): a
// row's generated:conversation?requests=N and gen-trace --requests are refused above it. The
// protocol's long corpus is 5,000 requests; 1,000,000 is 200 times that, about 245 MB of JSONL
// written in a few seconds, so any real plan fits. Beyond it a typo (requests=999999999999)
// would run for days and fill the disk: the generator streams, so memory no longer stops it.
const MaxGeneratedRequests = 1_000_000

// GenerateConversationTrace writes a synthetic multi-turn conversation trace in Mooncake JSONL
// (the four keys of the published conversation trace, in its layout). The same seed always gives
// the same bytes. The shape is fitted to the published Mooncake conversation trace: input median
// about 6,900 tokens with a tail to about 120k, output median about 350, about 35% of hash-id
// occurrences reused, non-decreasing timestamps, 512-token trace blocks. Rows are written as
// they become final, so memory holds the conversations in flight, not the trace.
func GenerateConversationTrace(w io.Writer, requests int, seed int64) error {
	if requests < 0 || requests > MaxGeneratedRequests {
		return fmt.Errorf("requests must be 0..%d (MaxGeneratedRequests, the largest generated trace kvparity accepts), got %d", MaxGeneratedRequests, requests)
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	buf := make([]byte, 0, 4096)
	err := generateConversationRows(requests, seed, func(r *genRow) error {
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
		_, err := bw.Write(buf)
		return err
	})
	if err != nil {
		return err
	}
	return bw.Flush()
}

const (
	genBlock   = 512
	genSystems = 4 // shared system prompts; their ids are 0..3, allocated first
)

type genRow struct {
	ts     int64
	seq    int // creation order, the tie-break for equal timestamps
	input  int
	output int
	ids    []uint64
	// renum numbers the ids of the row's conversation in first-written order. A conversation's
	// ids (but the system prompt's) appear in no other conversation, so the map lives as long as
	// the conversation's rows wait to be written: memory does not grow with the trace.
	renum map[uint64]uint64
}

// generateConversationRows builds conversations turn by turn: a turn's prompt is the previous
// turn's prompt and answer (whose full trace blocks keep their ids, the shared prefix) plus a new
// user message; the first turn starts from one of a few shared system prompts. The rows of
// enough conversations are ordered by arrival time (ties in creation order) and the first
// `requests` go to emit, with ids renumbered in first-written order so the file reads like the
// published one (0, 1, 2, ...).
//
// It streams: conversations start in time order and every turn arrives at or after its
// conversation's start, so when the next conversation starts at clock no row made later can
// arrive before int64(clock); waiting rows up to that time are final and are emitted then.
// The bytes are those of generating every row, sorting them and cutting.
func generateConversationRows(requests int, seed int64, emit func(*genRow) error) error {
	rng := rand.New(rand.NewPCG(uint64(seed), 0x6b7670617269747a))
	var nextID uint64
	newID := func() uint64 { id := nextID; nextID++; return id }

	// Shared system prompts: one id each, as the real trace's id 0 is shared by most rows.
	system := make([]uint64, genSystems)
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

	systemNum := map[uint64]uint64{}
	var nextNum uint64
	emitted := 0
	var waiting rowHeap
	flush := func(until int64) error {
		for len(waiting) > 0 && waiting[0].ts <= until && emitted < requests {
			r := heap.Pop(&waiting).(*genRow)
			for k, h := range r.ids {
				m := r.renum
				if h < genSystems {
					m = systemNum
				}
				n, ok := m[h]
				if !ok {
					n = nextNum
					nextNum++
					m[h] = n
				}
				r.ids[k] = n
			}
			if err := emit(r); err != nil {
				return err
			}
			emitted++
		}
		return nil
	}

	made := 0
	var clock float64
	// Generate enough conversations; follow-up turns may land after later first turns, so
	// produce a margin and cut after ordering by time.
	for made < requests+requests/4+8 && emitted < requests {
		clock += rng.ExpFloat64() * 370 // ms between new conversations
		if err := flush(int64(clock)); err != nil {
			return err
		}
		turns := 1 + int(rng.ExpFloat64()*0.95)
		if turns > 8 {
			turns = 8
		}
		renum := map[uint64]uint64{}
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
			heap.Push(&waiting, &genRow{ts: int64(at), seq: made, input: input, output: output, ids: append([]uint64(nil), ids...), renum: renum})
			made++
			tokens = input + output
			at += 20000 + rng.ExpFloat64()*60000 // think time before the next turn
		}
	}
	return flush(math.MaxInt64)
}

// rowHeap orders waiting rows by arrival time, then creation order.
type rowHeap []*genRow

func (h rowHeap) Len() int { return len(h) }
func (h rowHeap) Less(i, j int) bool {
	if h[i].ts != h[j].ts {
		return h[i].ts < h[j].ts
	}
	return h[i].seq < h[j].seq
}
func (h rowHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *rowHeap) Push(x any)   { *h = append(*h, x.(*genRow)) }
func (h *rowHeap) Pop() any {
	old := *h
	r := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	return r
}
