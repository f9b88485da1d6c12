package compare_test

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/compare"
	"github.com/latlab/latlab/internal/testutil"
)

// timerlatFile writes rtla timerlat hist output in its layout (the index
// "%-6d", each count "%9d "): per CPU an IRQ column (all at 1 µs), a Thr
// column and, with user, a Usr column, the Thr counts of CPU i being
// thr[i] (per µs) and its overflows over[i]; the Usr counts are the Thr
// ones 3 µs later, so that comparing Usr instead would show.
func timerlatFile(t *testing.T, dir, name string, thr [][]int64, over []int64, user bool) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("# RTLA timerlat histogram\n# Time unit is microseconds (us)\n# Duration:   0 00:00:30\nIndex")
	per := 2
	if user {
		per = 3
	}
	for cpu := range thr {
		fmt.Fprintf(&b, "   IRQ-%03d   Thr-%03d", cpu, cpu)
		if user {
			fmt.Fprintf(&b, "   Usr-%03d", cpu)
		}
	}
	b.WriteString("\n")
	n := 0
	for _, c := range thr {
		n = max(n, len(c)+3)
	}
	count := make([]int64, per*len(thr))
	lo, hi := make([]int64, len(count)), make([]int64, len(count))
	for i := range lo {
		lo[i] = -1
	}
	at := func(c []int64, i int) int64 {
		if i >= 0 && i < len(c) {
			return c[i]
		}
		return 0
	}
	for i := range n {
		var row []int64
		for _, c := range thr {
			var total int64
			for _, k := range c {
				total += k
			}
			irq := int64(0)
			if i == 1 {
				irq = total
			}
			row = append(row, irq, at(c, i))
			if user {
				row = append(row, at(c, i-3))
			}
		}
		var sum int64
		for _, k := range row {
			sum += k
		}
		if sum == 0 {
			continue // rtla leaves out empty rows without --with-zeros
		}
		fmt.Fprintf(&b, "%-6d", i)
		for j, k := range row {
			fmt.Fprintf(&b, "%9d ", k)
			count[j] += k
			if k > 0 {
				if lo[j] < 0 {
					lo[j] = int64(i)
				}
				hi[j] = int64(i)
			}
		}
		b.WriteString("\n")
	}
	b.WriteString("over: ")
	for cpu := range thr {
		fmt.Fprintf(&b, "%9d %9d ", 0, over[cpu])
		count[per*cpu+1] += over[cpu]
		if user {
			fmt.Fprintf(&b, "%9d ", over[cpu])
			count[per*cpu+2] += over[cpu]
		}
	}
	b.WriteString("\n")
	for _, l := range []struct {
		label string
		v     []int64
	}{{"count:", count}, {"min:  ", lo}, {"avg:  ", lo}, {"max:  ", hi}} {
		b.WriteString(l.label)
		for _, x := range l.v {
			fmt.Fprintf(&b, "%9d ", x)
		}
		b.WriteString("\n")
	}
	f := filepath.Join(dir, name)
	if err := os.WriteFile(f, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return f
}

// An rtla side is its Thr columns pooled, compared exactly as the
// cyclictest histogram of the same counts: the same statistics,
// intervals and tests; its IRQ and Usr columns are left out, and said to
// be.
func TestRunTimerlatSides(t *testing.T) {
	dir := testutil.TempDir(t)
	a0, a1 := bumps(60, 3500, 20), bumps(60, 3500, 22)
	b0, b1 := bumps(60, 3500, 25), bumps(60, 3500, 27)
	ra := timerlatFile(t, dir, "a.rtla", [][]int64{a0, a1}, []int64{3, 0}, true)
	rb := timerlatFile(t, dir, "b.rtla", [][]int64{b0, b1}, []int64{0, 0}, false)
	// The cyclictest histograms of the Thr columns, their rows ending
	// where the rtla files' do (rtla leaves out the empty rows, and the
	// range is taken as one past the last row): at the last Thr row, 3
	// rows further where the Usr columns are.
	pooled := func(x, y []int64, user bool) []int64 {
		out := make([]int64, len(x))
		last := 0
		for i := range x {
			out[i] = x[i] + y[i]
			if out[i] > 0 {
				last = i
			}
		}
		if user {
			last += 3
		}
		return out[:last+1]
	}
	// of the same names, so that the notes and verdicts name them alike
	ct := filepath.Join(dir, "ct")
	if err := os.Mkdir(ct, 0o755); err != nil {
		t.Fatal(err)
	}
	ca := histFile(t, ct, "a.rtla", pooled(a0, a1, true), 3)
	cb := histFile(t, ct, "b.rtla", pooled(b0, b1, false), 0)
	r, err := run(t, compare.RunOptions{Files: []string{ra, rb}})
	if err != nil {
		t.Fatal(err)
	}
	c, err := run(t, compare.RunOptions{Files: []string{ca, cb}})
	if err != nil {
		t.Fatal(err)
	}
	for i := range r.Runs {
		if !reflect.DeepEqual(r.Runs[i].Summary, c.Runs[i].Summary) || r.Runs[i].Censored != c.Runs[i].Censored {
			t.Errorf("run %d: rtla %+v, cyclictest %+v", i, r.Runs[i].Summary, c.Runs[i].Summary)
		}
		if !r.Runs[i].OrderUnknown || !r.Runs[i].Reconstructed {
			t.Errorf("run %d: order unknown %v, reconstructed %v", i, r.Runs[i].OrderUnknown, r.Runs[i].Reconstructed)
		}
	}
	if r.Runs[0].Source != "rtla timerlat histogram, Thr columns of 2 CPUs pooled" {
		t.Errorf("source %q", r.Runs[0].Source)
	}
	if !reflect.DeepEqual(r.Pairs[0].Rows, c.Pairs[0].Rows) || r.Pairs[0].MWU != c.Pairs[0].MWU || r.Pairs[0].Verdict != c.Pairs[0].Verdict {
		t.Errorf("the pair differs from the cyclictest histograms':\n%+v\n%+v", r.Pairs[0], c.Pairs[0])
	}
	for _, want := range [][]string{
		{"a.rtla: an rtla timerlat histogram (its Thr columns", "of CPUs 0-1 pooled", "keeps no order of its 7003 wake-ups"},
		{"a.rtla: not compared: its IRQ columns", "its Usr columns"},
		{"a.rtla: 3 of its 7003 wake-ups", "rtla's \"over:\" row"},
		{"a.rtla: rtla timerlat hist records neither its period (-p)", "0 00:00:30"},
		{"b.rtla: not compared: its IRQ columns"},
	} {
		if !hasNote(r, want...) {
			t.Errorf("no note with %q in %q", want, r.Notes)
		}
	}
	if hasNote(r, "b.rtla: not compared", "Usr") || hasNote(r, "a cyclictest histogram records") {
		t.Errorf("notes of what b.rtla does not have, or of cyclictest: %q", r.Notes)
	}
}

// An rtla side is compared with a cyclictest histogram, and refused
// against a sleep result as a histogram is, by its name.
func TestRunTimerlatAgainstOthers(t *testing.T) {
	dir := testutil.TempDir(t)
	ra := timerlatFile(t, dir, "a.rtla", [][]int64{bumps(60, 3500, 20)}, []int64{0}, false)
	ch := histFile(t, dir, "c.hist", bumps(60, 3500, 20), 0)
	r, err := run(t, compare.RunOptions{Files: []string{ra, ch}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Runs[0].Source != "rtla timerlat histogram, Thr columns of 1 CPU pooled" || r.Runs[1].Source != "cyclictest histogram, 1 thread column" {
		t.Errorf("sources %q, %q", r.Runs[0].Source, r.Runs[1].Source)
	}
	if !hasNote(r, "a cyclictest histogram records neither", "(c.hist)") || hasNote(r, "a cyclictest histogram records neither", "a.rtla") {
		t.Errorf("the cyclictest settings note: %q", r.Notes)
	}
	_, err = run(t, compare.RunOptions{Files: []string{ra, td("a.json")}})
	if !badinput.Is(err) || !strings.Contains(err.Error(), "a.rtla is an rtla timerlat histogram, of wake-up latency, and a.json a sleep result") {
		t.Errorf("against a sleep result: %v", err)
	}
}

// Bad rtla output is bad input, in one line that says what is taken.
func TestRunTimerlatBad(t *testing.T) {
	dir := testutil.TempDir(t)
	ok := timerlatFile(t, dir, "ok.rtla", [][]int64{bumps(60, 3500, 20)}, []int64{0}, false)
	good, err := os.ReadFile(ok)
	if err != nil {
		t.Fatal(err)
	}
	write := func(name, s string) string {
		f := filepath.Join(dir, name)
		if err := os.WriteFile(f, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return f
	}
	cases := []struct{ name, in, err string }{
		{"cut.rtla", string(good[:len(good)-40]), "(accepted: rtla timerlat hist or rtla osnoise hist output"},
		{"nothread.rtla", "# RTLA timerlat histogram\n# Time unit is microseconds (us)\nIndex   IRQ-000\n1         5 \nover:         0 \n", "no Thr column (rtla --no-thread)"},
		{"wide.rtla", "# RTLA timerlat histogram\n# Time unit is microseconds (us)\nIndex   IRQ-000   Thr-000\n0         5         3\n10        0         2\nover:     0         0\ncount:    5         5\nmin:      0         4\navg:      0         7\nmax:      0        12\n", "the Thr columns: its rows are all at multiples of 10 µs"},
	}
	for _, c := range cases {
		_, err := run(t, compare.RunOptions{Files: []string{write(c.name, c.in), ok}})
		if !badinput.Is(err) || !strings.Contains(err.Error(), c.err) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: got %v, want one line of bad input with %q", c.name, err, c.err)
		}
	}
}
