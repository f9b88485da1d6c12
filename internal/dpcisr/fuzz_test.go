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
