package compare

import (
	"math"
	"testing"

	"github.com/latlab/latlab/internal/probe"
	"github.com/latlab/latlab/internal/units"
)

func TestFormatting(t *testing.T) {
	ns := map[float64]string{
		0: "0 ns", 999.4: "999 ns", -12: "-12 ns", 1000: "1.00 µs", 49530.4: "49.53 µs", -856: "-856 ns",
		1.5e6: "1.500 ms", -2.4589e6: "-2.459 ms", math.NaN(): "-",
	}
	for v, want := range ns {
		if got := units.NsFixed(v); got != want {
			t.Errorf("units.NsFixed(%v) = %q, want %q", v, got, want)
		}
	}
	for kind, want := range map[string]string{probe.KindSleep.Name(): "slept time", probe.KindWake.Name(): "wake-up latency", "udp": "udp"} {
		if got := Quantity(kind); got != want {
			t.Errorf("Quantity(%q) = %q, want %q", kind, got, want)
		}
	}
}
