package compare_test

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/sebdah/goldie/v2"

	"github.com/latlab/latlab/internal/host"
	"github.com/latlab/latlab/internal/probe"
	"github.com/latlab/latlab/internal/result"
	"github.com/latlab/latlab/internal/testutil"
	"github.com/latlab/latlab/internal/timer"
)

// The wake result and the cyclictest histogram of the "mixed" golden
// cases (testdata/mixed-wake.json, testdata/mixed.hist) are written here
// from seeded generators: go test ./internal/compare -run
// TestMixedFixtures -update writes them again.
func TestMixedFixtures(t *testing.T) {
	// 1200 wake-ups around 20 µs, serially dependent (AR(1), 0.5)
	lat := testutil.AR1(rand.New(rand.NewPCG(41, 42)), 1200, 0.5, 20_000, 2_000)
	wr := &probe.WakeResult{Interval: time.Millisecond, Planned: 1200,
		Threads: []probe.WakeThread{{Setup: probe.ThreadSetup{CPU: 1}, Latencies: lat}}}
	doc, err := probe.WakeDocument(host.Facts{OS: "linux", Arch: "amd64", LogicalCPUs: 4}, wr, timer.Status{}, errors.New("not read"), nil)
	if err != nil {
		t.Fatal(err)
	}
	doc.Created = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	doc.Tool = result.Tool{Name: "latlab", Version: "dev"}
	// as Linux names it, on every OS the tests run on
	doc.Data.(*probe.WakeData).Measurement.Method = "clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME)"
	var b bytes.Buffer
	if err := result.Write(&b, doc); err != nil {
		t.Fatal(err)
	}
	goldie.New(t, goldie.WithNameSuffix(".json")).Assert(t, "mixed-wake", b.Bytes())

	// 1500 wake-ups around 21 µs, independent, in cyclictest -h 40's
	// layout, and 5 overflows
	counts := make([]int64, 40)
	for _, v := range testutil.AR1(rand.New(rand.NewPCG(43, 44)), 1500, 0, 21_000, 2_000) {
		counts[max(v, 0)/1000]++
	}
	var h bytes.Buffer
	h.WriteString("# /dev/cpu_dma_latency set to 0us\n# Histogram\n")
	var total int64
	for i, c := range counts {
		fmt.Fprintf(&h, "%06d %06d\n", i, c)
		total += c
	}
	fmt.Fprintf(&h, "# Total: %09d\n# Min Latencies: 00012\n# Avg Latencies: 00021\n# Max Latencies: 00187\n# Histogram Overflows: %05d\n# Histogram Overflow at cycle number:\n# Thread 0:\n", total, 5)
	goldie.New(t, goldie.WithNameSuffix(".hist")).Assert(t, "mixed", h.Bytes())
}
