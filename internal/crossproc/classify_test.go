package crossproc

import (
	"strings"
	"testing"
	"time"
)

// A post-2004 machine measured as the research did: Sleep(1) at the
// isolated curve's median for every period. It is isolated, although the
// other process's request changed this process's sleeps (12 ms at 6 ms):
// those sleeps imitate the default rather than follow the other process.
func TestClassifyResearchCurve(t *testing.T) {
	var periods, p50 []int64
	for p := int64(1); p <= 15; p++ {
		periods = append(periods, p)
		p50 = append(p50, Expected(Isolated2004, time.Duration(p)*time.Millisecond, time.Millisecond).MedianNs)
	}
	r := rows(15625000, periods, p50)
	v := Classify(r, time.Millisecond, Facts{Windows: true, Build: 19045})
	if v.Behaviour != Isolated || !strings.Contains(v.Text, "imitates the default 15.625 ms") {
		t.Fatalf("%+v", v)
	}
	for _, row := range r[1:] {
		p := row.RequestedNs / 1e6
		// Where both rules predict the same (9 ms and up: one interval
		// either way), the period says nothing.
		if want := p < 9; row.Informative != want {
			t.Errorf("%d ms: informative %v, want %v (isolated %d, global %d)", p, row.Informative, want, row.ExpectedIsolatedNs, row.ExpectedNs)
		}
		if row.Tracked {
			t.Errorf("%d ms: tracked", p)
		}
	}
	if r[8].ExpectedIsolated == nil || len(r[8].ExpectedIsolated.Outcomes) != 2 || r[6].ExpectedIsolatedNs != 12e6 || r[6].ExpectedNs != 6e6 {
		t.Errorf("8 ms: %+v; 6 ms: isolated %d global %d", r[8].ExpectedIsolated, r[6].ExpectedIsolatedNs, r[6].ExpectedNs)
	}
	// The same machine before 2004: Sleep(1) follows the period.
	var glob []int64
	for _, p := range periods {
		glob = append(glob, Expected(GlobalRule, time.Duration(p)*time.Millisecond, time.Millisecond).MedianNs)
	}
	if v := Classify(rows(15625000, periods, glob), time.Millisecond, Facts{Windows: true, Build: 18363}); v.Behaviour != Global {
		t.Errorf("pre-2004: %+v", v)
	}
}

// The expectations use the interval actually in force when it was read:
// timeBeginPeriod(1) is granted 0.9766 ms on many machines, so a global
// Sleep(1) takes two ticks, 1.953 ms.
func TestClassifyUsesCurrentInterval(t *testing.T) {
	r := rows(15625000, []int64{1}, []int64{1953125})
	r[1].CurrentNs = 976_562
	Classify(r, time.Millisecond, Facts{Windows: true, Build: 18363})
	if r[1].IntervalNs != 976_562 || r[1].ExpectedNs != 1_953_124 || !r[1].Tracked {
		t.Errorf("%+v", r[1])
	}
}

func TestExpectedRule(t *testing.T) {
	cases := []struct {
		f    Facts
		want Rule
	}{
		{Facts{}, PerThread},
		{Facts{Windows: true, Build: 18363}, GlobalRule},
		{Facts{Windows: true, Build: 19041}, Isolated2004},
		{Facts{Windows: true, Build: 19045, GlobalSetting: u32(1)}, Isolated2004}, // Windows 10: the key has no effect
		{Facts{Windows: true, Build: 20348, GlobalSetting: u32(1)}, GlobalRule},   // Server 2022
		{Facts{Windows: true, Build: 22631, GlobalSetting: u32(1)}, GlobalRule},
		{Facts{Windows: true, Build: 22631, GlobalSetting: u32(0)}, Isolated2004},
	}
	for _, c := range cases {
		if got := c.f.ExpectedRule(); got != c.want {
			t.Errorf("%+v: %s, want %s", c.f, got, c.want)
		}
	}
}
