package tcpflow

import (
	"context"
	"encoding/binary"
	"fmt"
	"unsafe"

	"github.com/latlab/latlab/internal/capture"
)

// The analysis runs in two stages, one per core: the scan (reading,
// decoding each frame down to its TCP header, parsing the options) in a
// goroutine of its own, and the connections' analysis in the caller's.
// Segments cross from one to the other in batches, in capture order, so
// the analysis sees exactly the sequence a single loop would, and its
// output is the same byte for byte. The batches go round between two
// channels (full ones to the analysis, empty ones back to the scan):
// nothing is allocated per batch, and the scan can run at most
// stageBatches batches ahead, which bounds the memory.
const (
	stageBatch   = 512 // segments per batch: a channel hand-off per 512 segments costs little
	stageBatches = 8
)

// segBatch is a run of segments, each as stagedSeg, padded to whole
// cache lines (lineAlone): unpadded, two batches shared a line, and the
// scan stage's write of one batch's length for each segment it added
// took the line from the analysis, which was reading the other batch.
type segBatch struct {
	batch
	_ [lineAlone - unsafe.Sizeof(batch{})%lineAlone]byte
}

type batch struct {
	segs []stagedSeg
	t0   int64 // the first frame's time (capture.Record.StartNs)
}

// lineAlone is the cache line (64 bytes on amd64 and arm64, the widest
// of what latlab runs on) that state written by one stage and read by
// the other fills whole. The Go allocator places an object whose size is
// a multiple of 64 at a multiple of 64, so no other object shares its
// lines: padded to it, such state costs the other core a miss only when
// it changes, not whenever an unrelated neighbour does.
const lineAlone = 64

// stagedSeg is a segment as it crosses from the scan to the analysis:
// what Segment holds, in 128 bytes (two cache lines) instead of the 232
// a Segment, its parsed options, its key and its hash took. Every byte
// written by one core and read by the other crosses between their
// caches, and on a long capture the crossing cost a quarter of the CPU
// time: the addresses are the key's (rev says which way the segment
// goes), and the options are their bytes, parsed by the analysis.
type stagedSeg struct {
	hash          uint64 // key's (connTable.hashKey)
	timeNs        int64
	frame         int
	plen          int // Segment.Len
	key           connKey
	flags, window uint16
	seq, ack      uint32
	nopt          uint8 // option bytes in opt
	rev           bool  // sent by key's b endpoint
	opt           [40]byte
}

// stage fills e from a decoded packet, as FromCapture fills a Segment;
// false when the packet is not an analysable TCP segment.
func stage(rec *capture.Record, p *capture.Packet, e *stagedSeg, seed *hashSeed) bool {
	if p.TCPHeader == nil || p.Fragment && !p.Reassembled {
		return false
	}
	h := p.TCPHeader
	if len(p.SrcDst) == 8 || len(p.SrcDst) == 32 {
		e.rev = e.key.setHeader(p.SrcDst, p.SrcPort, p.DstPort)
	} else { // a Packet not from capture.Decoder
		e.rev = e.key.set(p.Src, p.Dst, p.SrcPort, p.DstPort)
	}
	e.hash = seed.hash(&e.key)
	e.timeNs, e.frame, e.plen = rec.TimeNs, rec.Frame, p.TCPPayloadLen
	e.seq, e.ack = binary.BigEndian.Uint32(h[4:8]), binary.BigEndian.Uint32(h[8:12])
	e.flags, e.window = uint16(h[13])|uint16(h[12]&1)<<8, binary.BigEndian.Uint16(h[14:16])
	// The options of most segments (NOP, NOP, TS) and of a Linux SYN (MSS,
	// SACK permitted, TS, NOP, window scale) in a few moves each: copy
	// called memmove, 20 instructions, for each segment.
	switch n := len(h) - 20; {
	case n == 12:
		*(*[12]byte)(e.opt[:]) = [12]byte(h[20:32])
		e.nopt = 12
	case n == 20:
		*(*[20]byte)(e.opt[:]) = [20]byte(h[20:40])
		e.nopt = 20
	case n > 0:
		e.nopt = uint8(copy(e.opt[:], h[20:])) // at most 40: a TCP header is at most 60 bytes
	default:
		e.nopt = 0
	}
	return true
}

// segment fills s with the segment e holds (Options nil: they are
// e.opt[:e.nopt]); its addresses and ports only if addrs (the analysis
// reads them only for OnFrame: rebuilding them from the key for every
// segment was 5% of the tables' instructions).
func (e *stagedSeg) segment(s *Segment, addrs bool) {
	// Field by field, not *s = Segment{...}: the compiler built the
	// literal on the stack in small stores and copied it in 16-byte
	// moves, each waiting on a failed store forward (most of this
	// function's time).
	s.Frame, s.TimeNs, s.Len = e.frame, e.timeNs, e.plen
	s.Seq, s.Ack, s.Flags, s.Window = e.seq, e.ack, e.flags, e.window
	s.Options = nil
	if addrs {
		a, b := e.key.endpoint(0), e.key.endpoint(1)
		if e.rev {
			a, b = b, a
		}
		s.Src, s.Dst, s.SrcPort, s.DstPort = a.Addr, b.Addr, a.Port, b.Port
	}
}

// stagedScan is what the scan stage returns: the capture's statistics
// and its count of the frames that carried no analysable TCP segment.
type stagedScan struct {
	*capture.Stats
	tcpFragments, nonTCP int
}

// scanInStages runs scan in a goroutine of its own, handing its TCP
// segments to add in batches, in order, in the caller's goroutine. It
// returns when the scan has ended and add has seen every batch. A panic
// in the scan is raised again in the caller's goroutine, as if the scan
// had run there. inline (Options.inline, tests) runs the two stages in
// the caller's goroutine instead, one segment at a time.
func scanInStages(ctx context.Context, scan func(context.Context, capture.Handler) (*capture.Stats, error), inline bool, seed *hashSeed, sp *spares, add func(*segBatch)) (stagedScan, error) {
	full := make(chan *segBatch, stageBatches)
	free := make(chan *segBatch, stageBatches)
	for range stageBatches {
		segs := make([]stagedSeg, stageBatch)
		writeFirst(segs) // 64 kB each (see writeFirst)
		free <- &segBatch{batch: batch{segs: segs[:0]}}
	}
	var (
		res     stagedScan
		err     error
		panicky any
	)
	if inline {
		// The same stager, its batch one segment long, handing each
		// segment to add at once.
		b := <-free
		b.segs = b.segs[:0:1]
		sc := &stager{stagerState: stagerState{b: b, seed: seed, add: add}}
		st, err := scan(ctx, sc.handle)
		res.Stats, res.tcpFragments, res.nonTCP = st, sc.tcpFragments, sc.nonTCP
		return res, err
	}
	sc := &stager{stagerState: stagerState{seed: seed, full: full, free: free, spares: sp}}
	go func() {
		defer close(full)
		defer func() {
			if p := recover(); p != nil {
				panicky = p
			}
		}()
		sc.b = <-free
		var st *capture.Stats
		st, err = scan(ctx, sc.handle)
		res.Stats, res.tcpFragments, res.nonTCP = st, sc.tcpFragments, sc.nonTCP
		if len(sc.b.segs) > 0 {
			full <- sc.b
		}
	}()
	for b := range full {
		add(b)
		free <- b
	}
	if panicky != nil {
		panic(fmt.Sprintf("capture scan: %v", panicky))
	}
	return res, err
}

// stager is the scan stage's state, padded to whole cache lines
// (lineAlone): the scan updates it for every frame, and as variables of
// the scan's closure it sat on the heap beside the analysis' own, which
// the analysis writes.
type stager struct {
	stagerState
	_ [lineAlone - unsafe.Sizeof(stagerState{})%lineAlone]byte
}

type stagerState struct {
	b                    *segBatch // being filled
	seed                 *hashSeed
	full, free           chan *segBatch
	add                  func(*segBatch) // inline: the analysis, called with each full batch
	spares               *spares         // made between batches; nil: none
	tcpFragments, nonTCP int
}

// handle stages one frame's segment (capture.Handler).
func (sc *stager) handle(rec *capture.Record, p *capture.Packet) {
	b := sc.b
	b.segs = b.segs[:len(b.segs)+1]
	if !stage(rec, p, &b.segs[len(b.segs)-1], sc.seed) {
		b.segs = b.segs[:len(b.segs)-1]
		if p.Proto == 6 && p.Fragment {
			sc.tcpFragments++
		} else {
			sc.nonTCP++
		}
		return
	}
	b.t0 = rec.StartNs // --events and graph times count from the first frame, as Wireshark's do
	if len(b.segs) == cap(b.segs) {
		if sc.add != nil {
			sc.add(b)
			b.segs = b.segs[:0]
			return
		}
		sc.full <- b
		if sc.spares != nil {
			sc.spares.refill()
		}
		sc.b = <-sc.free
		sc.b.segs = sc.b.segs[:0]
	}
}
