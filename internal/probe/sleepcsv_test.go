package probe

import (
	"strings"
	"testing"
	"time"
)

// The raw CSV has a row per measured sample, warm-up excluded, and the
// overshoot may be negative (a sleep cut short).
func TestSleepResultWriteCSV(t *testing.T) {
	r := &SleepResult{Requested: time.Millisecond, WarmupNs: 9_000_000, Slept: []int64{1_050_000, 999_000}}
	var b strings.Builder
	if err := r.WriteCSV(&b); err != nil {
		t.Fatal(err)
	}
	want := "index,slept_ns,overshoot_ns\n0,1050000,50000\n1,999000,-1000\n"
	if b.String() != want {
		t.Fatalf("got\n%s\nwant\n%s", b.String(), want)
	}
}
