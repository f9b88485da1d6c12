package report

import (
	"io"

	"github.com/jedib0t/go-pretty/v6/table"
)

// TableLeft writes a simple table with every column left-aligned, for text.
func TableLeft(w io.Writer, header []string, rows [][]string) {
	t := newTable(w)
	h := table.Row{}
	for _, s := range header {
		h = append(h, s)
	}
	t.AppendHeader(h)
	for _, r := range rows {
		row := table.Row{}
		for _, s := range r {
			row = append(row, s)
		}
		t.AppendRow(row)
	}
	t.Render()
}
