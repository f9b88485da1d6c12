// Command knobdoc rewrites the tables of docs/commands/ that come from the
// knob catalogue (internal/knobdoc), between their marker comments, and
// the Go files made from it (the selector flags' knob lists). Run it from
// the repository root after changing a knob's summary, rules or
// selectors:
//
//	go run ./scripts/knobdoc
package main

import (
	"fmt"
	"os"

	"github.com/latlab/latlab/internal/knobdoc"
)

func main() {
	if len(os.Args) > 1 {
		fail(fmt.Errorf("knobdoc takes no arguments"))
	}
	for _, b := range knobdoc.Blocks() {
		page, err := os.ReadFile(b.Page)
		if err != nil {
			fail(err)
		}
		out, err := knobdoc.Update(page, b.Name, b.Text)
		if err != nil {
			fail(fmt.Errorf("%s: %w", b.Page, err))
		}
		if err := os.WriteFile(b.Page, out, 0o644); err != nil {
			fail(err)
		}
	}
	files, err := knobdoc.Files()
	if err != nil {
		fail(err)
	}
	for _, f := range files {
		if err := os.WriteFile(f.Path, []byte(f.Text), 0o644); err != nil {
			fail(err)
		}
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "knobdoc:", err)
	os.Exit(1)
}
