package stats

import (
	"math"
	"math/rand/v2"
	"slices"
	"sync"
)

// KSTest names KolmogorovSmirnov's p-value in results.
const KSTest = "Kolmogorov-Smirnov, asymptotic p-value (independent samples)"

// SerialKSTest names KolmogorovSmirnovSerial's p-value in results.
const SerialKSTest = "Kolmogorov-Smirnov, p-value by a dependent multiplier bootstrap of the empirical processes (serially dependent samples)"

// KSGrid is the most points of t at which KolmogorovSmirnovSerial
// evaluates the empirical CDFs: each replicate then costs a pass over the
// samples and one over the grid, whatever the number of distinct values.
const KSGrid = 512

// KSReplicates is KolmogorovSmirnovSerial's default number of replicates:
// its p-value is then no smaller than 1/2001, below what FormatP shows.
const KSReplicates = 2000

// KolmogorovSmirnovSerial is the two-sample Kolmogorov-Smirnov test for
// samples that may be serially dependent: D as KolmogorovSmirnov gives
// it, and a p-value that holds under dependence. The ECDF of n dependent
// samples varies more than that of n independent ones, so the Kolmogorov
// distribution makes a difference look significant too often.
//
// The p-value is a dependent multiplier bootstrap of the two empirical
// processes (Shao 2010, "The dependent wild bootstrap", Journal of the
// American Statistical Association 105(489); for empirical processes of
// strongly mixing series, Bücher and Kojadinovic 2016, "A dependent
// multiplier bootstrap for the sequential empirical copula process under
// strong mixing", Bernoulli 22(2)). For each side, in measurement order,
// a replicate of its empirical process is G*(t) = n^-1/2 sum_i xi_i
// (1{X_i <= t} - F_n(t)) with N(0, 1) multipliers xi_i that are
// correlated with their neighbours, so that the variance of G*(t) is an
// estimate of the long-run variance of the indicators 1{X_i <= t}, as
// the moving-block bootstrap's variance of a mean is (Künsch 1989). Each
// multiplier is a moving average of independent normals weighted 1, 2,
// .., l, .., 2, 1 (l the side's block length, Serial.Block), so that the
// multipliers' correlation is a discrete Parzen lag window, nonzero up to
// lag 2l - 2: the self-convolution of a triangle, whose spectral window is
// nonnegative as a covariance needs, and flat at lag 0 (bias of order
// 1/l^2 in the variance, not Bartlett's 1/l: with Bartlett's window of l
// lags, the correlation of sums over blocks of l, the test rejected 9.7%
// of 1000 pairs of runs of one AR(1) process, phi 0.8, 400 samples each,
// at 5%, and 7.5% at 800 samples; with Parzen's, 8.4% and 6.5%). A side
// without blocks has l = 1, independent multipliers: the ordinary
// multiplier bootstrap, whose replicates follow the Kolmogorov
// distribution in the limit. Each replicate is sup over t of
// |sqrt(m/(n+m)) G*_x(t) - sqrt(n/(n+m)) G*_y(t)|, the process that
// sqrt(nm/(n+m)) (F_x - F_y) is when both sides have one distribution,
// and P is (1 + the replicates at or above the observed statistic) /
// (replicates + 1).
//
// The sup is taken over at most KSGrid points t, every distinct value of
// the pooled samples when there are no more (the observed statistic is
// then exactly sqrt(nm/(n+m)) D), otherwise values at evenly spaced
// quantiles of the pooled samples, for the observed statistic and the
// replicates alike. Replicates (0: KSReplicates) times the samples of
// both sides are kept within BlockBudget, with at least
// MinBlockReplicates. The same seed gives the same p-value.
//
// When neither side has blocks it is KolmogorovSmirnov.
//
// A side given as bins (a histogram: no order, no blocks) is never
// expanded: without blocks on either side this is then
// KolmogorovSmirnovBinned; with them, its multipliers are drawn a bin at
// a time (newKSProcess).
func KolmogorovSmirnovSerial(x, y Side, seed uint64, replicates int) KS {
	if !x.blocks() && !y.blocks() {
		if x.Bins != nil || y.Bins != nil {
			return KolmogorovSmirnovBinned(x.binned(), y.binned())
		}
		return KolmogorovSmirnov(x.Sorted, y.Sorted)
	}
	return ksMultiplier(x, y, seed, replicates)
}

// ksMultiplier is KolmogorovSmirnovSerial's p-value by the multiplier
// bootstrap, for sides with blocks or without (the ordinary multiplier
// bootstrap of independent samples).
func ksMultiplier(x, y Side, seed uint64, replicates int) KS {
	var k KS
	var grid []int64
	if x.Bins != nil || y.Bins != nil {
		bx, by := x.binned(), y.binned()
		k = KolmogorovSmirnovBinned(bx, by)
		grid = ksGridBinned(bx, by, KSGrid)
	} else {
		k = KolmogorovSmirnov(x.Sorted, y.Sorted)
		grid = ksGrid(x.Sorted, y.Sorted, KSGrid)
	}
	if math.IsNaN(k.D) {
		return k
	}
	n, m := x.n(), y.n()
	replicates = ksReplicates(replicates, n+m)
	px, py := newKSProcess(x, grid), newKSProcess(y, grid)
	wx := math.Sqrt(float64(m) / float64(n+m))
	wy := math.Sqrt(float64(n) / float64(n+m))
	var observed float64
	for j := range grid {
		observed = math.Max(observed, math.Abs(px.cdf[j]-py.cdf[j]))
	}
	observed *= math.Sqrt(float64(n) * float64(m) / float64(n+m))
	// Each side draws from a stream of its own, so that the two sides'
	// replicates are made side by side, on two CPUs where there are two
	// (a million samples a side take seconds), and the p-value is the
	// same however they ran. They go in chunks, which bounds the memory
	// the replicates wait in.
	rx := rand.New(rand.NewPCG(seed, 0x4b53))
	ry := rand.New(rand.NewPCG(seed, 0x4b59))
	g := len(grid)
	chunk := min(replicates, ksChunk)
	bx, by := make([]float64, chunk*g), make([]float64, chunk*g)
	above := 0
	for done := 0; done < replicates; done += chunk {
		c := min(chunk, replicates-done)
		var wg sync.WaitGroup
		wg.Go(func() {
			for r := range c {
				px.replicate(rx, bx[r*g:(r+1)*g])
			}
		})
		for r := range c {
			py.replicate(ry, by[r*g:(r+1)*g])
		}
		wg.Wait()
		for r := range c {
			gx, gy := bx[r*g:(r+1)*g], by[r*g:(r+1)*g]
			var sup float64
			for j := range gx {
				sup = math.Max(sup, math.Abs(wx*gx[j]-wy*gy[j]))
			}
			if sup >= observed {
				above++
			}
		}
	}
	k.P = float64(1+above) / float64(replicates+1)
	k.Test, k.Replicates, k.Grid = SerialKSTest, replicates, len(grid)
	return k
}

// ksChunk is how many replicates of each side KolmogorovSmirnovSerial
// keeps at once (64 of 512 points: 256 kB a side).
const ksChunk = 64

// ksReplicates is the number of replicates of want (0: KSReplicates)
// that a multiplier bootstrap of samples samples draws: within
// BlockBudget normals, but at least MinBlockReplicates.
func ksReplicates(want, samples int) int {
	if want <= 0 {
		want = KSReplicates
	}
	if want*samples > BlockBudget {
		want = min(want, max(MinBlockReplicates, BlockBudget/samples))
	}
	return want
}

// ksGrid returns the points at which the empirical CDFs of the ascending
// samples x and y are compared: every distinct value of the two when
// there are at most most, otherwise the values at the k/most quantiles of
// the pooled samples (k = 1..most), without repeats. The largest value is
// always one, so every sample lies at or below a point.
func ksGrid(x, y []int64, most int) []int64 {
	pooled := make([]int64, 0, len(x)+len(y))
	i, j := 0, 0
	for i < len(x) || j < len(y) {
		if j == len(y) || i < len(x) && x[i] <= y[j] {
			pooled = append(pooled, x[i])
			i++
		} else {
			pooled = append(pooled, y[j])
			j++
		}
	}
	distinct := slices.Compact(slices.Clone(pooled))
	if len(distinct) <= most {
		return distinct
	}
	n := len(pooled)
	grid := make([]int64, 0, most)
	for k := 1; k <= most; k++ {
		v := pooled[(k*n+most-1)/most-1] // ceil(k n / most) - 1
		if len(grid) == 0 || v > grid[len(grid)-1] {
			grid = append(grid, v)
		}
	}
	return grid
}

// ksGridBinned is ksGrid of the expanded bins.
func ksGridBinned(x, y Binned, most int) []int64 {
	var vs, cs []int64
	xv, xc := x.Bins()
	yv, yc := y.Bins()
	i, j := 0, 0
	for i < len(xv) || j < len(yv) {
		switch {
		case j == len(yv) || i < len(xv) && xv[i] < yv[j]:
			vs, cs = append(vs, xv[i]), append(cs, xc[i])
			i++
		case i == len(xv) || yv[j] < xv[i]:
			vs, cs = append(vs, yv[j]), append(cs, yc[j])
			j++
		default:
			vs, cs = append(vs, xv[i]), append(cs, xc[i]+yc[j])
			i, j = i+1, j+1
		}
	}
	if len(vs) <= most {
		return vs
	}
	// The two sides' counts together are within an int64, as the rank
	// test needs them (the callers check it).
	pooled := Binned{values: vs, counts: cs, cum: make([]int64, len(cs))}
	var n int64
	for i, c := range cs {
		n += c
		pooled.cum[i] = n
	}
	m := int64(most)
	grid := make([]int64, 0, most)
	for k := int64(1); k <= m; k++ {
		var r int64 // ceil(k n / most) - 1, as ksGrid takes it
		if n <= math.MaxInt64/m {
			r = (k*n+m-1)/m - 1
		} else {
			r = min(int64(math.Ceil(float64(k)*float64(n)/float64(m)))-1, n-1)
		}
		if v := pooled.At(r); len(grid) == 0 || v > grid[len(grid)-1] {
			grid = append(grid, v)
		}
	}
	return grid
}

// ksProcess is one side of KolmogorovSmirnovSerial: each sample's point
// of the grid in measurement order, the side's ECDF at the grid, and the
// buffers of its replicates. A side of bins has a cell per bin instead,
// and sd, the square root of each bin's count: the sum of c independent
// standard normals, the multipliers of a bin's c values, is one normal
// of standard deviation sqrt(c), drawn as such (the same distribution
// as the expanded side's, from other random numbers, in O(bins)).
type ksProcess struct {
	n     int       // the side's values
	sd    []float64 // per bin, nil for a side of samples
	cell  []int32   // the first grid point at or above each sample (or bin)
	cdf   []float64 // F_n at each grid point
	half  int       // of the triangle of weights: multipliers span 2 half - 1 normals
	z     []float64 // independent normals, n + 2 half - 2
	box   []float64 // the last half sums of half consecutive normals, a ring
	acc   []float64 // multipliers summed per grid point
	scale float64   // 1 / the norm of the weights
}

func newKSProcess(s Side, grid []int64) *ksProcess {
	if s.Bins != nil {
		vs, cs := s.Bins.Bins()
		p := &ksProcess{n: s.n(), sd: make([]float64, len(vs)), cell: make([]int32, len(vs)), cdf: make([]float64, len(grid)),
			acc: make([]float64, len(grid))}
		count := make([]int64, len(grid))
		for i, v := range vs {
			j, _ := slices.BinarySearch(grid, v)
			p.cell[i], p.sd[i] = int32(j), math.Sqrt(float64(cs[i]))
			count[j] += cs[i]
		}
		var below int64
		for j, c := range count {
			below += c
			p.cdf[j] = float64(below) / float64(p.n)
		}
		return p
	}
	order, half := s.Sorted, 1
	if s.blocks() {
		order, half = s.Ordered, s.Block
	}
	n := len(order)
	half = min(max(half, 1), n)
	h := float64(half)
	p := &ksProcess{n: n, cell: make([]int32, n), cdf: make([]float64, len(grid)), half: half,
		z: make([]float64, n+2*half-2), box: make([]float64, half), acc: make([]float64, len(grid)),
		scale: 1 / math.Sqrt(h*(2*h*h+1)/3)} // the squares of 1, 2, .., half, .., 2, 1
	count := make([]int, len(grid))
	for i, v := range order {
		j, _ := slices.BinarySearch(grid, v)
		p.cell[i] = int32(j)
		count[j]++
	}
	below := 0
	for j, c := range count {
		below += c
		p.cdf[j] = float64(below) / float64(n)
	}
	return p
}

// replicate draws G*(t) at every grid point t into g. The multiplier of
// sample i is the sum of normals i..i+2 half-2 weighted 1, 2, .., half,
// .., 2, 1: a moving sum of half of the moving sums of half normals,
// both kept as running sums in one pass (the inner sums wait in a ring
// of half, where an array of them all cost a pass over memory of its
// own).
func (p *ksProcess) replicate(rng *rand.Rand, g []float64) {
	clear(p.acc)
	var total float64
	if p.sd != nil {
		for i, c := range p.cell {
			xi := rng.NormFloat64() * p.sd[i]
			p.acc[c] += xi
			total += xi
		}
	} else {
		total = p.multipliers(rng)
	}
	root := math.Sqrt(float64(p.n))
	var sum float64
	for j, a := range p.acc {
		sum += a
		g[j] = (sum - p.cdf[j]*total) / root
	}
}

// multipliers adds each sample's multiplier to its grid point's in acc
// (cleared), and returns their total.
func (p *ksProcess) multipliers(rng *rand.Rand) float64 {
	for i := range p.z {
		p.z[i] = rng.NormFloat64()
	}
	z, h, ring := p.z, p.half, p.box
	// inner: the sum of z[k..k+h-1], the k-th inner sum, made for k = 0,
	// 1, ..; outer: the sum of the inner sums i..i+h-1.
	var inner, outer float64
	for _, v := range z[:h-1] {
		inner += v
	}
	in := 0 // the ring's slot of the next inner sum (k mod h)
	for k := range h - 1 {
		inner += z[k+h-1]
		ring[in] = inner
		in++
		outer += inner
		inner -= z[k]
	}
	out := 0 // the ring's slot of inner sum i (i mod h)
	var total float64
	for i, c := range p.cell {
		k := i + h - 1
		inner += z[k+h-1]
		ring[in] = inner // over inner sum i-1, which has left outer
		if in++; in == h {
			in = 0
		}
		outer += inner
		inner -= z[k]
		xi := outer * p.scale
		p.acc[c] += xi
		total += xi
		outer -= ring[out]
		if out++; out == h {
			out = 0
		}
	}
	return total
}
