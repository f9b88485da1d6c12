package report

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/latlab/latlab/internal/capture"
	"github.com/latlab/latlab/internal/tcpflow"
)

func TestLineWrapper(t *testing.T) {
	long := "verdict: d2.json vs d1.json: no detectable difference at this sample size " +
		"(p50 -1.44 µs [-7.46 µs, +1.91 µs], 95% CI, Mann-Whitney p = 0.108)"
	for _, c := range []struct {
		name  string
		cols  int
		write []string
		want  string
	}{
		{"no width: as it is", 0, []string{long + "\n"}, long + "\n"},
		{"a short line", 80, []string{"short\n"}, "short\n"},
		{"prose wraps with a hanging indent", 40, []string{long + "\n"},
			"verdict: d2.json vs d1.json: no\n  detectable difference at this sample\n  size (p50 -1.44 µs [-7.46 µs, +1.91\n  µs], 95% CI, Mann-Whitney p = 0.108)\n"},
		{"indented line keeps its indentation", 20, []string{"    one two three four five\n"},
			"    one two three\n      four five\n"},
		{"lines written in pieces", 20, []string{"one two ", "three four ", "five six\nseven\n"},
			"one two three four\n  five six\nseven\n"},
		{"a word wider than the line stays whole", 10, []string{"a 0123456789abcdef b\n"},
			"a\n  0123456789abcdef\n  b\n"},
		{"a live line passes as it is", 10, []string{"\rp50 1 p99 2 max 3 n 4\n"}, "\rp50 1 p99 2 max 3 n 4\n"},
		{"the last line without a break", 20, []string{"one two three four five"}, "one two three four\n  five"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var b strings.Builder
			l := WrapLines(WithWidth(&b, c.cols))
			for _, s := range c.write {
				fmt.Fprint(l, s)
			}
			if err := l.Flush(); err != nil {
				t.Fatal(err)
			}
			if b.String() != c.want {
				t.Errorf("got\n%q\nwant\n%q", b.String(), c.want)
			}
			for _, line := range strings.Split(b.String(), "\n") {
				if c.cols > 0 && len([]rune(line)) > c.cols && !strings.Contains(line, "0123456789abcdef") && !strings.Contains(line, "\r") {
					t.Errorf("line wider than %d: %q", c.cols, line)
				}
			}
		})
	}
	if w := WidthOf(WrapLines(WithWidth(new(strings.Builder), 72))); w != 72 {
		t.Errorf("width %d through the wrapper, want 72", w)
	}
}

// A script line or a command is written whole, however narrow the
// terminal, after what was begun on its line.
func TestVerbatim(t *testing.T) {
	var b strings.Builder
	l := WrapLines(WithWidth(&b, 20))
	fmt.Fprint(l, "equivalent commands:\n  ")
	Verbatim(l, "printf '%s\\n' '10' > '/proc/sys/vm/swappiness'")
	fmt.Fprint(l, "dry run: nothing was changed at all\n")
	Verbatim(new(strings.Builder), "to a plain writer")
	if err := l.Flush(); err != nil {
		t.Fatal(err)
	}
	want := "equivalent commands:\n  printf '%s\\n' '10' > '/proc/sys/vm/swappiness'\ndry run: nothing was\n  changed at all\n"
	if b.String() != want {
		t.Errorf("got\n%q\nwant\n%q", b.String(), want)
	}
}

// pcap tcp's legend is one paragraph a line, so that at 80 columns each
// wraps with its continuation indented: broken by hand at 130 columns, a
// sentence once went on at the margin ("new data arriving below...").
func TestPcapTCPLegendWraps(t *testing.T) {
	var b bytes.Buffer
	w := WrapLines(WithWidth(&b, 80))
	PcapTCP(w, "capture.pcap", 0, &tcpflow.Result{Summary: tcpflow.Summary{Capture: &capture.Stats{Format: "pcap"}}}, nil)
	w.Flush()
	legend := b.String()[strings.Index(b.String(), "\nA is the endpoint"):]
	for _, l := range strings.Split(strings.TrimSpace(legend), "\n") {
		if utf8.RuneCountInString(l) > 80 || !strings.HasPrefix(l, "A is ") && !strings.HasPrefix(l, "RTT is ") && !strings.HasPrefix(l, "  ") {
			t.Errorf("legend line %q:\n%s", l, legend)
		}
	}
}
