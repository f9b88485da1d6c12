package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/latlab/latlab/internal/compare"
)

// compareDPCISRText writes the comparison of a dpcisr try's arms: the
// verdict of each section first, then each section's evidence as
// latlab dpcisr compare prints it, its columns named A, B, ... so that
// long labels keep the tables within 80 columns; then the notes.
func compareDPCISRText(w io.Writer, r *compare.Result) {
	c := r.DPCISR
	what := "DPC/ISR execution times"
	if len(c.Sections) > 0 && HandlerColumn(c.Sections[0].Name) != "module" {
		what = "softirq and interrupt handler times" // a Linux trace
	}
	writeProse(w, safeText(fmt.Sprintf("latlab compare: %s of %s, %d runs; chi-squared test over the buckets at %s",
		what, c.Module, len(r.Runs), levelPct(1-r.Level))), 2)
	fmt.Fprintln(w, "verdict:")
	for _, s := range c.Sections {
		writeProse(w, "- "+safeText(s.Verdict), 2)
	}
	names := map[string]string{}
	fmt.Fprintln(w)
	for i, run := range r.Runs {
		names[run.Label] = columnName(i)
		line := fmt.Sprintf("%s = %s", columnName(i), run.Label)
		if i > 0 && run.Settings != "" {
			line += ": " + run.Settings
		}
		writeProse(w, safeText(line), 2)
	}
	for _, s := range c.Sections {
		dpcisrCompareSection(w, s, names, c.Tests)
	}
	fmt.Fprintln(w)
	for _, n := range r.Notes {
		writeProse(w, "note: "+safeText(n), 2)
	}
}

// columnName is the heading of run i's column: A, B, ..., Z, then the
// run's number.
func columnName(i int) string {
	if i < 26 {
		return string(rune('A' + i))
	}
	return fmt.Sprintf("#%d", i+1)
}

// compareDPCISRHTML is the page's view of the same comparison: the
// verdicts, and per section the runs' shares at or below the thresholds.
func compareDPCISRHTML(r *compare.Result) (verdicts []string, tables []htmlTable) {
	c := r.DPCISR
	for _, s := range c.Sections {
		verdicts = append(verdicts, s.Verdict)
	}
	for _, s := range c.Sections {
		t := htmlTable{Caption: fmt.Sprintf("%s of %s: share of executions at or below each bound", s.Name, c.Module), Header: []string{"at or below"}}
		for _, run := range s.Runs {
			t.Header = append(t.Header, run.Label)
		}
		for _, sh := range s.Shares {
			row := []string{fmt.Sprintf("%g µs", sh.Us)}
			for i := range s.Runs {
				row = append(row, dpcisrSharePct(sh.Pct[i]))
			}
			t.Rows = append(t.Rows, row)
		}
		total := []string{"executions"}
		for _, run := range s.Runs {
			total = append(total, fmt.Sprint(run.Summary.Count))
		}
		t.Rows = append(t.Rows, total)
		if len(s.Missing) > 0 {
			t.Caption += "; not in " + strings.Join(s.Missing, ", ")
		}
		tables = append(tables, t)
	}
	return verdicts, tables
}
