package mocker

// Block hashing. Dynamo hashes a block's u32 tokens with xxh3-64 (seed 1337) and chains the
// block hashes into sequence hashes. The embedded engine keeps the same structure (a local hash
// of the block's contents, a sequence hash chaining the parent) with a cheaper 64-bit mixer:
// digests are only compared between runs of this engine, so the exact function does not matter,
// only that equal contents give equal hashes and the chain encodes the whole prefix.

const hashSeed = 1337

func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// runHasher hashes a block given as runs of equal tokens (Mooncake synthesis produces runs of
// trace_block_size copies of each interned id), so hashing costs per run, not per token.
type runHasher struct{ h uint64 }

func newRunHasher() runHasher { return runHasher{h: mix64(hashSeed)} }

func (r *runHasher) add(token uint32, count int) {
	r.h = mix64(r.h ^ (uint64(token)<<32 | uint64(uint32(count))) + 0x9e3779b97f4a7c15)
}

func (r *runHasher) sum() uint64 { return r.h }

// chainHash is the sequence hash of a block whose parent sequence hash is parent (the first
// block has no parent and its sequence hash is its local hash).
func chainHash(parent, local uint64) uint64 {
	return mix64(mix64(parent^hashSeed) ^ local*0x9e3779b97f4a7c15)
}

// outputLocalHash is the local hash of a block that holds generated tokens. Output token ids
// are synthesized per request from a fixed seed, so such a block is unique to its request.
func outputLocalHash(ordinal int, block int) uint64 {
	return mix64(uint64(ordinal)<<24 ^ uint64(block) ^ 0x6f7574707574) // "output"
}
