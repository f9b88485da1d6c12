package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"unicode/utf8"

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

// What a command says on stderr before its work (a plan, an estimate, a
// warning) fits the terminal too: the sweep's estimate was one line of
// 130 columns.
func TestStderrProseFitsTheTerminal(t *testing.T) {
	t.Setenv("COLUMNS", "80")
	code, _, errs := runCLI(t, "sweep", "--dry-run", "--samples", "40")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(errs, "latlab sweep: ") {
		t.Fatalf("no estimate: %q", errs)
	}
	for _, l := range strings.Split(strings.TrimSuffix(errs, "\n"), "\n") {
		if n := utf8.RuneCountInString(l); n > 80 {
			t.Errorf("%d columns: %q", n, l)
		}
	}
}
