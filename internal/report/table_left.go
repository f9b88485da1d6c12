package report

import "io"

// TableLeft writes a simple table with every column left-aligned, for text.
func TableLeft(w io.Writer, header []string, rows [][]string) {
	tableSpec{header: header, rows: rows}.write(w)
}
