package cli

import (
	"fmt"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/testutil"
)

// Bad flags of latlab ui are bad input, said in one line before the
// check-up runs.
func TestUIBadInput(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"ui", "--duty", "90%"}, "invalid --duty"},
		{[]string{"ui", "--duty", "x"}, "invalid --duty"},
		{[]string{"ui", "--record-dir", "/nonexistent/latlab"}, "invalid --record-dir"},
		{[]string{"ui", "extra"}, "ui"},
	} {
		code, _, errs := runCLI(t, c.args...)
		testutil.CheckBadExit(t, fmt.Sprintf("%q", c.args), code, errs, c.want)
		if strings.Contains(errs, "check-up") {
			t.Errorf("%q: the check-up ran: %q", c.args, errs)
		}
	}
}
