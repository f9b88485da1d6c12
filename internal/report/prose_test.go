package report

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/jedib0t/go-pretty/v6/text"
)

// writeProse cuts a line of statistics at spaces within 80 columns, never
// inside a value with its unit, a comparison or a pair of counts, and
// breaks a path wider than a line after a separator.
func TestWriteProse(t *testing.T) {
	for _, c := range []struct {
		name, line string
		indent     int
		quoted     []string
		want       string
	}{
		{"a short line as it is", "verdict: same", 2, nil, "verdict: same\n"},
		{"a value keeps its unit",
			"verdict: b.json is faster at p50 by 501.39 µs [496.47 µs, 505.43 µs] (-33.1%, 95% CI)", 2, nil,
			"verdict: b.json is faster at p50 by 501.39 µs [496.47 µs, 505.43 µs] (-33.1%,\n  95% CI)\n"},
		{"a comparison stays whole",
			"Mann-Whitney U = 90000, p < 0.001 (P(A > B) = 1.00); Kolmogorov-Smirnov D = 1.000, p < 0.001", 2,
			[]string{"Kolmogorov-Smirnov D"},
			"Mann-Whitney U = 90000, p < 0.001 (P(A > B) = 1.00);\n  Kolmogorov-Smirnov D = 1.000, p < 0.001\n"},
		{"a pair of counts stays whole",
			"verdict: after/run00.json vs before/run00.json: no verdict, too few runs (1 and 1): judging", 2, nil,
			"verdict: after/run00.json vs before/run00.json: no verdict, too few runs\n  (1 and 1): judging\n"},
		{"a path that fits a line stays whole",
			`win32-priority-separation: restored HKLM\SYSTEM\CurrentControlSet\Control\PriorityControl\Win32PrioritySeparation: 38 -> 2`, 2, nil,
			"win32-priority-separation: restored\n  HKLM\\SYSTEM\\CurrentControlSet\\Control\\PriorityControl\\Win32PrioritySeparation:\n  38 -> 2\n"},
		{"a path wider than a line breaks after a separator",
			`restored HKLM\SYSTEM\CurrentControlSet\Services\Tcpip\Parameters\Interfaces\{4d36e972-e325-11ce-bfc1-08002be10318}\TcpAckFrequency: 1 -> 2`, 2, nil,
			"restored\n  HKLM\\SYSTEM\\CurrentControlSet\\Services\\Tcpip\\Parameters\\Interfaces\\{4d36e972-\n  e325-11ce-bfc1-08002be10318}\\TcpAckFrequency: 1 -> 2\n"},
		{"a quoted name keeps its space",
			`qos-dscp (latlab game.exe): kept the key HKLM\SOFTWARE\Policies\Microsoft\Windows\QoS\latlab game.exe latlab created`, 2,
			[]string{`HKLM\SOFTWARE\Policies\Microsoft\Windows\QoS\latlab game.exe`},
			"qos-dscp (latlab game.exe): kept the key\n  HKLM\\SOFTWARE\\Policies\\Microsoft\\Windows\\QoS\\latlab game.exe latlab created\n"},
		{"a narrower terminal: wrapped to its width, a value with its unit whole", "verdict: b.json is faster at p50 by 501.39 µs [496.47 µs, 505.43 µs]", 2, nil,
			"verdict: b.json is faster at p50 by\n  501.39 µs [496.47 µs, 505.43 µs]\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var b bytes.Buffer
			w := io.Writer(&b)
			if strings.HasPrefix(c.name, "a narrower terminal") {
				w = WithWidth(&b, 40)
			}
			writeProse(w, c.line, c.indent, c.quoted...)
			if b.String() != c.want {
				t.Errorf("got\n%s\nwant\n%s", b.String(), c.want)
			}
			for _, l := range strings.Split(strings.TrimRight(b.String(), "\n"), "\n") {
				if n := text.StringWidthWithoutEscSequences(l); n > pageWidth {
					t.Errorf("%d columns: %q", n, l)
				}
			}
		})
	}
}
