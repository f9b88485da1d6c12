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
