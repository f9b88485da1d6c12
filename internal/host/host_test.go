package host

import (
	"runtime"
	"strings"
	"testing"
)

func TestParseOSRelease(t *testing.T) {
	cases := map[string]string{
		"PRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\nNAME=x\n": "Debian GNU/Linux 12 (bookworm)",
		"NAME='Alpine'\nVERSION=3.19\n":                            "Alpine 3.19",
		"# comment\n":                                              "",
	}
	for in, want := range cases {
		if got := parseOSRelease(strings.NewReader(in)); got != want {
			t.Errorf("parseOSRelease(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestParseCPUInfo(t *testing.T) {
	m, hv := parseCPUInfo(strings.NewReader("processor : 0\nmodel name\t: AMD Ryzen 9 7950X\nflags : fpu sse\n"))
	if m != "AMD Ryzen 9 7950X" || hv {
		t.Fatalf("got %q %v", m, hv)
	}
}

func TestCollect(t *testing.T) {
	f := Collect()
	if f.OS != runtime.GOOS || f.LogicalCPUs < 1 || f.ClockSource == "" || f.Kernel == "" {
		t.Fatalf("facts incomplete: %+v", f)
	}
}

func FuzzParsers(f *testing.F) {
	f.Add("PRETTY_NAME=\"x\"\nmodel name : y\nflags : hypervisor\n")
	f.Add("\x00\xff=\n:")
	f.Fuzz(func(t *testing.T, s string) {
		_ = parseOSRelease(strings.NewReader(s))
		_, _ = parseCPUInfo(strings.NewReader(s))
	})
}
