package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/latlab/latlab/internal/stats"
	"github.com/latlab/latlab/internal/units"
)

func TestDuration(t *testing.T) {
	cases := map[time.Duration]string{
		0:                         "0",
		500:                       "500ns",
		1500:                      "1.5µs",
		496 * time.Microsecond:    "496µs",
		1496800 * time.Nanosecond: "1.4968ms",
		2 * time.Second:           "2s",
	}
	for d, want := range cases {
		if got := units.Duration(d); got != want {
			t.Errorf("units.Duration(%d) = %q, want %q", d, got, want)
		}
	}
}

func TestSummaryTable(t *testing.T) {
	var b bytes.Buffer
	s := stats.Summarize([]int64{1_000_000, 1_100_000, 1_500_000})
	SummaryTable(&b, Column{"slept", s, Ms}, Column{"overshoot", stats.Summarize([]int64{0, 100_000, 500_000}), Us})
	out := b.String()
	for _, want := range []string{"slept (ms)", "overshoot (µs)", "1.5000", "500.0", "p99.9"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
}
