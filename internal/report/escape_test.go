package report

import (
	"bytes"
	"fmt"
	"testing"
)

func TestTerminalSafe(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"logger\x1b[2Jname\n", `logger\x1b[2Jname` + "\n"},
		{"bell\a cr\r del\x7f tab\t", `bell\x07 cr\x0d del\x7f tab` + "\t"},
		{"c1 \u009b31m é ✓", `c1 \u009b31m é ✓`},
		{"bad utf-8 \xff", "bad utf-8 \xff"},
	} {
		var b bytes.Buffer
		n, err := fmt.Fprint(TerminalSafe(&b), c.in)
		if err != nil || n != len(c.in) || b.String() != c.want {
			t.Errorf("%q: %q (%d, %v), want %q", c.in, b.String(), n, err, c.want)
		}
	}
}

// Tables written through TerminalSafe still fit the output's width.
func TestTerminalSafeKeepsWidth(t *testing.T) {
	var b bytes.Buffer
	if n := WidthOf(TerminalSafe(WithWidth(&b, 60))); n != 60 {
		t.Errorf("width %d, want 60", n)
	}
	if n := WidthOf(TerminalSafe(&b)); n != 0 {
		t.Errorf("width %d, want 0", n)
	}
}
