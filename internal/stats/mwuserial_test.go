package stats

import (
	"math"
	"testing"

	"pgregory.net/rapid"
)

// Each sample's projection and U are what their definitions count, one
// pair of samples at a time, whatever the ties and the order: the merge
// over both sides sorted must give every sample its own count.
func TestMannWhitneySerialProjectionsAsDefined(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		top := rapid.Int64Range(0, 40).Draw(t, "top") // few values: ties
		gen := rapid.SliceOfN(rapid.Int64Range(-top, top), 1, 60)
		x, y := gen.Draw(t, "x"), gen.Draw(t, "y")
		if rapid.Bool().Draw(t, "extremes") {
			x = append(x, math.MaxInt64, math.MinInt64)
			y = append(y, math.MaxInt64)
		}
		px := make([]float64, len(x))
		halves := projections(sortedWithIndex(x), sortedWithIndex(y), px)
		py := make([]float64, len(y))
		projections(sortedWithIndex(y), sortedWithIndex(x), py)
		var want int64
		for i, a := range x {
			below, equal := countPairs(a, y)
			want += 2*int64(below) + int64(equal)
			if p := (float64(below) + float64(equal)/2) / float64(len(y)); px[i] != p {
				t.Fatalf("x[%d] = %d: projection %v, want %v", i, a, px[i], p)
			}
		}
		if halves != want {
			t.Fatalf("2U = %d, want %d", halves, want)
		}
		for j, b := range y {
			below, equal := countPairs(b, x)
			if p := (float64(below) + float64(equal)/2) / float64(len(x)); py[j] != p {
				t.Fatalf("y[%d] = %d: projection %v, want %v", j, b, py[j], p)
			}
		}
	})
}

// countPairs counts the samples of other below v and equal to it, one
// pair at a time.
func countPairs(v int64, other []int64) (below, equal int) {
	for _, o := range other {
		switch {
		case o < v:
			below++
		case o == v:
			equal++
		}
	}
	return below, equal
}
