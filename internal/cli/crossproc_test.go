package cli

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/latlab/latlab/internal/crossproc"
	"github.com/latlab/latlab/internal/report"
	"github.com/latlab/latlab/internal/testutil"
)

// crossprocRun runs the experiment with a real child process (this test
// binary acting as latlab) and short holds.
func crossprocRun(t *testing.T, extra ...string) *crossproc.Result {
	t.Helper()
	plot := testutil.TempDir(t) + "/c.svg"
	args := append([]string{"crossproc", "--periods", "1,5", "--hold", "300ms", "--settle", "20ms", "--json", "--plot", plot}, extra...)
	code, out, errs := runCLI(t, args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	r := &payload(t, readDoc(t, out), crossproc.Kind).Result
	if len(r.Rows) != 3 || r.Rows[0].RequestedNs != 0 || r.Rows[1].RequestedNs != 1e6 || r.Rows[2].RequestedNs != 5e6 {
		t.Fatalf("rows %+v", r.Rows)
	}
	for _, row := range r.Rows {
		if row.Slept.Count < 5 || row.Slept.P50 < 1e6 {
			t.Errorf("row %+v", row)
		}
		// Every sleep is kept, so the plot can show the distribution.
		if int64(len(row.Samples)+row.Dropped) != row.Slept.Count || len(row.Samples) == 0 {
			t.Errorf("row of %d sleeps keeps %d samples", row.Slept.Count, len(row.Samples))
		}
	}
	if r.Rule == "" {
		t.Error("no expected rule recorded")
	}
	for _, row := range r.Rows[1:] {
		if row.ChildGrantedNs <= 0 {
			t.Errorf("the child did not report a grant: %+v", row)
		}
	}
	if s := readFile(t, plot); !strings.Contains(s, "<svg") {
		t.Error("plot")
	}
	if r.Verdict.Text == "" {
		t.Error("no verdict")
	}
	return r
}

func TestCrossprocBadInput(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"crossproc", "--periods", "0"}, `invalid --periods "0"`},
		{[]string{"crossproc", "--periods", "5-1"}, `invalid --periods "5-1"`},
		{[]string{"crossproc", "--periods", "x"}, `invalid --periods "x": want whole milliseconds 1-1000`},
		{[]string{"crossproc", "--hold", "0"}, `invalid value "0" for --hold`},
		{[]string{"crossproc", "--hold", "1000h"}, "invalid --hold 1000h: accepted up to 10m (each hold keeps its sleeps in memory)"},
		{[]string{"crossproc", "--hold", "100ms", "--settle", "200ms"}, "--settle 200ms must be shorter than --hold 100ms"},
		{[]string{"crossproc", "--plot", "c.jpg"}, `plot file "c.jpg": accepted names end in .svg or .png`},
	} {
		code, out, errs := runCLI(t, c.args...)
		testutil.CheckBadExit(t, fmt.Sprint(c.args), code, errs, c.want)
		if out != "" {
			t.Errorf("%v: stdout %q", c.args, out)
		}
	}
}

func TestParsePeriods(t *testing.T) {
	ms := time.Millisecond
	good := map[string][]time.Duration{
		"1-3,5,10ms":    {1 * ms, 2 * ms, 3 * ms, 5 * ms, 10 * ms},
		"2ms-4ms":       {2 * ms, 3 * ms, 4 * ms},
		" 10, 1 ,5,1 ":  {1 * ms, 5 * ms, 10 * ms},
		"1000":          {1000 * ms},
		"1-200":         nil, // checked by length below
		"15":            {15 * ms},
		"1ms,2ms,1-2ms": {1 * ms, 2 * ms},
	}
	for in, want := range good {
		p, err := parsePeriods(in)
		if err != nil {
			t.Errorf("%q: %v", in, err)
			continue
		}
		if want == nil {
			want = p[:0]
			for i := 1; i <= 200; i++ {
				want = append(want, time.Duration(i)*ms)
			}
		}
		if !slices.Equal(p, want) {
			t.Errorf("%q: %v, want %v", in, p, want)
		}
	}
	bad := map[string]string{
		"":        "want whole milliseconds",
		"0":       "at 0",
		"0-3":     "at 0",
		"5-1":     "want whole milliseconds",
		"x":       "want whole milliseconds",
		"1,,2":    "want whole milliseconds",
		"1.5":     "want whole milliseconds",
		"-1":      "want whole milliseconds",
		"1001":    "at 1001",
		"1-9000":  "want whole milliseconds",
		"1s":      "want whole milliseconds",
		"1msms":   "want whole milliseconds",
		"1-201":   "201 periods, at most 200",
		"1ms5":    "want whole milliseconds",
		"1 ms,2":  "want whole milliseconds",
		"10-20us": "want whole milliseconds",
	}
	for in, want := range bad {
		p, err := parsePeriods(in)
		if err == nil || ExitCode(err) != 2 || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "CPU") {
			t.Errorf("%q: %v %v, want a usage error containing %q", in, p, err, want)
		}
	}
}

// The plan on stderr wraps to its width, as sweep's does: at --hold 300ms
// it was one line of 83 columns.
func TestCrossprocPlanFitsStderr(t *testing.T) {
	var out, errb bytes.Buffer
	code := Run(context.Background(), []string{"crossproc", "--periods", "1", "--hold", "300ms", "--settle", "20ms"},
		&IO{In: strings.NewReader(""), Out: report.WithWidth(&out, 80), Err: report.WithWidth(&errb, 80)})
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if !strings.Contains(errb.String(), "latlab crossproc: baseline + 1 requests") {
		t.Errorf("no plan on stderr: %q", errb.String())
	}
	for _, l := range strings.Split(errb.String(), "\n") {
		if n := utf8.RuneCountInString(l); n > 80 {
			t.Errorf("stderr line of %d columns: %q", n, l)
		}
	}
}
