package host

import (
	"os"
	"path/filepath"
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
	// A 32-bit ARM kernel before 3.8 names the CPU "Processor" and has no
	// "model name" (a real file of this form is described in
	// testdata/PROVENANCE).
	m, _ = parseCPUInfo(strings.NewReader("Processor\t: ARM720T rev 2 (v4l)\nBogoMIPS\t: 44.23\n\nHardware\t: 4020 board\n"))
	if m != "ARM720T rev 2 (v4l)" {
		t.Fatalf("old ARM: got %q", m)
	}
}

// The real /proc/cpuinfo files in testdata/real (provenance in
// testdata/PROVENANCE), each with the CPU name and hypervisor flag it
// holds, read by eye.
func TestParseRealCPUInfo(t *testing.T) {
	cases := []struct {
		file  string
		model string
		hv    bool
	}{
		{"prometheus-node_exporter/cpuinfo", "Intel(R) Core(TM) i7-8650U CPU @ 1.90GHz", false},
	}
	for _, c := range cases {
		f, err := os.Open(filepath.Join("testdata", "real", c.file))
		if err != nil {
			t.Fatal(err)
		}
		m, hv := parseCPUInfo(f)
		f.Close()
		if m != c.model || hv != c.hv {
			t.Errorf("%s: %q %v, want %q %v", c.file, m, hv, c.model, c.hv)
		}
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
	if b, err := os.ReadFile(filepath.Join("testdata", "real", "prometheus-node_exporter", "cpuinfo")); err == nil {
		f.Add(string(b))
	}
	f.Fuzz(func(t *testing.T, s string) {
		_ = parseOSRelease(strings.NewReader(s))
		_, _ = parseCPUInfo(strings.NewReader(s))
	})
}
