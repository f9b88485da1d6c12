package timer

import (
	"testing"
	"time"
)

func checkStatus(t *testing.T, st Status) {
	t.Helper()
	if st.Coarsest100ns == 0 || st.Finest100ns == 0 || st.Current100ns == 0 {
		t.Fatalf("resolution fields missing: %+v", st)
	}
	if st.Finest100ns > st.Coarsest100ns {
		t.Fatalf("finest %d coarser than coarsest %d", st.Finest100ns, st.Coarsest100ns)
	}
	if st.Build == 0 || st.PerProcessRule == nil || st.GlobalSupported == nil {
		t.Fatalf("build facts missing: %+v", st)
	}
}

func TestSetResolution(t *testing.T) {
	r, err := Set(time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if r.Granted <= 0 {
		t.Errorf("granted %v", r.Granted)
	}
	if err := r.Release(); err != nil {
		t.Fatal(err)
	}
}

func TestWinmm(t *testing.T) {
	if err := TimeBeginPeriod(1); err != nil {
		t.Fatal(err)
	}
	defer TimeEndPeriod(1)
	// A granularity needs at least three changes of timeGetTime's value.
	g, err := TimeGetTimeGranularity(50 * time.Millisecond)
	if err != nil || g <= 0 || g > 20*time.Millisecond {
		t.Errorf("granularity %v %v", g, err)
	}
	if err := TimeBeginPeriod(0); err == nil {
		t.Error("timeBeginPeriod(0) accepted")
	}
}

// A release with nothing to release (STATUS_TIMER_RESOLUTION_NOT_SET) is
// not an error; on a request, or any other status, it is.
func TestResolutionStatus(t *testing.T) {
	for _, tc := range []struct {
		st   uint32
		set  bool
		fail bool
	}{
		{0, true, false}, {0, false, false},
		{0xC0000245, false, false},
		{0xC0000245, true, true},
		{0xC000000D, false, true}, // STATUS_INVALID_PARAMETER
	} {
		if err := resolutionStatus(tc.st, 5000, tc.set); (err != nil) != tc.fail {
			t.Errorf("status %#x set %v: %v", tc.st, tc.set, err)
		}
	}
}
