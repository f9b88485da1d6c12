package tcpflow

import (
	"context"
	"fmt"

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

// segBatch is a run of segments with their options already parsed
// (Segment.Options is nil: the bytes belonged to the reader's buffer,
// which the next frame overwrites).
type segBatch struct {
	segs   []Segment
	opts   []TCPOptions
	keys   []connKey
	hashes []uint64 // the keys' hashes (connTable.hashKey)
	t0     int64    // the first frame's time (capture.Record.StartNs)
}

// inlineStages (tests) runs the two stages in one goroutine, one segment
// at a time: the sequential analysis the staged one must equal.
var inlineStages bool

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
// had run there.
func scanInStages(ctx context.Context, scan func(context.Context, capture.Handler) (*capture.Stats, error), hash func(*connKey) uint64, add func(*segBatch)) (stagedScan, error) {
	full := make(chan *segBatch, stageBatches)
	free := make(chan *segBatch, stageBatches)
	for range stageBatches {
		free <- &segBatch{segs: make([]Segment, 0, stageBatch), opts: make([]TCPOptions, 0, stageBatch),
			keys: make([]connKey, 0, stageBatch), hashes: make([]uint64, 0, stageBatch)}
	}
	var (
		res     stagedScan
		err     error
		panicky any
	)
	if inlineStages {
		b := <-free
		st, err := scan(ctx, func(rec *capture.Record, p *capture.Packet) {
			b.segs, b.opts, b.keys, b.hashes = b.segs[:1], b.opts[:0], b.keys[:0], b.hashes[:0]
			s := &b.segs[0]
			if !FromCapture(rec, p, s) {
				if p.Proto == 6 && p.Fragment {
					res.tcpFragments++
				} else {
					res.nonTCP++
				}
				return
			}
			b.opts = append(b.opts, ParseOptions(s.Options))
			s.Options = nil
			b.keys = append(b.keys, keyOf(s))
			b.hashes = append(b.hashes, hash(&b.keys[0]))
			b.t0 = rec.StartNs
			add(b)
		})
		res.Stats = st
		return res, err
	}
	go func() {
		defer close(full)
		defer func() {
			if p := recover(); p != nil {
				panicky = p
			}
		}()
		b := <-free
		var st *capture.Stats
		st, err = scan(ctx, func(rec *capture.Record, p *capture.Packet) {
			b.segs = b.segs[:len(b.segs)+1]
			s := &b.segs[len(b.segs)-1]
			if !FromCapture(rec, p, s) {
				b.segs = b.segs[:len(b.segs)-1]
				if p.Proto == 6 && p.Fragment {
					res.tcpFragments++
				} else {
					res.nonTCP++
				}
				return
			}
			b.opts = append(b.opts, ParseOptions(s.Options))
			s.Options = nil
			b.keys = append(b.keys, keyOf(s))
			b.hashes = append(b.hashes, hash(&b.keys[len(b.keys)-1]))
			b.t0 = rec.StartNs // --events and graph times count from the first frame, as Wireshark's do
			if len(b.segs) == cap(b.segs) {
				full <- b
				b = <-free
				b.segs, b.opts, b.keys, b.hashes = b.segs[:0], b.opts[:0], b.keys[:0], b.hashes[:0]
			}
		})
		res.Stats = st
		if len(b.segs) > 0 {
			full <- b
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
