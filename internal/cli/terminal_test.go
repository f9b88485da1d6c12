package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/report"
)

// runCLIWidth is runCLI with stdout cols columns wide.
func runCLIWidth(t *testing.T, cols int, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Run(context.Background(), args, &IO{In: strings.NewReader(""), Out: report.WithWidth(&out, cols), Err: &errb})
	return code, out.String(), errb.String()
}

// Tables fit an 80-column terminal (wrapping text, leaving out columns from
// the right), and no output line ends in spaces, at any width.
func TestTablesFitTheTerminal(t *testing.T) {
	cmds := [][]string{
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
			checkLines(t, what, out, 1<<20)
			if cols > 0 {
				for _, tab := range tableBlocks(out) {
					checkLines(t, what, tab, cols)
				}
			}
		}
	}
}

// tableBlocks are the tables in out: from the header line above a rule of
// ─ to the next blank line.
func tableBlocks(out string) []string {
	lines := strings.Split(out, "\n")
	var blocks []string
	for i := 1; i < len(lines); i++ {
		if !strings.HasPrefix(lines[i], "──") {
			continue
		}
		j := i + 1
		for j < len(lines) && strings.TrimSpace(lines[j]) != "" {
			j++
		}
		blocks = append(blocks, strings.Join(lines[i-1:j], "\n"))
		i = j
	}
	return blocks
}

func TestOutputWidth(t *testing.T) {
	var b bytes.Buffer
	for columns, want := range map[string]int{"": 0, "80": 80, "132": 132, "x": 0, "-5": 0} {
		if got := outputWidth(&b, columns); got != want {
			t.Errorf("COLUMNS=%q: %d, want %d", columns, got, want)
		}
	}
}
