package try

import (
	"bytes"
	"testing"
	"time"

	"github.com/sebdah/goldie/v2"

	"github.com/latlab/latlab/internal/dpcisr"
	"github.com/latlab/latlab/internal/host"
	"github.com/latlab/latlab/internal/probe"
	"github.com/latlab/latlab/internal/result"
	"github.com/latlab/latlab/internal/stats"
)

// The try documents compare's tests read (../compare/testdata/try-*.json)
// are written here, by this package's own Analyze and Document, from
// fixed experiments: go test ./internal/try -run TestCompareFixtures
// -update writes them again after a change of the try document.

// noiseFixture is a noise experiment over rounds rounds on cpus: in a
// block of arm a, CPU index c counts per[a][c] interruptions (plus the
// round's index, a drift both arms share) in a second of runtime, each
// 2-5 µs long.
func noiseFixture(rounds int, cpus []int, per [][]int64) *Result {
	r := &Result{Knob: "timer-migration", Scope: ScopeSystem, Probe: ProbeNoise, Quantity: Quantity(ProbeNoise), By: ByRate, Alpha: Alpha, Seed: 5,
		Blocks: rounds, BlockDurationNs: 1e9, SettleNs: 1e8, Keep: KeepNone, NoiseThresholdNs: 1000,
		Arms:  []Arm{{Label: "current", Baseline: true, Current: "1"}, {Label: "0", Value: "0"}},
		Order: Order(2, rounds, 5), Writes: []string{"/proc/sys/kernel/timer_migration"}}
	if len(cpus) == 1 {
		r.NoiseCPU = ptr(cpus[0])
	} else {
		r.NoiseCPUs = cpus
	}
	r.meta.method = probe.NoiseMethod
	for i, a := range r.Order {
		b := Block{Index: i, Round: i / 2, Arm: a, StartNs: int64(i) * 11e8, ElapsedNs: 1e9 + 2e5, Complete: true}
		var recs []NoiseBlock
		for c, cpu := range cpus {
			n := per[a][c] + int64(i/2)
			var noise, longest int64
			for k := range n {
				l := 2000 + (k*7919+int64(c)*131)%3000
				b.Samples = append(b.Samples, l)
				noise += l
				longest = max(longest, l)
			}
			recs = append(recs, NoiseBlock{CPU: cpu, RuntimeNs: 1e9, Count: n, NoiseNs: noise, MaxNs: longest, Kept: n,
				PerSecond: float64(n), AvailablePct: 100 * float64(1e9-noise) / 1e9})
		}
		b.Count = len(b.Samples)
		if len(recs) == 1 {
			b.Noise = &recs[0]
		} else {
			b.NoiseCPUs = recs
		}
		r.Runs = append(r.Runs, b)
	}
	return r
}

// dpcisrFixture is a dpcisr experiment over 8 rounds in which ndis.sys's
// DPCs of the value's blocks are a bucket shorter than the baseline's.
func dpcisrFixture() *Result {
	r := dpcRun(map[int]int64{3: 20, 4: 10, 5: 4, 6: 1}, map[int]int64{2: 20, 3: 10, 4: 4, 5: 1}, "")
	// ndis.sys's interrupts too, a little shorter with moderation off:
	// compare tests the two sections as one family (Holm).
	for i := range r.Runs {
		isr := map[int]int64{1: 12, 2: 14, 3: 6}
		if r.Runs[i].Arm == 1 {
			isr = map[int]int64{1: 15, 2: 13, 3: 4}
		}
		h := dpcHist("ndis.sys", isr)
		r.Runs[i].DPCISR.Sections = append(r.Runs[i].DPCISR.Sections, dpcisr.Section{Name: dpcisr.ISR, Heading: dpcisr.ISR,
			Modules: []dpcisr.Histogram{h}, Overall: &h,
			Usage: []dpcisr.ModuleUsage{{Module: "ndis.sys", Usec: []int64{400}, Percent: []float64{0}, CPUs: []int{0}}}})
	}
	r.Scope, r.Quantity, r.By, r.Alpha, r.Seed = ScopeSystem, Quantity(ProbeDPCISR), DPCBy.String(), Alpha, 5
	r.BlockDurationNs, r.SettleNs, r.Keep = 1e9, 1e8, KeepNone
	r.Arms[0].Current = "adaptive"
	r.Writes = []string{"the adapter's *InterruptModeration"}
	r.meta.method = dpcMethod
	for i := range r.Runs {
		r.Runs[i].StartNs, r.Runs[i].ElapsedNs = int64(i)*11e8, 1e9+2e5
	}
	return r
}

// fixtureDocument is the try document of r, analysed, as a fixed host
// wrote it at a fixed time.
func fixtureDocument(t *testing.T, r *Result, by stats.Statistic) []byte {
	t.Helper()
	if err := Analyze(r, by, 1); err != nil {
		t.Fatal(err)
	}
	r.ElapsedNs = int64(len(r.Runs)) * 11e8
	doc, err := Document(host.Facts{OS: "linux", Arch: "amd64", LogicalCPUs: 4}, r, map[string]string{"knob": r.Knob, "probe": r.Probe})
	if err != nil {
		t.Fatal(err)
	}
	doc.Created = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	doc.Tool = result.Tool{Name: "latlab", Version: "dev"}
	d, _ := Kind.Of(doc)
	d.Measurement.ClockSource = "CLOCK_MONOTONIC (vDSO)"
	var b bytes.Buffer
	if err := result.Write(&b, doc); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestCompareFixtures(t *testing.T) {
	g := goldie.New(t, goldie.WithFixtureDir("../compare/testdata"), goldie.WithNameSuffix(".json"))
	for _, c := range []struct {
		name string
		r    *Result
		by   stats.Statistic
	}{
		// One CPU: the value's blocks count about 40% fewer interruptions.
		{"try-noise", noiseFixture(8, []int{3}, [][]int64{{60}, {35}}), stats.Quantile(50)},
		// Two CPUs: fewer on CPU 2, as many on CPU 3.
		{"try-noise-cpus", noiseFixture(8, []int{2, 3}, [][]int64{{60, 40}, {35, 40}}), stats.Quantile(50)},
		{"try-dpcisr", dpcisrFixture(), DPCBy},
	} {
		t.Run(c.name, func(t *testing.T) {
			g.Assert(t, c.name, fixtureDocument(t, c.r, c.by))
		})
	}
}
