package stats

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// ChiSquared is the result of Pearson's chi-squared test.
type ChiSquared struct {
	Statistic float64 `json:"statistic"`
	DF        int     `json:"df"`
	P         float64 `json:"p"`
	N         float64 `json:"n"`
	// CramersV is the effect size, 0 (same distributions) to 1
	// (disjoint).
	CramersV float64 `json:"cramers_v"`
	// MinExpected is the smallest expected count; below 5 the chi-squared
	// approximation of the p-value is poor (Cochran's rule).
	MinExpected float64 `json:"min_expected"`
	// Dropped counts rows and columns left out because they were all zero.
	DroppedRows int `json:"dropped_rows,omitempty"`
	DroppedCols int `json:"dropped_cols,omitempty"`
}

// ChiSquaredTest tests whether the rows of a contingency table (e.g. one
// row per run, one column per histogram bucket) come from the same
// distribution: Pearson's test of homogeneity/independence without
// continuity correction, as R's chisq.test(m, correct = FALSE). Rows and
// columns that are all zero carry no information and are dropped first.
func ChiSquaredTest(table [][]float64) (ChiSquared, error) {
	t, dr, dc, err := dropZero(table)
	if err != nil {
		return ChiSquared{}, err
	}
	rows, cols := len(t), len(t[0])
	if rows < 2 || cols < 2 {
		return ChiSquared{}, fmt.Errorf("chi-squared test needs at least 2 non-empty rows and 2 non-empty columns, have %d x %d", rows, cols)
	}
	rs, cs, n := margins(t)
	res := ChiSquared{N: n, DF: (rows - 1) * (cols - 1), MinExpected: math.Inf(1), DroppedRows: dr, DroppedCols: dc}
	for i := range t {
		for j := range t[i] {
			e := rs[i] * cs[j] / n
			d := t[i][j] - e
			res.Statistic += d * d / e
			res.MinExpected = math.Min(res.MinExpected, e)
		}
	}
	res.P = pOf(res)
	res.CramersV = math.Sqrt(res.Statistic / (n * float64(min(rows, cols)-1)))
	return res, nil
}

// PoolColumns merges adjacent columns, left to right, until every expected
// count of a homogeneity test on the table is at least minExpected; a
// short last group joins the one before it. It is how sparse histogram
// tails (a handful of DPCs above 64 µs) are kept in the test without
// breaking its approximation. groups[k] lists the original columns of
// pooled column k; all-zero columns are dropped.
func PoolColumns(table [][]float64, minExpected float64) (pooled [][]float64, groups [][]int) {
	if len(table) == 0 {
		return nil, nil
	}
	rs, cs, n := margins(table)
	minRow := math.Inf(1)
	for _, r := range rs {
		if r > 0 {
			minRow = math.Min(minRow, r)
		}
	}
	var cur []int
	var curSum float64
	for j := range cs {
		if cs[j] == 0 {
			continue
		}
		cur = append(cur, j)
		curSum += cs[j]
		if n > 0 && curSum*minRow/n >= minExpected {
			groups = append(groups, cur)
			cur, curSum = nil, 0
		}
	}
	if len(cur) > 0 {
		if len(groups) > 0 {
			groups[len(groups)-1] = append(groups[len(groups)-1], cur...)
		} else {
			groups = append(groups, cur)
		}
	}
	pooled = make([][]float64, len(table))
	for i := range table {
		pooled[i] = make([]float64, len(groups))
		for k, g := range groups {
			for _, j := range g {
				pooled[i][k] += table[i][j]
			}
		}
	}
	return pooled, groups
}

func margins(t [][]float64) (rs, cs []float64, n float64) {
	rs = make([]float64, len(t))
	for i := range t {
		if cs == nil {
			cs = make([]float64, len(t[i]))
		}
		for j, v := range t[i] {
			if j < len(cs) {
				rs[i] += v
				cs[j] += v
				n += v
			}
		}
	}
	return rs, cs, n
}

func dropZero(table [][]float64) (out [][]float64, droppedRows, droppedCols int, err error) {
	if len(table) == 0 {
		return nil, 0, 0, errors.New("empty table")
	}
	cols := len(table[0])
	for _, r := range table {
		if len(r) != cols {
			return nil, 0, 0, errors.New("rows of different lengths")
		}
		for _, v := range r {
			if v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, 0, 0, errors.New("counts must be finite and non-negative")
			}
		}
	}
	rs, cs, _ := margins(table)
	for i, r := range table {
		if rs[i] == 0 {
			droppedRows++
			continue
		}
		var row []float64
		for j, v := range r {
			if cs[j] > 0 {
				row = append(row, v)
			}
		}
		out = append(out, row)
	}
	for _, c := range cs {
		if c == 0 {
			droppedCols++
		}
	}
	if len(out) == 0 {
		out = [][]float64{{}}
	}
	return out, droppedRows, droppedCols, nil
}

// pOf is the upper tail of the chi-squared distribution at the statistic.
func pOf(r ChiSquared) float64 {
	return distuv.ChiSquared{K: float64(r.DF)}.Survival(r.Statistic)
}
