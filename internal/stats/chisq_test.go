package stats

import (
	"math"
	"reflect"
	"testing"
)

func nearRel(a, b, rel float64) bool { return math.Abs(a-b) <= rel*math.Abs(b) }

// Reference values from R 4.x (stats::chisq.test) and hand computation.
func TestChiSquaredAgainstR(t *testing.T) {
	// R's own example (?chisq.test, Agresti 2007 p. 39):
	// M <- as.table(rbind(c(762, 327, 468), c(484, 239, 477))); chisq.test(M)
	// X-squared = 30.07, df = 2, p-value = 2.954e-07
	r, err := ChiSquaredTest([][]float64{{762, 327, 468}, {484, 239, 477}})
	if err != nil {
		t.Fatal(err)
	}
	if !nearRel(r.Statistic, 30.0701, 1e-4) || r.DF != 2 || !nearRel(r.P, 2.954e-07, 1e-3) || r.N != 2757 {
		t.Errorf("gender x party: %+v", r)
	}
	// Cramér's V = sqrt(30.0701 / (2757 * 1)) = 0.10443
	if !nearRel(r.CramersV, 0.10443, 1e-3) {
		t.Errorf("Cramér's V %v", r.CramersV)
	}

	// 2x2 by hand: expected 12, 18, 28, 42; X² = 4/12+4/18+4/28+4/42 = 0.79365;
	// chisq.test(matrix(c(10,30,20,40),2), correct=FALSE): p-value = 0.373
	r, _ = ChiSquaredTest([][]float64{{10, 20}, {30, 40}})
	if !nearRel(r.Statistic, 0.793651, 1e-5) || r.DF != 1 || !nearRel(r.P, 0.37300, 1e-3) || r.MinExpected != 12 {
		t.Errorf("2x2: %+v", r)
	}

	// Identical rows: X² = 0, p = 1.
	r, _ = ChiSquaredTest([][]float64{{5, 10, 20}, {10, 20, 40}})
	if r.Statistic > 1e-12 || r.P != 1 {
		t.Errorf("proportional rows: %+v", r)
	}

	// An all-zero column (an empty bucket in every run) is dropped.
	r, _ = ChiSquaredTest([][]float64{{762, 0, 327, 468}, {484, 0, 239, 477}})
	if !nearRel(r.Statistic, 30.0701, 1e-4) || r.DF != 2 || r.DroppedCols != 1 {
		t.Errorf("zero column: %+v", r)
	}
}

// Textbook critical values of the chi-squared distribution (upper tail).
func TestChiSquaredCriticalValues(t *testing.T) {
	for _, c := range []struct {
		x  float64
		df int
		p  float64
	}{{3.841459, 1, 0.05}, {9.210340, 2, 0.01}, {11.070498, 5, 0.05}, {23.209251, 10, 0.01}} {
		got := pOf(ChiSquared{Statistic: c.x, DF: c.df})
		if !nearRel(got, c.p, 1e-5) {
			t.Errorf("P(X² > %v | df %d) = %v, want %v", c.x, c.df, got, c.p)
		}
	}
}

func TestChiSquaredErrors(t *testing.T) {
	for name, tab := range map[string][][]float64{
		"one row":  {{1, 2, 3}},
		"one col":  {{1}, {2}},
		"ragged":   {{1, 2}, {3}},
		"negative": {{1, -2}, {3, 4}},
		"zeros":    {{0, 0}, {0, 0}},
		"empty":    {},
	} {
		if _, err := ChiSquaredTest(tab); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestPoolColumns(t *testing.T) {
	// Row totals 100 and 100, N 200: a pooled column needs a total of 10
	// for every expected count to reach 5.
	tab := [][]float64{
		{40, 50, 6, 3, 1, 0},
		{60, 30, 8, 1, 0, 0},
	}
	pooled, groups := PoolColumns(tab, 5)
	if !reflect.DeepEqual(groups, [][]int{{0}, {1}, {2, 3, 4}}) {
		t.Fatalf("groups %v", groups)
	}
	if !reflect.DeepEqual(pooled, [][]float64{{40, 50, 10}, {60, 30, 9}}) {
		t.Errorf("pooled %v", pooled)
	}
	r, err := ChiSquaredTest(pooled)
	if err != nil || r.MinExpected < 5 {
		t.Errorf("after pooling: %+v %v", r, err)
	}
}
