package probe

import (
	"bytes"
	"testing"

	"github.com/sebdah/goldie/v2"
)

// The histogram file must match cyclictest -h's layout exactly: 1 µs
// buckets truncated from ns, tab-separated thread columns, the footer, and
// overflows listed by cycle number.
func TestCyclictestHistFormat(t *testing.T) {
	r := &WakeResult{Threads: []WakeThread{
		{Latencies: []int64{999, 1000, 1999, 2500, 7_000}},
		{Latencies: []int64{3000, 3999, 4001}},
	}}
	var b bytes.Buffer
	if err := r.WriteCyclictestHist(&b, 5, 0); err != nil {
		t.Fatal(err)
	}
	goldie.New(t).Assert(t, "cyclictest-hist", b.Bytes())
}
