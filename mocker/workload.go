package mocker

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"sort"
	"strconv"

	"kvparity/report"

	"lukechampine.com/blake3"
)

// A request is one trace row after normalisation (Dynamo's lib/mocker/src/loadgen/trace.rs):
// clamped input length, interned hash ids expanded to synthetic tokens, and the engine-block hashes
// of its prompt.
type request struct {
	ord       int // arrival ordinal: the canonical uuid is ord+1
	line      int
	sessionID string
	turn      int
	arrival   float64 // ms, first arrival at 0, divided by --arrival-speedup-ratio
	promptLen int
	maxOut    int
	ids       []int32 // interned sequence hash of each full prompt block at --block-size
}

// workload is the normalised trace: requests in arrival order (stable for equal timestamps).
type workload struct {
	requests  []*request
	blocks    blockTable // prompt blocks, interned in arrival order
	outBlocks int        // upper bound on the output blocks one replay adds to the table
}

// blockTable interns sequence hashes to dense block ids, so workers and routers index their
// per-block state by slice position instead of hashing on the hot path.
type blockTable struct {
	hash  []uint64
	local []uint64
}

func (t *blockTable) add(hash, local uint64) int32 {
	t.hash = append(t.hash, hash)
	t.local = append(t.local, local)
	return int32(len(t.hash) - 1)
}

// workloadDigest is BLAKE3("dynamo.offline-replay.trace.v1" ‖ u64_be(len) ‖ bytes), the harness's
// workload digest.
func workloadDigest(trace []byte) string {
	h := blake3.New(32, nil)
	h.Write([]byte("dynamo.offline-replay.trace.v1"))
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], uint64(len(trace)))
	h.Write(n[:])
	h.Write(trace)
	return hex.EncodeToString(h.Sum(nil))
}

// buildWorkload turns parsed rows into requests. It never reads the clock or any RNG, so the
// same rows always give the same workload.
func buildWorkload(rows []report.MooncakeRow, traceBlockSize, blockSize int, speedup float64) (*workload, error) {
	if len(rows) == 0 {
		return nil, fmt.Errorf("trace has no requests")
	}
	order := make([]int, len(rows))
	for i := range order {
		order[i] = i
	}
	// Stable: equal timestamps keep file order.
	sort.SliceStable(order, func(a, b int) bool { return rows[order[a]].Timestamp < rows[order[b]].Timestamp })
	first := rows[order[0]].Timestamp

	// Interning happens in file order, as Trace::from_mooncake reads the file.
	intern := make(map[uint64]uint32, 1024)
	interned := make([][]uint32, len(rows))
	turns := map[string]int{}
	sessions := make([]string, len(rows))
	turnOf := make([]int, len(rows))
	for i := range rows {
		ids := make([]uint32, len(rows[i].HashIDs))
		for k, h := range rows[i].HashIDs {
			n, ok := intern[h]
			if !ok {
				n = uint32(len(intern))
				intern[h] = n
			}
			ids[k] = n
		}
		interned[i] = ids
		s := rows[i].SessionID
		if s == "" {
			s = "request_" + strconv.Itoa(rows[i].Line)
		}
		sessions[i] = s
		turnOf[i] = turns[s]
		turns[s]++
	}

	w := &workload{requests: make([]*request, len(rows))}
	est := 0
	for i := range rows {
		est += len(rows[i].HashIDs)
	}
	in := newInterner(traceBlockSize, blockSize, est, &w.blocks)
	for ord, i := range order {
		row := &rows[i]
		capTokens := len(row.HashIDs) * traceBlockSize
		input := capTokens
		if row.InputLength != nil && *row.InputLength < capTokens {
			input = *row.InputLength
		}
		r := &request{
			ord:       ord,
			line:      row.Line,
			sessionID: sessions[i],
			turn:      turnOf[i],
			arrival:   (row.Timestamp - first) / speedup,
			promptLen: input,
			maxOut:    row.OutputLength,
		}
		r.ids = in.promptIDs(interned[i], input)
		w.requests[ord] = r
		w.outBlocks += (input%blockSize+row.OutputLength)/blockSize + 2
	}
	return w, nil
}

// interner assigns block ids to prompt blocks. When engine blocks tile trace blocks exactly
// (the usual 512/64), the engine blocks inside one trace block depend only on the trace-block
// prefix and their offset, so prefixes are interned per trace block (one map lookup per trace
// block instead of one per engine block, and each distinct block is hashed once). Otherwise
// every block's sequence hash is computed and interned.
type interner struct {
	tbs, bs, perTB int
	tab            *blockTable
	byHash         map[uint64]int32
	nodes          map[prefixKey]int32
	nodeIDs        []int32 // perTB block ids per prefix node, −1 until first needed
}

type prefixKey struct {
	parent int32  // prefix node of the trace blocks before, −1 at the start
	id     uint32 // interned trace hash id
}

func newInterner(tbs, bs, estTraceBlocks int, tab *blockTable) *interner {
	in := &interner{tbs: tbs, bs: bs, tab: tab}
	// at most one block id per engine block of the trace; sized once to avoid regrowth
	maxBlocks := estTraceBlocks * max(1, (tbs+bs-1)/bs)
	tab.hash = make([]uint64, 0, maxBlocks)
	tab.local = make([]uint64, 0, maxBlocks)
	if tbs%bs == 0 {
		in.perTB = tbs / bs
		in.nodes = make(map[prefixKey]int32, estTraceBlocks)
		in.nodeIDs = make([]int32, 0, estTraceBlocks*in.perTB)
	} else {
		in.byHash = make(map[uint64]int32, estTraceBlocks*max(1, tbs/bs))
	}
	return in
}

func (in *interner) promptIDs(ids []uint32, input int) []int32 {
	if in.perTB == 0 {
		locals, hashes := promptBlockHashes(ids, input, in.tbs, in.bs)
		out := make([]int32, len(hashes))
		for k, h := range hashes {
			id, ok := in.byHash[h]
			if !ok {
				id = in.tab.add(h, locals[k])
				in.byHash[h] = id
			}
			out[k] = id
		}
		return out
	}
	full := input / in.bs
	out := make([]int32, full)
	node := int32(-1)
	var prev uint64
	for j := 0; j < full; j++ {
		k, off := j/in.perTB, j%in.perTB
		if off == 0 {
			key := prefixKey{parent: node, id: ids[k]}
			n, ok := in.nodes[key]
			if !ok {
				n = int32(len(in.nodeIDs) / in.perTB)
				in.nodes[key] = n
				for x := 0; x < in.perTB; x++ {
					in.nodeIDs = append(in.nodeIDs, -1)
				}
			}
			node = n
		}
		slot := int(node)*in.perTB + off
		id := in.nodeIDs[slot]
		if id < 0 {
			// bs copies of the trace block's id: the same local hash for every offset
			h := newRunHasher()
			h.add(ids[k], in.bs)
			local := h.sum()
			hash := local
			if j > 0 {
				hash = chainHash(prev, local)
			}
			id = in.tab.add(hash, local)
			in.nodeIDs[slot] = id
		}
		out[j] = id
		prev = in.tab.hash[id]
	}
	return out
}

// promptBlockHashes hashes the full engine blocks of a synthesized prompt: interned id h
// contributes min(traceBlockSize, remaining) tokens of value h. Blocks are hashed as runs of
// equal tokens, so the cost is per block and per run, not per token.
func promptBlockHashes(ids []uint32, input, traceBlockSize, blockSize int) (locals, hashes []uint64) {
	full := input / blockSize
	locals = make([]uint64, full)
	hashes = make([]uint64, full)
	idIdx, idLeft := 0, 0
	if len(ids) > 0 {
		idLeft = traceBlockSize
	}
	var parent uint64
	for b := 0; b < full; b++ {
		h := newRunHasher()
		need := blockSize
		for need > 0 {
			if idLeft == 0 {
				idIdx++
				idLeft = traceBlockSize
			}
			n := min(need, idLeft)
			h.add(ids[idIdx], n)
			need -= n
			idLeft -= n
		}
		locals[b] = h.sum()
		if b == 0 {
			hashes[b] = locals[b]
		} else {
			hashes[b] = chainHash(parent, locals[b])
		}
		parent = hashes[b]
	}
	return locals, hashes
}
