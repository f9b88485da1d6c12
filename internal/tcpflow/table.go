package tcpflow

import (
	"math/bits"
	"math/rand/v2"
	"unsafe"
)

// connTable finds a connection by its key: the open connection, the
// closed one's state (an index into closedSet's chunks), or both (a late
// segment revives a closed connection while a new one may reuse its
// ports). One table for both, so that a segment of a connection not seen
// before costs one probe, not a miss in the open connections' map, another
// in the closed ones' and a deletion; and the key's hash is computed by the
// scan stage (hashKey), not by the analysis. A key stays once added: a
// closed connection's state is kept for the whole capture (see closed.go),
// so an entry never leaves.
//
// Open addressing with linear probing over compact slots: a slot is 16
// bytes, the key's hash and the index of its entry (key, connection,
// closed index), the entries in chunks that are only appended to. A probe
// compares hashes and reads the entry only on a match, so four slots
// share a cache line where a slot holding the entry took a whole one;
// the slots hold no pointer for the garbage collector to scan; and
// growing moves 16-byte slots while the entries stay where they are
// (chunks, not one slice doubled and copied: that took as many page
// faults as the 64-byte slots). With 100,497 short connections the slots grow to
// 256k, 4 MB where 64-byte slots took 16 MB, and the entries take 5.6 MB
// once: 12,800 page faults instead of 16,000 (growing the table was over
// half of the tenth of the CPU spent in page faults), and in 31
// alternating rounds the median CPU went from 0.215 to 0.208 s and the
// wall time from 0.132 to 0.118 s; the long capture's did not change.
// Slots of 8 bytes (the hash's top half as a tag, the hash kept in the
// entry for growing) took 650 fewer faults but measured no faster.
// An index is 32 bits: the slots of 4 billion connections alone would
// take 128 GB.
//
// The hash is seeded at random for each Analyzer, so a capture crafted
// to collide cannot turn the lookups into a scan of the table. It is the
// multiply-and-fold mixing of wyhash (which the Go runtime's own map hash
// uses where the CPU has no AES instructions) over the key's words, by
// hand: hash/maphash over the key struct hashed it field by field, and
// cost the scan stage more than decoding the frame.
type connTable struct {
	slots   []connIndex
	mask    uint64
	entries [][]connSlot // connChunk each, in the order the keys were added
	used    int          // keys held
	open    int          // entries with an open connection
	closed  int          // entries with a closed connection's state
	seed    *hashSeed
	spare   *spares // nil: none
}

// connIndex is a slot of the table. h is the key's hash with its lowest
// bit set (0 marks an empty slot), i the index of its entry.
type connIndex struct {
	h uint64
	i uint32
}

// connSlot is a key and what the analysis holds under it.
type connSlot struct {
	key    connKey
	conn   *Conn // the open connection, nil if none
	closed int32 // 1 + the closed connection's index in closedSet, 0 if none
}

const (
	connTableMin = 1024
	connChunk    = 2048 // entries a chunk: 112 kB
)

func newConnTable() connTable {
	return connTable{slots: make([]connIndex, connTableMin), mask: connTableMin - 1, seed: newSeed()}
}

// entry returns entry i.
func (t *connTable) entry(i uint32) *connSlot {
	return &t.entries[i/connChunk][i%connChunk]
}

// hashKey is k's hash for find and slot.
func (t *connTable) hashKey(k *connKey) uint64 { return t.seed.hash(k) }

// hashSeed holds hashKey's seeds, alone in two cache lines: the scan
// stage hashes with them concurrently with the analysis, which never
// changes them. Held in connTable itself, they shared a cache line with
// its counts of open and closed connections, which the analysis writes:
// every connection opened or closed took the line from the scan stage's
// core, and each hash after that waited for it to come back. With
// 100,497 short connections hashKey was then 12% of the CPU profile.
// The padding keeps other objects off its lines (lineAlone).
type hashSeed struct {
	s [6]uint64
	_ [lineAlone - unsafe.Sizeof([6]uint64{})%lineAlone]byte
}

// hash is k's hash (connTable.hashKey).
func (seed *hashSeed) hash(k *connKey) uint64 {
	s := &seed.s
	h := mix(k.a[0]^s[0], k.a[1]^s[1])
	h ^= mix(k.b[0]^s[2], k.b[1]^s[3])
	h = mix(h^s[4], uint64(k.ports)|uint64(k.v4)<<32^s[5])
	return h | 1
}

// mix is wyhash's mixing step: the two halves of a*b folded together.
func mix(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	return hi ^ lo
}

// newSeed returns random seeds for hashKey (math/rand/v2's generator is
// seeded by the runtime from the OS's random source).
func newSeed() *hashSeed {
	s := new(hashSeed)
	for i := range s.s {
		s.s[i] = rand.Uint64()
	}
	return s
}

// find returns k's entry, or nil. Entries never move (chunks, only
// appended to): a Conn keeps its entry's pointer (Conn.entry).
func (t *connTable) find(h uint64, k *connKey) *connSlot {
	for i := h & t.mask; ; i = (i + 1) & t.mask {
		s := &t.slots[i]
		if s.h == h {
			if e := t.entry(s.i); e.key.eq(k) {
				return e
			}
		}
		if s.h == 0 {
			return nil
		}
	}
}

// slot returns k's entry, adding an empty one if there is none. The
// pointer stays good, as find's.
func (t *connTable) slot(h uint64, k *connKey) *connSlot {
	if s := t.find(h, k); s != nil {
		return s
	}
	if (t.used+1)*4 > len(t.slots)*3 { // at most 3/4 full
		t.grow()
	}
	if t.used%connChunk == 0 {
		t.entries = append(t.entries, t.newChunk())
	}
	i := h & t.mask
	for t.slots[i].h != 0 {
		i = (i + 1) & t.mask
	}
	n := uint32(t.used)
	t.slots[i] = connIndex{h: h, i: n}
	e := t.entry(n)
	e.key = *k // the rest is zero: a fresh entry, never used
	t.used++
	t.askSlots()
	return e
}

// grow doubles the slots. The entries stay where they are.
func (t *connTable) grow() {
	old := t.slots
	t.slots = t.newSlots(2 * len(old))
	t.mask = uint64(len(t.slots) - 1)
	for _, o := range old {
		if o.h != 0 {
			j := o.h & t.mask
			for t.slots[j].h != 0 {
				j = (j + 1) & t.mask
			}
			t.slots[j] = o
		}
	}
}

// setConn and setClosed change what an entry holds, keeping the counts.
func (t *connTable) setConn(s *connSlot, c *Conn) {
	switch {
	case s.conn == nil && c != nil:
		t.open++
	case s.conn != nil && c == nil:
		t.open--
	}
	s.conn = c
}

func (t *connTable) setClosed(s *connSlot, idx int32) {
	switch {
	case s.closed == 0 && idx != 0:
		t.closed++
	case s.closed != 0 && idx == 0:
		t.closed--
	}
	s.closed = idx
}

// each calls fn with every open connection, in the order their keys were
// added (Finish sorts them by stream).
func (t *connTable) each(fn func(*Conn)) {
	for i := range uint32(t.used) {
		if c := t.entry(i).conn; c != nil {
			fn(c)
		}
	}
}

// pageSize is the smallest page size of the CPUs latlab runs on (4 KiB on
// x86-64 and arm64); writeFirst writes once in every piece of this size.
const pageSize = 4096

// writeFirst writes a zero byte in each page of b, which is freshly
// allocated and zeroed, before anything reads it. A large allocation is
// memory straight from the OS that Go knows to be zero and does not
// clear: if the first touch of a page is a read (a probe of the table, or
// the garbage collector's write barrier reading the pointer a store
// replaces), Linux maps the shared zero page, and the write that follows
// faults again to copy it and flushes the TLB of the process's other CPU
// by an inter-processor interrupt (a VM exit in a virtual machine).
// Written first, a page costs one plain fault. On 100,497 short
// connections this removed about 14,000 of the 15,000 TLB flushes. The
// bytes are written through a byte view, not as elements: storing an
// element that holds a pointer goes through the write barrier, which
// reads first. Zero over zero changes nothing the garbage collector sees.
func writeFirst[T any](b []T) {
	if len(b) == 0 {
		return
	}
	p := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(b))), uintptr(len(b))*unsafe.Sizeof(b[0]))
	for i := 0; i < len(p); i += pageSize {
		p[i] = 0
	}
}
