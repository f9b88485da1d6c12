package dpcisr

import (
	"strings"
	"testing"
)

// FuzzParse: any input either parses into sections whose summaries are
// consistent or fails with a one-line ParseError; it never panics.
func FuzzParse(f *testing.F) {
	for _, name := range []string{"xperf-dpcisr-keyboard-ps2-vs-usb.txt", "xperf-dpcisr-written-layout.txt"} {
		f.Add(readFixture(f, name))
	}
	f.Add("Total = 2 for module x.sys\nElapsed Time, > 2048 usecs, 2, or 100,00%\nTotal,\n")
	f.Add("====\nDPC\n====\nTotal = 1\nElapsed Time, > 0 usecs AND <= 1 usecs, 1\n")
	f.Add("\xff\xfeT\x00o\x00")
	f.Fuzz(func(t *testing.T, in string) {
		r, err := Parse(strings.NewReader(in))
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("multi-line error %q", err)
			}
			return
		}
		for _, s := range r.Sections {
			if s.Name != DPC && s.Name != ISR {
				t.Fatalf("section %q", s.Name)
			}
			hs := append([]Histogram(nil), s.Modules...)
			if s.Overall != nil {
				hs = append(hs, *s.Overall)
			}
			for _, h := range hs {
				sum := Summarize(h)
				if sum.Count > 0 && len(sum.Quantiles) != len(Percentiles) {
					t.Fatalf("quantiles %+v", sum.Quantiles)
				}
				for i := 1; i < len(h.Buckets); i++ {
					if h.Buckets[i].GtUs < h.Buckets[i-1].GtUs {
						t.Fatal("buckets not sorted")
					}
				}
			}
		}
	})
}

// FuzzParseLatencyMon: any input either reads as a LatencyMon report
// whose histograms pass the checks compare relies on, or fails with a
// one-line error; it never panics.
func FuzzParseLatencyMon(f *testing.F) {
	f.Add(readFixture(f, "latencymon-written.txt"))
	f.Add("> Highest measured interrupt to process latency (µs):   460335,609794\n")
	f.Add("DPC count (execution time 500-10000 µs): 3\nDPC count (execution time <250 µs): 1.234\n")
	f.Add("CPU 3 ISR highest execution time (탎): 320,996212\nCPU 3 DPC count: 378\n")
	f.Add("___ CONCLUSION ___ Your system. LatencyMon has been analyzing your system for 0:00:40 (h:mm:ss) Driver with highest ISR routine execution time: a.sys - A Highest reported total ISR routine time (%): 0,1")
	f.Add("\xff\xfeD\x00P\x00C\x00 \x00c\x00o\x00u\x00n\x00t\x00:\x00 \x001\x00")
	f.Fuzz(func(t *testing.T, in string) {
		r, err := ParseLatencyMon(strings.NewReader(in))
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("multi-line error %q", err)
			}
			return
		}
		if r.Source != SourceLatencyMon || r.LatencyMon == nil {
			t.Fatalf("source %q", r.Source)
		}
		if _, err := r.CheckHistograms(); err != nil {
			t.Fatalf("histograms: %v", err)
		}
		for _, s := range r.Sections {
			if s.Name != DPC && s.Name != ISR || s.Overall == nil || len(s.Overall.Buckets) == 0 {
				t.Fatalf("section %+v", s)
			}
			if sum := Summarize(*s.Overall); sum.Count > 0 && len(sum.Quantiles) != len(Percentiles) {
				t.Fatalf("quantiles %+v", sum.Quantiles)
			}
		}
		if err := r.check(); err != nil {
			t.Fatalf("the document would not read back: %v", err)
		}
		if len(r.LatencyMon.Conclusion) > maxLMText || len(r.LatencyMon.CPUs) > maxLMCPUs {
			t.Fatalf("unbounded: conclusion %d bytes, %d CPUs", len(r.LatencyMon.Conclusion), len(r.LatencyMon.CPUs))
		}
	})
}
