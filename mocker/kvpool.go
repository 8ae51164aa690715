package mocker

// A block is one G1 KV block of a worker. A full block may carry a content identity (its
// sequence hash, interned as a dense block id); it is active while referenced and inactive
// (cached, evictable) once every reference is gone. Partial tail blocks are private.
type block struct {
	id         int32 // interned sequence hash; valid when hashed
	hashed     bool
	ref        int32
	prev, next *block // LRU links while inactive
}

// kvPool is a worker's G1 pool (Dynamo's lib/mocker/src/kv_manager/vllm_backend.rs): num_gpu_blocks
// usable blocks, prefix reuse over cached blocks, LRU eviction of inactive cached blocks, each
// eviction a router Removed event. SGLang's radix cache by page uses the same pool with page =
// block. Cached blocks are indexed by block id in a slice: sequence hashes are interned once per
// replay, so the hot path never hashes.
type kvPool struct {
	cap     int
	used    int      // active + inactive cached
	cached  []*block // by block id; nil when not cached
	lru     block    // sentinel: lru.next is the least recently used inactive block
	lruLen  int
	spare   []*block
	onEvict func(id int32)
}

func newKVPool(capacity int, ids int, onEvict func(int32)) *kvPool {
	p := &kvPool{cap: capacity, cached: make([]*block, ids), onEvict: onEvict}
	p.lru.next, p.lru.prev = &p.lru, &p.lru
	return p
}

// active is the number of referenced blocks; free (allocatable) is cap − active, since
// inactive cached blocks are evicted on demand.
func (p *kvPool) active() int { return p.used - p.lruLen }
func (p *kvPool) free() int   { return p.cap - p.active() }

func (p *kvPool) get(id int32) *block {
	if int(id) < len(p.cached) {
		return p.cached[id]
	}
	return nil
}

func (p *kvPool) lruRemove(b *block) {
	b.prev.next, b.next.prev = b.next, b.prev
	b.prev, b.next = nil, nil
	p.lruLen--
}

func (p *kvPool) lruPush(b *block) {
	b.prev, b.next = p.lru.prev, &p.lru
	p.lru.prev.next = b
	p.lru.prev = b
	p.lruLen++
}

// allocate returns a fresh private block, evicting the least recently used inactive cached
// block when the pool is full; nil when every block is active.
func (p *kvPool) allocate() *block {
	if p.used < p.cap {
		p.used++
		var b *block
		if n := len(p.spare); n > 0 {
			b = p.spare[n-1]
			p.spare = p.spare[:n-1]
		} else {
			b = &block{}
		}
		b.ref = 1
		return b
	}
	if p.lruLen == 0 {
		return nil
	}
	b := p.lru.next
	p.lruRemove(b)
	p.cached[b.id] = nil
	if p.onEvict != nil {
		p.onEvict(b.id)
	}
	*b = block{ref: 1}
	return b
}

// match counts the leading ids present in the cache (at most limit).
func (p *kvPool) match(ids []int32, limit int) int {
	n := 0
	for n < limit && n < len(ids) && p.get(ids[n]) != nil {
		n++
	}
	return n
}

// countActive counts the cached and currently referenced blocks among ids.
func (p *kvPool) countActive(ids []int32) int {
	c := 0
	for _, id := range ids {
		if b := p.get(id); b != nil && b.ref > 0 {
			c++
		}
	}
	return c
}

// acquire references the cached block id (it must be cached).
func (p *kvPool) acquire(id int32) *block {
	b := p.cached[id]
	if b.ref == 0 {
		p.lruRemove(b)
	}
	b.ref++
	return b
}

// commit gives a full private block its content identity. It returns false when an identical
// block is already cached: the block then stays private (no Stored event), as in vLLM.
func (p *kvPool) commit(b *block, id int32) bool {
	if b.hashed || p.get(id) != nil {
		return false
	}
	for int(id) >= len(p.cached) {
		p.cached = append(p.cached, nil)
	}
	b.id, b.hashed = id, true
	p.cached[id] = b
	return true
}

// release drops references to blocks, tail first, so a released sequence's tail is evicted
// before its prefix (vLLM frees in reverse order).
func (p *kvPool) release(blocks []*block) {
	for i := len(blocks) - 1; i >= 0; i-- {
		b := blocks[i]
		b.ref--
		if b.ref > 0 {
			continue
		}
		if b.hashed {
			p.lruPush(b)
			continue
		}
		p.used--
		*b = block{}
		p.spare = append(p.spare, b)
	}
}

// clearInactive drops every cached block that no request references (a worker reset).
func (p *kvPool) clearInactive() {
	for p.lruLen > 0 {
		b := p.lru.next
		p.lruRemove(b)
		p.cached[b.id] = nil
		p.used--
		*b = block{}
		p.spare = append(p.spare, b)
	}
}
