package stats

import (
	"math"
	"testing"
)

func TestQuantileSortedNearestRank(t *testing.T) {
	s := []int64{10, 20, 30, 40, 50, 60, 70, 80, 90, 100}
	cases := []struct {
		p    float64
		want int64
	}{
		{0, 10}, {1, 10}, {10, 10}, {10.1, 20}, {50, 50}, {50.5, 60},
		{90, 90}, {99, 100}, {99.9, 100}, {100, 100},
	}
	for _, c := range cases {
		if got := QuantileSorted(s, c.p); got != c.want {
			t.Errorf("p%v = %d, want %d", c.p, got, c.want)
		}
	}
	// 1000 samples 1..1000: p90 is the 900th, p99.9 the 999th.
	k := make([]int64, 1000)
	for i := range k {
		k[i] = int64(i + 1)
	}
	if got := QuantileSorted(k, 90); got != 900 {
		t.Errorf("p90 of 1..1000 = %d", got)
	}
	if got := QuantileSorted(k, 99.9); got != 999 {
		t.Errorf("p99.9 of 1..1000 = %d", got)
	}
	if QuantileSorted(nil, 50) != 0 {
		t.Error("empty input")
	}
}

func TestSummarize(t *testing.T) {
	// R: x <- c(2,4,4,4,5,5,7,9); mean(x) = 5; sd(x) = 2.13809
	s := Summarize([]int64{9, 4, 4, 2, 5, 4, 5, 7})
	if s.Count != 8 || s.Min != 2 || s.Max != 9 || s.P50 != 4 {
		t.Fatalf("summary %+v", s)
	}
	if s.Mean != 5 || math.Abs(s.Stdev-2.138090) > 1e-6 {
		t.Fatalf("mean %v stdev %v", s.Mean, s.Stdev)
	}
	if (Summarize(nil) != Summary{}) {
		t.Fatal("empty summary not zero")
	}
	one := Summarize([]int64{7})
	if one.Stdev != 0 || one.Mean != 7 || one.P999 != 7 {
		t.Fatalf("single sample %+v", one)
	}
}

func TestMeanStdevLargeValues(t *testing.T) {
	// Nanosecond timestamps around 1e15 must not lose the variance.
	base := int64(1e15)
	m, sd := MeanStdev([]int64{base + 1, base + 2, base + 3})
	if m != float64(base+2) || math.Abs(sd-1) > 1e-6 {
		t.Fatalf("mean %v sd %v", m, sd)
	}
}

func TestHistogramRoundTrip(t *testing.T) {
	samples := []int64{-5, 0, 1000, 1500, 2_000_000, 1_000_000_000}
	h := HistogramOf(samples)
	enc, err := EncodeHistogram(h)
	if err != nil {
		t.Fatal(err)
	}
	d, err := DecodeHistogram(enc)
	if err != nil {
		t.Fatal(err)
	}
	if d.TotalCount() != int64(len(samples)) || !d.Equals(h) {
		t.Fatalf("round trip lost data: %d", d.TotalCount())
	}
	if _, err := DecodeHistogram("not base64!"); err == nil {
		t.Fatal("garbage decoded")
	}
}

func TestCorrectedHistogram(t *testing.T) {
	// One 3.5 ms stall at a 1 ms interval passed three more deadlines,
	// whose wakes would have been 2.5, 1.5 and 0.5 ms late.
	h := CorrectedHistogramOf([]int64{10_000, 3_500_000}, 1_000_000)
	if h.TotalCount() != 5 {
		t.Fatalf("corrected count %d, want 5", h.TotalCount())
	}
	if p := SummarizeHistogram(h).P50; p < 1_499_000 || p > 1_501_000 {
		t.Fatalf("corrected p50 %d, want 1.5 ms", p)
	}
	if SummarizeHistogram(h).Max < 3_490_000 {
		t.Fatal("max lost")
	}
}

func BenchmarkRecord(b *testing.B) {
	h := NewHistogram()
	for i := 0; i < b.N; i++ {
		_ = h.RecordValue(int64(i&0xffff) + 1000)
	}
}
