package probe

import (
	"testing"

	"github.com/latlab/latlab/internal/clock"
	"github.com/latlab/latlab/internal/stats"
)

// BenchmarkClockAndHistogram is the per-sample cost a probe adds when it
// records straight into a histogram: one clock read plus one record. The
// target is at most 100 ns per sample.
func BenchmarkClockAndHistogram(b *testing.B) {
	h := stats.NewHistogram()
	prev := clock.Now()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		now := clock.Now()
		_ = h.RecordValue(now - prev + 1)
		prev = now
	}
}
