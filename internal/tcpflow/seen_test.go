package tcpflow

import (
	"testing"

	"pgregory.net/rapid"
)

// The received-range set stays sorted and disjoint and answers overlap
// queries exactly like a byte map.
func TestSeenRangesProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		d := newDir()
		var bytes [512]bool
		n := rapid.IntRange(1, 40).Draw(t, "n")
		for i := 0; i < n; i++ {
			a := rapid.Int64Range(0, 500).Draw(t, "a")
			if k := len(d.seen); k > 0 && d.seen[k-1][1] <= 500 && rapid.Bool().Draw(t, "in order") {
				a = d.seen[k-1][1] // addSeen's shortcut for data in order
			}
			l := rapid.Int64Range(1, 11).Draw(t, "l")
			d.addSeen(a, a+l)
			for x := a; x < a+l; x++ {
				bytes[x] = true
			}
			for k := 1; k < len(d.seen); k++ {
				if d.seen[k-1][1] >= d.seen[k][0] || d.seen[k][0] >= d.seen[k][1] {
					t.Fatalf("ranges not sorted and disjoint: %v", d.seen)
				}
			}
		}
		q := rapid.Int64Range(0, 505).Draw(t, "q")
		ql := rapid.Int64Range(1, 6).Draw(t, "ql")
		want := false
		for x := q; x < q+ql && x < int64(len(bytes)); x++ {
			want = want || bytes[x]
		}
		if got := d.seenOverlap(q, q+ql); got != want {
			t.Fatalf("overlap [%d,%d) = %v, want %v; ranges %v", q, q+ql, got, want, d.seen)
		}
	})
}

// The list of unacknowledged segments removes, for any ACK, exactly the
// segments Wireshark's loop removes: those ending at or below it in
// sequence space.
func TestUnackedListProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var l unackedList
		var model []uint32
		base := rapid.Uint32().Draw(t, "base")
		for i, n := 0, rapid.IntRange(1, 200).Draw(t, "n"); i < n; i++ {
			// mostly ascending ends near base, sometimes anywhere
			if rapid.IntRange(0, 3).Draw(t, "op") > 0 {
				var e uint32
				if rapid.IntRange(0, 9).Draw(t, "wild") == 0 {
					e = rapid.Uint32().Draw(t, "e")
				} else {
					e = base + rapid.Uint32Range(0, 5000).Draw(t, "off")
				}
				l.add(e)
				model = append(model, e)
				continue
			}
			var ack uint32
			switch rapid.IntRange(0, 5).Draw(t, "ackkind") {
			case 0:
				ack = rapid.Uint32().Draw(t, "ack")
			case 1:
				ack = 0
			case 2: // half the sequence space away
				ack = base + 1<<31 + rapid.Uint32Range(0, 5000).Draw(t, "farack")
			default:
				ack = base + rapid.Uint32Range(0, 5000).Draw(t, "ackoff")
			}
			l.ack(ack)
			kept := model[:0]
			for _, e := range model {
				if seqGT(e, ack) {
					kept = append(kept, e)
				}
			}
			model = kept
			if l.len() != len(model) {
				t.Fatalf("after ack %d: %d segments, want %d", ack, l.len(), len(model))
			}
		}
		if c := l.clip(); c.len() != len(model) {
			t.Fatalf("clip: %d segments, want %d", c.len(), len(model))
		}
	})
}
