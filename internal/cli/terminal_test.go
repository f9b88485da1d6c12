package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/report"
	"github.com/latlab/latlab/internal/testutil"
)

// runCLIWidth is runCLI with stdout cols columns wide.
func runCLIWidth(t *testing.T, cols int, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Run(context.Background(), args, &IO{In: strings.NewReader(""), Out: report.WithWidth(&out, cols), Err: &errb})
	return code, out.String(), errb.String()
}

// Output fits an 80-column terminal: tables wrap their text and leave out
// columns from the right, lines of prose wrap with a hanging indent, and
// no output line ends in spaces, at any width.
func TestOutputFitsTheTerminal(t *testing.T) {
	dir := testutil.TempDir(t)
	for _, name := range []string{"a.json", "b.json"} {
		if code, _, errs := runCLI(t, "sleep", "--samples", "40", "--gap", "0", "-o", dir+"/"+name); code != 0 {
			t.Fatalf("sleep -o %s: exit %d: %s", name, code, errs)
		}
	}
	cmds := [][]string{
		{"compare", dir + "/a.json", dir + "/b.json"},
		{"knob", "history", "--state-dir", dir},
		{"knob", "list"},
		{"knob", "explain", "win32-priority-separation", "--table"},
		{"dpcisr", "../dpcisr/testdata/xperf-dpcisr-im-extreme.txt"},
		{"dpcisr", "compare", "../dpcisr/testdata/xperf-dpcisr-im-extreme.txt", "../dpcisr/testdata/xperf-dpcisr-im-off.txt"},
		{"pcap", "tcp", "../capture/testdata/ssh.pcap"},
		{"pcap", "dscp", "../capture/testdata/ssh.pcap"},
		{"inf", "../inf/testdata/i225-like.inf", "--device", `PCI\VEN_8086&DEV_15F3`},
		{"sleep", "--samples", "5", "--gap", "0"},
		{"wake", "--loops", "20"},
		{"timer", "status"},
	}
	for _, args := range cmds {
		for _, cols := range []int{0, 100, 80} {
			code, out, errs := runCLIWidth(t, cols, args...)
			if code != 0 {
				t.Fatalf("%q: exit %d: %s", args, code, errs)
			}
			what := strings.Join(args, " ")
			if cols == 0 {
				cols = 1 << 20 // a pipe: tables and lines at their full width
			}
			checkLines(t, what, out, cols)
		}
	}
}

func TestOutputWidth(t *testing.T) {
	var b bytes.Buffer
	for columns, want := range map[string]int{"": 0, "80": 80, "132": 132, "x": 0, "-5": 0} {
		if got := outputWidth(&b, columns); got != want {
			t.Errorf("COLUMNS=%q: %d, want %d", columns, got, want)
		}
	}
}
