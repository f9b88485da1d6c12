package stats

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
)

// Side is one run handed to a bootstrap that may resample blocks: its
// samples ascending, and in measurement order with the block length to
// resample them by (Ordered nil or Block <= 1: resampled one by one, as
// Bootstrap.DiffCI does). A run kept as a histogram is given by Bins
// instead (Sorted and Ordered nil): it has no order, and is resampled one
// by one as DiffCIBinned resamples it, never expanded.
type Side struct {
	Sorted  []int64
	Ordered []int64
	Block   int
	Bins    *Binned
}

// n is how many values the side holds.
func (s Side) n() int {
	if s.Bins != nil {
		return int(s.Bins.N())
	}
	return len(s.Sorted)
}

// of is st of the side's values.
func (s Side) of(st Statistic) float64 {
	if s.Bins != nil {
		return st.OfBinned(*s.Bins)
	}
	return st.Of(s.Sorted)
}

// binned is the side as bins: its own, or its samples counted by value.
func (s Side) binned() Binned {
	if s.Bins != nil {
		return *s.Bins
	}
	return binSorted(s.Sorted)
}

// binSorted counts ascending samples by value.
func binSorted(sorted []int64) Binned {
	var vs, cs []int64
	for _, v := range sorted {
		if k := len(vs) - 1; k >= 0 && vs[k] == v {
			cs[k]++
			continue
		}
		vs, cs = append(vs, v), append(cs, 1)
	}
	b, _ := NewBinned(vs, cs) // ascending, counts within a slice's length
	return b
}

// sideOneByOne draws the side's replicates of st one by one (no blocks),
// from rng: DiffCI's draws of samples, DiffCIBinned's of bins.
func (b Bootstrap) sideOneByOne(s Side, st Statistic, rng *rand.Rand) ([]float64, string) {
	if s.Bins != nil {
		return b.replicatesBinned(*s.Bins, st, rng, false)
	}
	return b.replicates(s.Sorted, st, rng)
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
	return b.DiffCIsSerial(x, y, []Statistic{st})[0]
}

// CISerial is CI for one run: by the moving-block bootstrap when s has
// blocks (as DiffCISerial resamples a side), by CI otherwise.
func (b Bootstrap) CISerial(s Side, st Statistic) CI {
	if !s.blocks() {
		return b.CI(s.Sorted, st)
	}
	b = b.norm()
	reps, methods := b.sideReplicates(s, []Statistic{st}, 0x9e3779b97f4a7c15)
	lo, hi := percentileInterval(reps[0], b.Level)
	return CI{Estimate: st.Of(s.Sorted), Lo: lo, Hi: hi, Level: b.Level, Method: methods[0], Replicates: len(reps[0])}
}

// DiffCIsSerial is DiffCISerial for each of sts, each interval the same
// as DiffCISerial's for its statistic alone: a side with blocks draws
// each replicate's resample once for all the statistics, which is what
// makes a table of them affordable for a million samples.
func (b Bootstrap) DiffCIsSerial(x, y Side, sts []Statistic) []CI {
	b = b.norm()
	out := make([]CI, len(sts))
	if len(sts) == 0 {
		return out
	}
	if !x.blocks() && !y.blocks() {
		for i, st := range sts {
			out[i] = b.diffCIOneByOne(x, y, st)
		}
		return out
	}
	// The sides draw from streams of their own: side by side, on two
	// CPUs where there are two, they give what one after the other would.
	var bx [][]float64
	var mx []string
	var wg sync.WaitGroup
	wg.Go(func() { bx, mx = b.sideReplicates(x, sts, 1) })
	by, my := b.sideReplicates(y, sts, 2)
	wg.Wait()
	for i, st := range sts {
		est := y.of(st) - x.of(st)
		n := min(len(bx[i]), len(by[i]))
		d := make([]float64, n)
		for r := range d {
			d[r] = by[i][r] - bx[i][r]
		}
		method := mx[i]
		if my[i] != mx[i] {
			method = "A: " + mx[i] + "; B: " + my[i]
		}
		lo, hi := percentileInterval(d, b.Level)
		out[i] = CI{Estimate: est, Lo: lo, Hi: hi, Level: b.Level, Method: method, Replicates: n}
	}
	return out
}

// diffCIOneByOne is DiffCI of two sides without blocks, each of samples
// or of bins (DiffCIBinned for two of bins): the same streams, so that a
// side's replicates are the same whether the other is samples or bins.
func (b Bootstrap) diffCIOneByOne(x, y Side, st Statistic) CI {
	if x.Bins == nil && y.Bins == nil {
		return b.DiffCI(x.Sorted, y.Sorted, st)
	}
	est := y.of(st) - x.of(st)
	if x.n() == 0 || y.n() == 0 {
		return CI{Estimate: est, Lo: math.NaN(), Hi: math.NaN(), Level: b.Level}
	}
	bx, mx := b.sideOneByOne(x, st, rand.New(rand.NewPCG(b.Seed, 1)))
	by, my := b.sideOneByOne(y, st, rand.New(rand.NewPCG(b.Seed, 2)))
	return b.diffCI(est, bx, by, mx, my)
}

// sideReplicates draws a side's replicates of each of sts from the
// random stream of b.Seed numbered stream (a fresh one per statistic for
// a side without blocks, as DiffCI draws them).
func (b Bootstrap) sideReplicates(s Side, sts []Statistic, stream uint64) ([][]float64, []string) {
	reps := make([][]float64, len(sts))
	methods := make([]string, len(sts))
	if !s.blocks() {
		for i, st := range sts {
			reps[i], methods[i] = b.sideOneByOne(s, st, rand.New(rand.NewPCG(b.Seed, stream)))
		}
		return reps, methods
	}
	n := len(s.Ordered)
	r := b.Replicates
	capped := ""
	if n*r > BlockBudget {
		r = max(MinBlockReplicates, BlockBudget/n)
		if r < b.Replicates {
			capped = fmt.Sprintf(" (fewer than %d: samples times replicates kept within %d)", b.Replicates, BlockBudget)
		}
	}
	reps = BlockReplicates(s.Ordered, s.Block, sts, r, rand.New(rand.NewPCG(b.Seed, stream)))
	for i := range methods {
		methods[i] = fmt.Sprintf("moving-block bootstrap, blocks of %d samples, %d replicates%s", s.Block, r, capped)
	}
	return reps, methods
}

// BlockReplicates returns reps moving-block bootstrap replicates of each
// of sts of ordered (samples in measurement order) with blocks of length
// l, every statistic computed on the same resamples.
func BlockReplicates(ordered []int64, l int, sts []Statistic, reps int, rng *rand.Rand) [][]float64 {
	n := len(ordered)
	l = min(max(l, 1), n)
	out := make([][]float64, len(sts))
	for i := range out {
		out[i] = make([]float64, reps)
	}
	// The quantiles' ranks in ascending order: each is selected among
	// the values above the one before.
	var qs []int
	for i, st := range sts {
		if st.kind == statQuantile {
			qs = append(qs, i)
		}
	}
	slices.SortStableFunc(qs, func(a, b int) int { return cmp.Compare(sts[a].p, sts[b].p) })
	// The mean and stdev of a resample come from its blocks' sums of
	// the values and their squares, as differences of prefix sums (of the
	// values less their mean, so that the squares stay small): a few
	// operations per block instead of per sample.
	var sum, sq []float64
	var m0 float64
	if slices.ContainsFunc(sts, func(st Statistic) bool { return st.kind != statQuantile }) {
		m0, _ = MeanStdev(ordered)
		sum, sq = make([]float64, n+1), make([]float64, n+1)
		for t, v := range ordered {
			d := float64(v) - m0
			sum[t+1], sq[t+1] = sum[t]+d, sq[t]+d*d
		}
	}
	starts := n - l + 1
	var sel *bucketSelect
	if len(qs) > 0 {
		sel = newBucketSelect(ordered)
	}
	var blocks []int // the replicate's block starts
	ks := make([]int, len(qs))
	for j, i := range qs {
		ks[j] = nearestRank(n, sts[i].p) - 1
	}
	vals := make([]int64, len(qs))
	for r := 0; r < reps; r++ {
		var s1, s2 float64
		blocks = blocks[:0]
		for j := 0; j < n; j += l {
			s := rng.IntN(starts)
			blocks = append(blocks, s)
			if sum != nil {
				m := min(l, n-j) // the last block is cut to n
				s1 += sum[s+m] - sum[s]
				s2 += sq[s+m] - sq[s]
			}
		}
		for i, st := range sts {
			switch st.kind {
			case statMean:
				out[i][r] = m0 + s1/float64(n)
			case statStdev:
				if n > 1 {
					out[i][r] = math.Sqrt(max(0, (s2-s1*s1/float64(n))/float64(n-1)))
				}
			}
		}
		if sel != nil {
			sel.kth(blocks, l, ks, vals)
			for j, i := range qs {
				out[i][r] = float64(vals[j])
			}
		}
	}
	return out
}

// bucketSelect finds order statistics of a block resample of ordered
// without building it: a resample of a million samples copied and then
// selected from (Hoare's selection, once per quantile) was most of the
// time of a comparison of two dependent runs. The values are split into
// at most maxBuckets ranges at the sample's own quantiles, and each
// sample's range is looked up once. A replicate then counts its samples
// per range (one pass over the blocks, the counts in the core's first
// cache), which names the range holding each wanted rank and its rank
// within it, and a second pass keeps only the samples of those ranges,
// a few hundred each, to select from. A range of one distinct value
// needs no second look. The k-th smallest is the same value the copy
// and the selection gave.
type bucketSelect struct {
	ordered []int64
	of      []uint16 // the range of each sample of ordered
	single  []bool   // the range holds one distinct value
	top     []int64  // the largest value of each range
	count   []int
	slot    []int16 // range -> index in cand, -1 if not wanted
	cand    [][]int64
	from    []int // per cand: the rank selected last
}

const maxBuckets = 4096

func newBucketSelect(ordered []int64) *bucketSelect {
	n := len(ordered)
	sorted := slices.Clone(ordered)
	slices.Sort(sorted)
	// about 32 samples a range at least, so that clearing and scanning
	// the counts costs little beside the samples
	g := min(max(n/32, 1), maxBuckets)
	var top []int64
	for b := 1; b <= g; b++ {
		v := sorted[(b*n+g-1)/g-1] // ceil(b n / g) - 1
		if len(top) == 0 || v > top[len(top)-1] {
			top = append(top, v)
		}
	}
	bs := &bucketSelect{ordered: ordered, of: make([]uint16, n), single: make([]bool, len(top)), top: top,
		count: make([]int, len(top)), slot: make([]int16, len(top))}
	for b := range top {
		// one distinct value: the smallest of the range is its largest
		lo, _ := slices.BinarySearch(sorted, top[b])
		if b == 0 {
			bs.single[b] = sorted[0] == top[b]
		} else {
			first, _ := slices.BinarySearch(sorted, top[b-1]+1)
			bs.single[b] = first == lo
		}
		bs.slot[b] = -1
	}
	for t, v := range ordered {
		b, _ := slices.BinarySearch(top, v)
		bs.of[t] = uint16(b)
	}
	return bs
}

// kth sets out[j] to the ks[j]-th smallest (0-based, ks ascending) of the
// resample of blocks of l samples starting at starts, joined and cut to
// len(ordered).
func (bs *bucketSelect) kth(starts []int, l int, ks []int, out []int64) {
	n := len(bs.ordered)
	clear(bs.count)
	for j, s := range starts {
		m := min(l, n-j*l)
		for _, b := range bs.of[s : s+m] {
			bs.count[b]++
		}
	}
	// The range of each wanted rank, and the rank within it.
	type want struct{ b, k int }
	var ws [8]want
	wanted := ws[:0]
	b, below := 0, 0
	for _, k := range ks {
		for below+bs.count[b] <= k {
			below += bs.count[b]
			b++
		}
		wanted = append(wanted, want{b, k - below})
	}
	bs.cand = bs.cand[:0]
	for _, w := range wanted {
		if !bs.single[w.b] && bs.slot[w.b] < 0 {
			bs.slot[w.b] = int16(len(bs.cand))
			if len(bs.cand) < cap(bs.cand) { // the last replicates' buffers
				bs.cand = bs.cand[:len(bs.cand)+1]
				bs.cand[len(bs.cand)-1] = bs.cand[len(bs.cand)-1][:0]
			} else {
				bs.cand = append(bs.cand, nil)
			}
		}
	}
	if len(bs.cand) > 0 {
		for j, s := range starts {
			m := min(l, n-j*l)
			for t, b := range bs.of[s : s+m] {
				if c := bs.slot[b]; c >= 0 {
					bs.cand[c] = append(bs.cand[c], bs.ordered[s+t])
				}
			}
		}
	}
	// Ranks in one range are selected in ascending order, each among the
	// values above the one before (selectK leaves them so).
	from := bs.from[:0]
	for range bs.cand {
		from = append(from, 0)
	}
	bs.from = from
	for j, w := range wanted {
		if bs.single[w.b] {
			out[j] = bs.top[w.b]
			continue
		}
		c := bs.slot[w.b]
		out[j] = selectK(bs.cand[c][from[c]:], w.k-from[c])
		from[c] = w.k
	}
	for _, w := range wanted {
		bs.slot[w.b] = -1
	}
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
