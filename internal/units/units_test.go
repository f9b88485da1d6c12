package units

import (
	"fmt"
	"math"
	"testing"
	"time"
)

func TestDuration(t *testing.T) {
	for _, c := range []struct {
		d    time.Duration
		want string
	}{
		{0, "0"},
		{999, "999ns"},
		{-5, "-5ns"},
		{1000, "1µs"},
		{1500, "1.5µs"},
		{81_000, "81µs"},
		{2_130_000, "2.13ms"},
		{1_234_567, "1.2346ms"},
		{2_130_000_000, "2.13s"},
		{-1_500_000, "-1.5ms"},
	} {
		if got := Duration(c.d); got != c.want {
			t.Errorf("Duration(%d) = %q, want %q", c.d, got, c.want)
		}
	}
}

func TestFlagDuration(t *testing.T) {
	for _, c := range []struct {
		d    time.Duration
		want string
	}{
		{time.Hour, "1h"},
		{24 * time.Hour, "24h"},
		{90 * time.Minute, "1h30m"},
		{10 * time.Minute, "10m"},
		{90 * time.Second, "1m30s"},
		{time.Hour + 500*time.Millisecond, "1h0m0.5s"},
		{time.Second, "1s"},
		{10 * time.Millisecond, "10ms"},
		{0, "0s"},
	} {
		got := FlagDuration(c.d)
		if got != c.want {
			t.Errorf("FlagDuration(%v) = %q, want %q", c.d, got, c.want)
		}
		// what it prints is what the flags parse back
		if back, err := time.ParseDuration(got); err != nil || back != c.d {
			t.Errorf("FlagDuration(%v) = %q parses back as %v, %v", c.d, got, back, err)
		}
	}
}

// Each variant keeps the spelling its outputs' golden files hold.
func TestVariants(t *testing.T) {
	nan := math.NaN()
	for _, c := range []struct {
		name string
		f    func(float64) string
		v    float64
		want string
	}{
		{"NsFixed", NsFixed, 0, "0 ns"},
		{"NsFixed", NsFixed, 999.4, "999 ns"},
		{"NsFixed", NsFixed, 1234, "1.23 µs"},
		{"NsFixed", NsFixed, 1.5e6, "1.500 ms"},
		{"NsFixed", NsFixed, -2.4589e6, "-2.459 ms"},
		{"NsFixed", NsFixed, nan, "-"},
		{"NsTrimmed", NsTrimmed, 12, "12ns"},
		{"NsTrimmed", NsTrimmed, 1230, "1.23µs"},
		{"NsTrimmed", NsTrimmed, 1500, "1.5µs"},
		{"NsTrimmed", NsTrimmed, 1_234_567, "1.2346ms"},
		{"NsTrimmed", NsTrimmed, 2e9, "2000ms"},
		{"NsTrimmed", NsTrimmed, nan, "-"},
		{"NsShort", NsShort, 497, "497ns"},
		{"NsShort", NsShort, 18_300, "18.3µs"},
		{"NsShort", NsShort, 497_000, "497µs"},
		{"NsShort", NsShort, 1_920_000, "1.92ms"},
		{"NsShort", NsShort, -2.5e9, "-2.50s"},
		{"NsShort", NsShort, 999_999_000, "1.00s"}, // rounds to 1000ms: the next unit
		{"NsShort", NsShort, 999_600, "1.00ms"},
		{"NsShort", NsShort, 999.6, "1.00µs"},
		{"NsShort", NsShort, 999_400, "999µs"},
		{"NsShort", NsShort, nan, "-"},
		{"Bitrate", Bitrate, 1.25e9, "1.250 Gbit/s"},
		{"Bitrate", Bitrate, 12.5e6, "12.50 Mbit/s"},
		{"Bitrate", Bitrate, 8000, "8.0 kbit/s"},
		{"Bitrate", Bitrate, 500, "500 bit/s"},
		{"BitrateShort", BitrateShort, 1.25e9, "1.25 Gbit/s"},
		{"BitrateShort", BitrateShort, 12.5e6, "12.50 Mbit/s"},
		{"BitrateShort", BitrateShort, 8000, "8.0 kbit/s"},
		{"BitrateShort", BitrateShort, 500, "500 bit/s"},
		{"BitrateShort", BitrateShort, 0, "-"},
	} {
		if got := c.f(c.v); got != c.want {
			t.Errorf("%s(%v) = %q, want %q", c.name, c.v, got, c.want)
		}
	}
	for n, want := range map[int64]string{512: "512 B", 8000: "8.0 kB", 2e6: "2.00 MB", 1.5e9: "1.50 GB"} {
		if got := Bytes(n); got != want {
			t.Errorf("Bytes(%d) = %q, want %q", n, got, want)
		}
	}
	for bps, want := range map[float64]string{2e9: "Gbit/s", 2e6: "Mbit/s", 2e3: "kbit/s", 2: "bit/s"} {
		if got, div := BitrateUnit(bps); got != want || Bitrate(bps) != fmt.Sprintf("%.*f %s", map[string]int{"Gbit/s": 3, "Mbit/s": 2, "kbit/s": 1, "bit/s": 0}[want], bps/div, want) {
			t.Errorf("BitrateUnit(%v) = %q, %v; want %q, the unit of Bitrate", bps, got, div, want)
		}
	}
}

// Milliseconds with their trailing zeros dropped, as the timer tools and
// the priority-separation table write them, and the DPC tables'
// microseconds.
func TestMsAndUs(t *testing.T) {
	for _, c := range []struct {
		got, want string
	}{
		{Ms(506_800, 4), "0.5068"},
		{Ms(1_013_600, 4), "1.0136"},
		{Ms(15_625_000, 4), "15.625"},
		{Ms(1_000_000, 4), "1"},
		{Ms(10_000_000, 4), "10"},
		{Ms(0, 4), "0"},
		{Ms(1_000, 6), "0.001"},
		{Ms(500_000, 6), "0.5"},
		{Trim(93.75, 3), "93.75"},
		{Trim(125, 3), "125"},
		{Trim(5.2083333, 3), "5.208"},
		{Trim(100, 0), "100"},
		{Us(12.54), "12.5 µs"},
		{Us(250.4), "250 µs"},
		{Us(12345), "12.3 ms"},
		{MsSignificant(1_068_400, 4), "1.068ms"},
		{MsSignificant(15_626_000, 4), "15.63ms"},
		{MsSignificant(16_000_000, 4), "16ms"},
		{UsFixed(12_345), "12.3 µs"},
		{Seconds(0.45, 3), "0.450 s"},
		{Seconds(12, 1), "12.0 s"},
		{KiBCeil(1), "1 KiB"},
		{KiBCeil(20_000), "20 KiB"},
		{KiBCeil(2048), "2 KiB"},
		{UsFixed(1_500_000), "1500.0 µs"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}

func TestThousands(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 1234567: "1,234,567", -100: "-100", -123456: "-123,456"} {
		if got := Thousands(n); got != want {
			t.Errorf("Thousands(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestSigned(t *testing.T) {
	for _, c := range []struct {
		name string
		f    func(float64) string
		v    float64
		want string
	}{
		{"SignedNsFixed", SignedNsFixed, 0, "0 ns"},
		{"SignedNsFixed", SignedNsFixed, 2990, "+2.99 µs"},
		{"SignedNsFixed", SignedNsFixed, -5910, "-5.91 µs"},
		{"SignedNsFixed", SignedNsFixed, 1.352e6, "+1.352 ms"},
		{"SignedNsFixed", SignedNsFixed, math.NaN(), "-"},
		{"SignedNs", SignedNs, 0, "0"},
		{"SignedNs", SignedNs, 0.4, "+0"}, // rounds to zero, still an increase
		{"SignedNs", SignedNs, 12.6, "+13ns"},
		{"SignedNs", SignedNs, 1500, "+1.5µs"},
		{"SignedNs", SignedNs, -2_130_000, "-2.13ms"},
		{"SignedNs", SignedNs, 2.5e9, "+2.5s"},
		{"MsFixed", MsFixed, 0, "0.000 ms"},
		{"MsFixed", MsFixed, 500_000, "0.500 ms"},
		{"MsFixed", MsFixed, 15_625_000, "15.625 ms"},
		{"MsFixed", MsFixed, 1_000_400, "1.000 ms"},
		{"MsFixed", MsFixed, 2e9, "2000.000 ms"},
	} {
		if got := c.f(c.v); got != c.want {
			t.Errorf("%s(%v) = %q, want %q", c.name, c.v, got, c.want)
		}
	}
}

func TestTimerSpellings(t *testing.T) {
	for _, c := range []struct {
		got, want string
	}{
		{MsPrecise(500 * time.Microsecond), "0.5ms"},
		{MsPrecise(15625 * time.Microsecond), "15.625ms"},
		{MsPrecise(time.Microsecond), "0.001ms"},
		{MsPrecise(2 * time.Millisecond), "2ms"},
		{MsPrecise(496 * time.Microsecond), "0.496ms"},
		{Request(506_800), "0.5068ms"},
		{Request(15_625_000), "15.625ms"},
		{Request(100_000), "0.1ms"},
		{Request(99_999), "99.999µs"},
		{Request(1_000), "1µs"},
		{Request(50_500), "50.5µs"},
		{Request(999), "999ns"},
		{Request(0), "0ns"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}

func TestSize(t *testing.T) {
	for _, c := range []struct {
		n    int64
		want string
	}{
		{0, "0 B"},
		{1023, "1023 B"},
		{1024, "1 KiB"},
		{1536, "1.5 KiB"},
		{1 << 30, "1 GiB"},
		{3 << 29, "1.5 GiB"},
		{256 << 20, "256 MiB"},
		{1<<63 - 1, "8 EiB"},
		{-5, "-5 B"},
	} {
		if got := Size(c.n); got != c.want {
			t.Errorf("Size(%d) = %q, want %q", c.n, got, c.want)
		}
	}
}

func TestSizeDecimals(t *testing.T) {
	for _, c := range []struct {
		n     int64
		d     int
		want  string
		bytes float64
	}{
		{1023, 3, "1023 B", 1023},
		{1530, 1, "1.5 KiB", 1536},
		{1530, 2, "1.49 KiB", 1.49 * 1024},
		{1_100_002_004, 1, "1 GiB", 1 << 30},
		{1_100_002_004, 2, "1.02 GiB", 1.02 * (1 << 30)},
		{1_100_002_004, 3, "1.024 GiB", 1.024 * (1 << 30)},
		{1<<20 - 1, 2, "1024 KiB", 1 << 20},
		{1<<20 - 1, 3, "1023.999 KiB", 1023.999 * 1024},
	} {
		got, b := SizeDecimals(c.n, c.d)
		if got != c.want || b != c.bytes {
			t.Errorf("SizeDecimals(%d, %d) = %q %v, want %q %v", c.n, c.d, got, b, c.want, c.bytes)
		}
	}
}

func TestCompact(t *testing.T) {
	for _, c := range []struct {
		n    int64
		want string
	}{
		{0, "0"},
		{654829, "654829"},
		{9_999_999, "9999999"},
		{-9_999_999, "-9999999"},
		{10_000_000, "10.00M"},
		{99_994_999, "99.99M"},
		{99_995_000, "100.0M"},
		{999_950_000, "1.000G"},
		{999_949_999, "999.9M"},
		{19_999_000, "20.00M"},
		{3_968_666_666, "3.969G"},
		{15_232_000_000, "15.23G"},
		{-15_232_000_000, "-15.23G"},
		{math.MaxInt64, "9.223E"},
		{math.MinInt64, "-9.223E"},
	} {
		if got := Compact(c.n); got != c.want {
			t.Errorf("Compact(%d) = %q, want %q", c.n, got, c.want)
		}
	}
}
