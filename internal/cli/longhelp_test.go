package cli

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/spf13/cobra"
)

// Every command's long help is written in lines of at most 80 columns:
// the help formatter re-wraps a longer line on its own, which leaves a
// word or two alone on a line in the middle of a paragraph.
func TestLongHelpLinesFit80(t *testing.T) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Name() == "completion" {
			return // cobra's own text
		}
		for i, l := range strings.Split(c.Long, "\n") {
			if n := utf8.RuneCountInString(l); n > 80 {
				t.Errorf("%s: long help line %d is %d columns: %q", c.CommandPath(), i+1, n, l)
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(NewRoot(seamIO()))
}
