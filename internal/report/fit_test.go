package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/jedib0t/go-pretty/v6/text"

	"github.com/latlab/latlab/internal/stats"
)

func lines(s string) []string { return strings.Split(strings.TrimSuffix(s, "\n"), "\n") }

func checkFits(t *testing.T, out string, cols int) {
	t.Helper()
	for _, l := range lines(out) {
		if cols > 0 && text.StringWidthWithoutEscSequences(l) > cols {
			t.Errorf("%d columns, want at most %d: %q", text.StringWidthWithoutEscSequences(l), cols, l)
		}
		if strings.TrimRight(l, " ") != l {
			t.Errorf("trailing space: %q", l)
		}
	}
}

// A text column wraps at word boundaries to fit the width, and no word is
// lost or broken.
func TestTableWrapsTextColumn(t *testing.T) {
	meaning := "the CPU's time-stamp counter: read in user space (vDSO) in about 20 ns; the best choice when it is invariant and synchronised"
	rows := [][]string{{"clocksource", "tsc", meaning}, {"timer-slack", "50µs (50000 ns)", "short"}}
	var wide, narrow bytes.Buffer
	TableLeft(&wide, []string{"knob", "value", "meaning"}, rows)
	TableLeft(WithWidth(&narrow, 80), []string{"knob", "value", "meaning"}, rows)
	checkFits(t, wide.String(), 0)
	checkFits(t, narrow.String(), 80)
	if len(lines(wide.String())) != 4 || len(lines(narrow.String())) <= 4 {
		t.Errorf("wide:\n%s\nnarrow:\n%s", wide.String(), narrow.String())
	}
	if got := strings.Join(strings.Fields(narrow.String()), " "); !strings.Contains(got, "the CPU's time-stamp counter: read in user") ||
		!strings.Contains(got, "invariant and synchronised") || strings.Contains(narrow.String(), "(not shown") {
		t.Errorf("words lost:\n%s", narrow.String())
	}
}

// Numbers are never wrapped: columns are left out from the right, and a
// note names them.
func TestTableDropsColumns(t *testing.T) {
	header := []string{"flow", "packets", "bytes", "DSCP", "ECN", "first (s)", "last (s)"}
	rows := [][]string{{"202.108.87.165:62146 -> 223.132.53.222:22 tcp", "30", "6601", "CS0 (0) x21, CS1 (8) x9", "not-ect x30", "0.000000", "0.565147"}}
	var b bytes.Buffer
	Table(WithWidth(&b, 80), header, rows)
	out := b.String()
	checkFits(t, out, 80)
	if !strings.Contains(out, "(not shown, for lack of width: first (s), last (s))") || !strings.Contains(out, "not-ect x30") {
		t.Errorf("\n%s", out)
	}
	if !strings.Contains(out, "202.108.87.165:62146 ->") {
		t.Errorf("a word of the first column was broken:\n%s", out)
	}
	b.Reset()
	Table(&b, header, rows)
	if strings.Contains(b.String(), "not shown") || !strings.Contains(b.String(), "0.565147") {
		t.Errorf("without a width nothing is left out:\n%s", b.String())
	}
	checkFits(t, b.String(), 0)
}

// Columns that cannot fit even one by one leave the first column.
func TestTableNarrowest(t *testing.T) {
	var b bytes.Buffer
	s := stats.Summarize([]int64{1_000_000, 1_100_000, 1_500_000})
	SummaryTable(WithWidth(&b, 20), Column{"slept", s, Ms}, Column{"overshoot", s, Us})
	if !strings.Contains(b.String(), "p99.9") || !strings.Contains(b.String(), "not shown") {
		t.Errorf("\n%s", b.String())
	}
}

func TestWidthOf(t *testing.T) {
	var b bytes.Buffer
	if WidthOf(&b) != 0 || WidthOf(WithWidth(&b, 80)) != 80 || WithWidth(&b, 0) != &b {
		t.Error("WidthOf/WithWidth")
	}
}

// A column's floor, when given, lets it wrap below its longest word, so
// that a table keeps every column where the computed floors would leave
// one out.
func TestTableFloor(t *testing.T) {
	header := []string{"keyword", "values", "shown as"}
	rows := [][]string{{"*TCPUDPChecksumOffloadIPv4", "0=Disabled, 1=Tx_and_Rx_Enabled_always_on", "Ethernet@WireSpeed_Offload_of_the_adapter"}}
	var b bytes.Buffer
	tableSpec{header: header, rows: rows}.write(WithWidth(&b, 60))
	if !strings.Contains(b.String(), "not shown") {
		t.Fatalf("without floors a column should be left out:\n%s", b.String())
	}
	b.Reset()
	tableSpec{header: header, rows: rows, floor: []int{26, 10, 10}}.write(WithWidth(&b, 60))
	checkFits(t, b.String(), 60)
	if strings.Contains(b.String(), "not shown") || !strings.Contains(b.String(), "*TCPUDPChecksumOffloadIPv4") {
		t.Errorf("with floors every column fits and the first stays whole:\n%s", b.String())
	}
}

// The words of a glued item (wholeItem) stay on one line where the item
// fits the column, the table library wrapping between items only; an item
// wider than the column breaks at its own spaces; the output shows spaces,
// never the glue.
func TestTableKeepsItemsWhole(t *testing.T) {
	items := []string{"0=Disabled", "1=Tx Enabled", "2=Rx Enabled", "3=Rx & Tx Enabled", "4=a very long description of a value"}
	var cell []string
	for _, it := range items {
		cell = append(cell, wholeItem(it))
	}
	var b bytes.Buffer
	tableSpec{header: []string{"keyword", "values"}, rows: [][]string{{"*FlowControl", strings.Join(cell, ", ")}}, floor: []int{0, 12}}.
		write(WithWidth(&b, 36))
	out := b.String()
	if strings.Contains(out, glue) {
		t.Errorf("the glue shows:\n%s", out)
	}
	lines := strings.Split(out, "\n")
	for _, it := range items[:4] {
		found := false
		for _, l := range lines {
			found = found || strings.Contains(l, it)
		}
		if !found {
			t.Errorf("%q cut:\n%s", it, out)
		}
	}
	if !strings.Contains(out, "4=a very long") || !strings.Contains(out, "description of") {
		t.Errorf("a long item not broken at its spaces:\n%s", out)
	}
	for i, l := range lines {
		if n := text.StringWidthWithoutEscSequences(l); n > 36 {
			t.Errorf("line %d: %d columns: %q", i+1, n, l)
		}
	}
}

// A cell's leading spaces (a row indented under its section) stay on
// every line of the cell when it wraps, and the wrapped cell still fits:
// the table library's wrapping would drop them and leave the continuation
// flush with the table's edge.
func TestTableWrapKeepsCellIndent(t *testing.T) {
	rows := [][]string{
		{"  Intel Wireless WiFi Link Driver.sys", "600"},
		{"  Microsoft.Bluetooth.Legacy.LEEnumerator.sys", "600"},
		{"  ndis.sys", "600"},
	}
	var b bytes.Buffer
	Table(WithWidth(&b, 40), []string{"  module", "total µs"}, rows)
	out := b.String()
	checkFits(t, out, 40)
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	for _, l := range lines[2:] { // after the header and its rule
		if !strings.HasPrefix(l, "   ") || l[3] == ' ' {
			t.Errorf("line %q lost the row's indent (go-pretty's space and two) in\n%s", l, out)
		}
	}
	if len(lines) != 7 || lines[3] != "   Driver.sys" || !strings.HasPrefix(lines[4], "   Microsoft.Bluetooth. ") || lines[5] != "   Legacy.LEEnumerator.sys" {
		t.Errorf("the long names should wrap at 40 columns, each on two lines, the dotted one after a dot:\n%s", out)
	}
	// Without a width nothing wraps and the indent is as given.
	b.Reset()
	Table(&b, []string{"  module", "total µs"}, rows)
	if !strings.Contains(b.String(), "\n   Microsoft.Bluetooth.Legacy.LEEnumerator.sys  ") {
		t.Errorf("unwrapped:\n%s", b.String())
	}
}

// A word wider than the line breaks after the last '.', '_', '-', '\' or
// '/' that leaves a piece within the width, and is cut at the edge only
// where no such point is; words that fit are wrapped as WrapSoft wraps
// them. text.WrapSoft cut Microsoft.Bluetooth.Legacy.L / EEnumerator.sys.
func TestWrapWordsBreaksAtSeparators(t *testing.T) {
	for _, c := range []struct {
		in    string
		width int
		want  []string
	}{
		{"Microsoft.Bluetooth.Legacy.LEEnumerator.sys", 28, []string{"Microsoft.Bluetooth.Legacy.", "LEEnumerator.sys"}},
		{"Microsoft.Bluetooth.Legacy.LEEnumerator.sys", 20, []string{"Microsoft.Bluetooth.", "Legacy.LEEnumerator.", "sys"}},
		{`C:\Windows\System32\drivers\ndis.sys`, 20, []string{`C:\Windows\System32\`, `drivers\ndis.sys`}},
		{"/usr/lib/modules/6.8.0-45-generic/kernel", 18, []string{"/usr/lib/modules/", "6.8.0-45-generic/", "kernel"}},
		{"Realtek_PCIe_GbE_Family_Controller", 20, []string{"Realtek_PCIe_GbE_", "Family_Controller"}},
		// no break point within the width: cut at the edge
		{"abcdefghijklmnopqrstuvwxyz", 10, []string{"abcdefghij", "klmnopqrst", "uvwxyz"}},
		// the point must leave something after it, and lie within the width
		{"abcdefghijkl.", 10, []string{"abcdefghij", "kl."}},
		// other words: a long word starts its own line; its last piece
		// goes on with the words after it
		{"module Microsoft.Bluetooth.Legacy.LEEnumerator.sys at 600", 22, []string{"module", "Microsoft.Bluetooth.", "Legacy.LEEnumerator.", "sys at 600"}},
		{"short words only here", 10, []string{"short", "words only", "here"}},
		// columns, not bytes: µ is one column
		{"µs.µs.µs.µs", 6, []string{"µs.µs.", "µs.µs"}},
		// paragraphs stay apart
		{"aaaa bbbb\n\ncccc", 5, []string{"aaaa", "bbbb", "", "cccc"}},
	} {
		got := strings.Split(wrapWords(c.in, c.width), "\n")
		if strings.Join(got, "|") != strings.Join(c.want, "|") {
			t.Errorf("%q at %d: %q, want %q", c.in, c.width, got, c.want)
		}
		for _, l := range got {
			if text.StringWidthWithoutEscSequences(l) > c.width {
				t.Errorf("%q at %d: line %q is wider", c.in, c.width, l)
			}
		}
	}
	// Text that fits is returned as given; escape sequences go to WrapSoft.
	if got := wrapWords("a.b c", 5); got != "a.b c" {
		t.Errorf("fits: %q", got)
	}
	colored := "\x1b[31mMicrosoft.Bluetooth\x1b[0m"
	if got := wrapWords(colored, 10); got != text.WrapSoft(colored, 10) {
		t.Errorf("escapes: %q", got)
	}
}

// A page table (tight) whose rows take exactly the width is not wrapped
// for its header's rule, which ends with the widest row; a column wrapped
// is as wide as its widest line, with no gap after it.
func TestPageTableTight(t *testing.T) {
	// " a  " + 54 + "  " + 20: 80 columns
	row := []string{"a", strings.Repeat("x", 30) + " " + strings.Repeat("y", 23), strings.Repeat("z", 20)}
	var b bytes.Buffer
	pageTable(&b, tableSpec{header: []string{"k", "text", "more"}, rows: [][]string{row}})
	l := lines(b.String())
	if len(l) != 3 || text.StringWidthWithoutEscSequences(l[1]) != 80 || text.StringWidthWithoutEscSequences(l[2]) != 80 {
		t.Errorf("a row of %d columns wrapped, or its rule is not as wide:\n%s", text.StringWidthWithoutEscSequences(l[2]), b.String())
	}
	checkFits(t, b.String(), 80)

	row[1] += " " + strings.Repeat("w", 10) // 11 columns too wide: w wraps, x and y stay
	b.Reset()
	pageTable(&b, tableSpec{header: []string{"k", "text", "more"}, rows: [][]string{row}})
	checkFits(t, b.String(), 80)
	if !strings.Contains(b.String(), strings.Repeat("y", 23)+"  "+strings.Repeat("z", 20)) {
		t.Errorf("the wrapped column is wider than its widest line:\n%s", b.String())
	}
}
