package cli

import (
	"io"
	"os"
	"strconv"

	"golang.org/x/term"

	"github.com/latlab/latlab/internal/report"
)

// withWidth gives stdout the width tables fit: the terminal's, or, when
// stdout is not a terminal, $COLUMNS if set (a pipe or a file otherwise
// gets tables at their full width, for scripts).
func withWidth(stdout io.Writer) io.Writer {
	return report.WithWidth(stdout, outputWidth(stdout, os.Getenv("COLUMNS")))
}

func outputWidth(w io.Writer, columns string) int {
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		if cols, _, err := term.GetSize(int(f.Fd())); err == nil && cols > 0 {
			return cols
		}
	}
	if n, err := strconv.Atoi(columns); err == nil && n > 0 {
		return n
	}
	return 0
}

// errProse runs print with stderr's lines of prose wrapped to its width (a
// terminal's, or $COLUMNS): a plan or a warning said before the work is
// read on the terminal as the results are. Error lines ("latlab: ...")
// stay one line and do not come here.
func errProse(stderr io.Writer, print func(io.Writer)) {
	w := stderr
	if report.WidthOf(w) <= 0 {
		w = report.WithWidth(stderr, outputWidth(stderr, os.Getenv("COLUMNS")))
	}
	humanOut(w, print)
}
