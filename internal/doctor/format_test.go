package doctor_test

import (
	"testing"
	"time"

	"github.com/latlab/latlab/internal/doctor"
	"github.com/latlab/latlab/internal/report"
)

// The check-up formats durations as every latlab table does.
func TestDurationsAsReport(t *testing.T) {
	for _, ns := range []int64{0, 1, 999, 1000, 1500, 64_196, 999_999, 1_000_000, 15_625_000, 41_238_100, 2_000_000_000, -1500} {
		if a, b := doctor.FmtDur(ns), report.Duration(time.Duration(ns)); a != b {
			t.Errorf("%d: doctor %q, report %q", ns, a, b)
		}
	}
}
