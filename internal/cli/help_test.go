package cli

import (
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// Every command's --help fits 80 columns, has no trailing spaces and
// does not offer --root.
func TestHelpFits80Columns(t *testing.T) {
	n := 0
	walk(NewRoot(&IO{}), func(c *cobra.Command) {
		args := append(strings.Fields(strings.TrimPrefix(c.CommandPath(), "latlab")), "--help")
		code, out, errs := runCLI(t, args...)
		if code != 0 || errs != "" || !strings.Contains(out, "Usage:") {
			t.Errorf("%q: exit %d %q", args, code, errs)
			return
		}
		checkLines(t, c.CommandPath()+" --help", out, helpWidth)
		if strings.Contains(out, "--root") {
			t.Errorf("%s --help shows --root, a testing aid", c.CommandPath())
		}
		n++
	})
	if n < 30 {
		t.Errorf("only %d commands", n)
	}
}

// checkLines fails for a line of out wider than max columns or ending in
// a space.
func checkLines(t *testing.T, what, out string, max int) {
	t.Helper()
	for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if w := width(l); w > max {
			t.Errorf("%s: %d columns: %q", what, w, l)
		}
		if strings.TrimRight(l, " \t") != l {
			t.Errorf("%s: trailing space: %q", what, l)
		}
	}
}

func TestWrapExample(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"  latlab sleep", []string{"  latlab sleep"}},
		{"  latlab sweep --from 0.5ms --to 0.52ms --step 0.0002ms --samples 200 --load 2 --csv sweep.csv --plot sweep.svg",
			[]string{"  latlab sweep --from 0.5ms --to 0.52ms --step 0.0002ms --samples 200 --load 2 \\",
				"      --csv sweep.csv --plot sweep.svg"}},
		{"  latlab sweep                                     # the research's 0.5-0.8ms micro-adjust (Windows)",
			[]string{"  # the research's 0.5-0.8ms micro-adjust (Windows)", "  latlab sweep"}},
		{`  latlab pcap dscp capture.pcap --filter "src 10.0.0.5 udp port 3074 and more words here" --expect EF`,
			[]string{`  latlab pcap dscp capture.pcap \`, `      --filter "src 10.0.0.5 udp port 3074 and more words here" --expect EF`}},
	}
	for _, tc := range tests {
		got := wrapExample(tc.in, 80)
		if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
			t.Errorf("%q:\ngot  %q\nwant %q", tc.in, got, tc.want)
		}
	}
}
