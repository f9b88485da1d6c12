package report

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/jedib0t/go-pretty/v6/text"

	"github.com/latlab/latlab/internal/knob"
	"github.com/latlab/latlab/internal/textwrap"
)

// KnobList prints `knob list`: one row per knob with its value, and
// under it, indented, what the value means; a knob with several
// instances points to knob get. The meaning is a line of its own, not a
// column: beside the names and values it had a third of the width, and
// wrapped into a column of many lines.
func KnobList(w io.Writer, l *knob.List) {
	var rows [][]string
	for _, e := range l.Knobs {
		val, meaning := "", e.Summary
		switch {
		case e.OS != l.OS:
			val = "(" + e.OS + ")"
		case e.Error != "":
			val, meaning = "?", visible(e.Error)
		case e.Reading != nil && len(e.Reading.Items) == 1:
			val, meaning = visible(e.Reading.Items[0].Value), visible(e.Reading.Items[0].Meaning)
		case e.Reading != nil && len(e.Reading.Items) == 0:
			val = "none found"
		case e.Reading != nil:
			val = fmt.Sprintf("%d instances", len(e.Reading.Items))
			meaning = e.Summary + "; latlab knob get " + e.Name
		}
		rows = append(rows, []string{e.Name, val, meaning})
	}
	nw := max(widestCell(rows, 0), len("knob"))
	// the header as the rows: the name and the value, the meaning under
	fmt.Fprintln(w, " "+padCols("knob", nw)+"  value")
	fmt.Fprintln(w, "     meaning")
	fmt.Fprintln(w, strings.Repeat("─", min(pageCols(w), 1+nw+2+max(len("value"), widestCell(rows, 1)))))
	for _, r := range rows {
		writeProse(w, " "+padCols(r[0], nw)+"  "+r[1], 1+nw+2)
		if r[2] != "" {
			writeProse(w, "     "+r[2], 5, "latlab knob get "+r[0])
		}
	}
	fmt.Fprintln(w, "\nlatlab knob get NAME shows details;")
	fmt.Fprintln(w, "latlab knob explain NAME [VALUE] decodes a value")
}

// widestCell is the width of column i's widest cell.
func widestCell(rows [][]string, i int) int {
	n := 0
	for _, r := range rows {
		n = max(n, text.StringWidthWithoutEscSequences(cell(r, i)))
	}
	return n
}

// KnobReading prints `knob get`: the value and meaning of a knob with
// one instance, a table of the instances of one with several, then the
// warnings and notes.
func KnobReading(w io.Writer, r *knob.Reading) {
	summary := ""
	if k, err := knob.Lookup(r.Knob); err == nil {
		summary = k.Summary()
	}
	wrapTo(w, r.Knob+": "+summary, "", "  ")
	if len(r.Items) == 1 && r.Items[0].Target == "" {
		it := r.Items[0]
		if it.Loc != nil {
			writeProse(w, "  where    "+it.Loc.String(), 11, it.Loc.String())
		}
		wrapTo(w, visible(it.Value), "  value    ", "           ")
		wrapTo(w, visible(it.Meaning), "  meaning  ", "           ")
		for _, wn := range it.Warnings {
			wrapTo(w, "warning: "+wn, "  ", "    ")
		}
	} else if len(r.Items) == 0 {
		fmt.Fprintln(w, "  (no instances)")
	} else {
		var rows [][]string
		for _, it := range r.Items {
			rows = append(rows, []string{visible(it.Target), visible(it.Value), visible(it.Meaning)})
		}
		pageTable(w, tableSpec{header: []string{"target", "value", "meaning"}, rows: rows, floor: []int{widestCell(rows, 0)}})
		for _, it := range r.Items {
			for _, wn := range it.Warnings {
				writeProse(w, "warning: "+visible(it.Target)+": "+wn, 2)
			}
		}
	}
	for _, n := range r.Notes {
		wrapTo(w, "note: "+n, "", "  ")
	}
}

// KnobExplain prints `knob explain`: each line of the explanation within
// 80 columns, a wrapped line indented under its own.
func KnobExplain(w io.Writer, ex *knob.ExplainResult) {
	for _, l := range ex.Text {
		lead := l[:len(l)-len(strings.TrimLeft(l, " "))]
		wrapTo(w, l, lead, lead+"  ")
	}
}

// wrapTo writes text within the page's 80 columns, or a narrower
// terminal's (pageCols): the first line after first, the rest after
// indent.
func wrapTo(w io.Writer, text, first, indent string) {
	for _, l := range wrapText(text, first, indent, pageCols(w)) {
		fmt.Fprintln(w, l)
	}
}

// KnobSet prints `knob set`: each value changed (or that a dry run
// would change) from and to, the notes, then the equivalent script of a
// dry run or where the originals are and how to undo the change.
func KnobSet(w io.Writer, r *knob.SetResult) {
	p := r.Plan
	target := ""
	if p.Target != "" {
		target = " (" + p.Target + ")"
	}
	if len(p.Changes) == 0 && len(p.Manual) > 0 {
		writeProse(w, p.Knob+target+": latlab does not make this change itself; the steps:", 2)
		for i, m := range p.Manual {
			for _, l := range textwrap.Hanging(fmt.Sprintf("%d. %s", i+1, m.Do), 3, 78) {
				fmt.Fprintln(w, "  "+l)
			}
			if m.Line != "" {
				// Never wrapped: it is to be copied as it is.
				Verbatim(w, "       "+m.Line)
			}
		}
		for _, n := range p.Notes {
			writeProse(w, "note: "+safeText(n), 2)
		}
		for _, wn := range p.Warnings {
			writeProse(w, "warning: "+wn, 2)
		}
		fmt.Fprintln(w, "nothing was changed")
		return
	}
	if len(p.Changes) == 0 {
		writeProse(w, fmt.Sprintf("%s%s is already %s: nothing to change", p.Knob, target, p.Request), 2)
		return
	}
	verb := "changed"
	if r.DryRun {
		verb = "would change"
	}
	writeProse(w, fmt.Sprintf("%s%s: %s %d value(s)", p.Knob, target, verb, len(p.Changes)), 2)
	for _, d := range r.Changes {
		writeProse(w, fmt.Sprintf("  %s: %s -> %s", d.Where, d.From, d.To), 4)
	}
	for _, n := range p.Notes {
		writeProse(w, "note: "+safeText(n), 2)
	}
	for _, wn := range p.Warnings {
		writeProse(w, "warning: "+wn, 2)
	}
	if r.DryRun {
		fmt.Fprintf(w, "\nequivalent %s:\n", scriptNames[r.Format])
		for _, l := range r.Script {
			Verbatim(w, "  "+l)
		}
		fmt.Fprintln(w, "\ndry run: nothing was changed")
		return
	}
	writeProse(w, "original values recorded in "+r.Journal, 2)
	Verbatim(w, "undo with: "+knob.CommandLine(r.Undo))
}

// KnobRevert prints `knob revert`: the damaged journal entries left
// alone, then what was done (or a dry run would do) with each change.
func KnobRevert(w io.Writer, r *knob.RevertResult) {
	for _, d := range r.Damaged {
		writeProse(w, fmt.Sprintf("journal %s is damaged, left alone: %s", d, d.Why), 2)
	}
	if len(r.Steps) == 0 && r.Error == "" {
		if r.Target != "" {
			writeProse(w, fmt.Sprintf("nothing to revert: no change of target %q is still in place (latlab knob history shows the targets)", r.Target), 2)
			return
		}
		fmt.Fprintln(w, "nothing to revert: every change in the journal is already undone")
		return
	}
	for _, s := range r.Steps {
		e := s.Entry
		label := e.Knob
		if e.Target != "" {
			label += " (" + e.Target + ")"
		}
		switch s.Action {
		case "restore":
			verb := "restored"
			if r.DryRun {
				verb = "would restore"
			}
			writeProse(w, fmt.Sprintf("%s: %s %s: %s -> %s", label, verb, e.Loc, knob.ShowValue(s.Live), knob.ShowValue(e.Original)), 2, e.Loc.String())
		case "already-original":
			writeProse(w, fmt.Sprintf("%s: %s already holds the original %s%s", label, e.Loc, knob.ShowValue(e.Original), Paren(s.Detail)), 2, e.Loc.String())
		case "keep":
			writeProse(w, fmt.Sprintf("%s: kept the key %s latlab created: it holds values latlab did not add", label, e.Loc), 2, e.Loc.String())
		case "gone":
			writeProse(w, fmt.Sprintf("%s: %s no longer exists; nothing to restore", label, e.Loc), 2, e.Loc.String())
		case "conflict":
			writeProse(w, fmt.Sprintf("%s: %s is now %s, not the %s latlab wrote", label, e.Loc, knob.ShowValue(s.Live), knob.ShowValue(e.New)), 2, e.Loc.String())
		case "refused":
			writeProse(w, fmt.Sprintf("%s: journal entry %d refused, left alone: %s", label, e.ID, s.Detail), 2)
		}
	}
	// A revert that stopped says why in its error, not here.
	if r.DryRun && r.Error == "" {
		fmt.Fprintln(w, "dry run: nothing was changed")
	}
}

// KnobHistory prints `knob history`: one row per change in the journal,
// oldest first, with its state.
func KnobHistory(w io.Writer, h *knob.History) {
	if len(h.Entries) == 0 {
		writeProse(w, "no changes recorded in "+h.Journal, 2)
		return
	}
	var changes, places [][]string
	for _, e := range h.Entries {
		label := e.Knob
		if e.Target != "" {
			label += " (" + e.Target + ")"
		}
		id := fmt.Sprint(e.ID)
		changes = append(changes, []string{id, fmt.Sprint(e.Set), label, e.State, knob.ShowValue(e.Original), knob.ShowValue(e.New)})
		places = append(places, []string{id, e.Loc.String(), e.Time.Local().Format("2006-01-02 15:04:05")})
	}
	// Two tables, as one did not fit 80 columns: whether each change is
	// in force and what it changed first, then where and when, by id.
	pageTable(w, tableSpec{header: []string{"id", "set", "knob", "state", "original", "latlab wrote"}, rows: changes})
	fmt.Fprintln(w)
	pageTable(w, tableSpec{header: []string{"id", "where", "time"}, rows: places, floor: []int{0, 0, len("2006-01-02 15:04:05")}})
	writeProse(w, "journal: "+h.Journal, 2)
}

// scriptNames name the script formats in a sentence.
var scriptNames = map[string]string{knob.FormatReg: ".reg file", knob.FormatPS1: "PowerShell", knob.FormatSh: "shell commands"}

// visible escapes what a terminal would act on instead of showing: the
// control characters and invalid UTF-8 of a value read from a file that
// someone else may have written (an escape sequence in a sysfs or
// registry value must not reach the terminal). Anything else is left as
// it is.
func visible(s string) string {
	if !strings.ContainsFunc(s, hidden) && utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 || hidden(r) {
			for _, c := range []byte(s[i : i+n]) {
				fmt.Fprintf(&b, "\\x%02x", c)
			}
		} else {
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// hidden says whether a terminal acts on r instead of showing it: the C0
// and C1 controls and DEL.
func hidden(r rune) bool { return r < 0x20 || r >= 0x7f && r < 0xa0 }
