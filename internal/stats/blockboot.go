package stats

import (
	"fmt"
	"math/rand/v2"
)

// Side is one run handed to a bootstrap that may resample blocks: its
// samples ascending, and in measurement order with the block length to
// resample them by (Ordered nil or Block <= 1: resampled one by one, as
// Bootstrap.DiffCI does).
type Side struct {
	Sorted  []int64
	Ordered []int64
	Block   int
}

func (s Side) blocks() bool {
	return s.Ordered != nil && s.Block > 1 && len(s.Ordered) == len(s.Sorted)
}

// BlockBudget bounds samples drawn times replicates of a moving-block
// bootstrap of one side: a block bootstrap resamples for real (the exact
// order-statistic shortcut of Bootstrap holds only for independent
// samples), so a million samples get MinBlockReplicates replicates, not
// thousands. The interval's method says when the bound was reached.
const BlockBudget = 100_000_000

// MinBlockReplicates is the fewest replicates a block bootstrap draws,
// whatever the sample count: enough for the 2.5% and 97.5% quantiles of
// the replicates to rest on 5 replicates each.
const MinBlockReplicates = 200

// DiffCISerial returns the percentile interval of st(y) - st(x) with each
// side resampled independently of the other: a side with blocks by the
// moving-block bootstrap (Künsch 1989, "The jackknife and the bootstrap
// for general stationary observations", Annals of Statistics 17(3)):
// ceil(n/Block) blocks of Block consecutive samples, each starting at a
// uniformly drawn position, joined and cut to n, so that the dependence
// within a block is kept in every replicate; a side without blocks as
// DiffCI resamples it. The replicates of a side with blocks are bounded
// by BlockBudget.
func (b Bootstrap) DiffCISerial(x, y Side, st Statistic) CI {
	b = b.norm()
	if !x.blocks() && !y.blocks() {
		return b.DiffCI(x.Sorted, y.Sorted, st)
	}
	est := st.Of(y.Sorted) - st.Of(x.Sorted)
	rx := rand.New(rand.NewPCG(b.Seed, 1))
	ry := rand.New(rand.NewPCG(b.Seed, 2))
	bx, mx := b.sideReplicates(x, st, rx)
	by, my := b.sideReplicates(y, st, ry)
	n := min(len(bx), len(by))
	d := make([]float64, n)
	for i := range d {
		d[i] = by[i] - bx[i]
	}
	method := mx
	if my != mx {
		method = "A: " + mx + "; B: " + my
	}
	lo, hi := percentileInterval(d, b.Level)
	return CI{Estimate: est, Lo: lo, Hi: hi, Level: b.Level, Method: method, Replicates: n}
}

func (b Bootstrap) sideReplicates(s Side, st Statistic, rng *rand.Rand) ([]float64, string) {
	if !s.blocks() {
		return b.replicates(s.Sorted, st, rng)
	}
	n := len(s.Ordered)
	reps := b.Replicates
	capped := ""
	if n*reps > BlockBudget {
		reps = max(MinBlockReplicates, BlockBudget/n)
		if reps < b.Replicates {
			capped = fmt.Sprintf(" (fewer than %d: samples times replicates kept within %d)", b.Replicates, BlockBudget)
		}
	}
	out := BlockReplicates(s.Ordered, s.Block, st, reps, rng)
	return out, fmt.Sprintf("moving-block bootstrap, blocks of %d samples, %d replicates%s", s.Block, reps, capped)
}

// BlockReplicates returns reps moving-block bootstrap replicates of st of
// ordered (samples in measurement order) with blocks of length l.
func BlockReplicates(ordered []int64, l int, st Statistic, reps int, rng *rand.Rand) []float64 {
	n := len(ordered)
	l = min(max(l, 1), n)
	out := make([]float64, reps)
	buf := make([]int64, n)
	starts := n - l + 1
	k := 0
	if st.kind == statQuantile {
		k = nearestRank(n, st.p) - 1
	}
	for i := range out {
		for j := 0; j < n; j += l {
			s := rng.IntN(starts)
			copy(buf[j:], ordered[s:s+l])
		}
		switch st.kind {
		case statQuantile:
			out[i] = float64(selectK(buf, k))
		case statMean:
			out[i], _ = MeanStdev(buf)
		default:
			_, out[i] = MeanStdev(buf)
		}
	}
	return out
}

// selectK returns the k-th smallest (0-based) of a, reordering a
// (Hoare's selection with a median-of-three pivot).
func selectK(a []int64, k int) int64 {
	lo, hi := 0, len(a)-1
	for lo < hi {
		mid := lo + (hi-lo)/2
		p := median3(a[lo], a[mid], a[hi])
		i, j := lo, hi
		for i <= j {
			for a[i] < p {
				i++
			}
			for a[j] > p {
				j--
			}
			if i <= j {
				a[i], a[j] = a[j], a[i]
				i++
				j--
			}
		}
		switch {
		case k <= j:
			hi = j
		case k >= i:
			lo = i
		default:
			return a[k]
		}
	}
	return a[k]
}

func median3(a, b, c int64) int64 {
	if a > b {
		a, b = b, a
	}
	if b > c {
		b = c
	}
	return max(a, b)
}
