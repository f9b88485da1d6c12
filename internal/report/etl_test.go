package report

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/etl"
)

// The event ids of PerfView's Windows 8 kernel trace fill several lines:
// each "id: count" pair stays on one line (a line never ends on "158:"),
// continuation lines start under the first pair, and every line fits 80
// columns.
func TestETLWrapsIDCountPairsWhole(t *testing.T) {
	b, err := os.ReadFile("../etl/testdata/corpus/microsoft_perfview__src_TraceEvent_TraceEvent.Tests_inputs_net.4.5.2.x64-a81addc5__net.4.5.2.x64.etl")
	if err != nil {
		t.Fatal(err)
	}
	s, err := etl.Summarize(context.Background(), bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	ETL(&out, s)
	want := "    ids 144: 16702, 146: 2, 148: 2, 150: 16221, 152: 26, 154: 27, 156: 27,\n" +
		"        158: 2, 187: 2\n"
	if !strings.Contains(out.String(), want) {
		t.Errorf("no\n%swithin\n%s", want, out.String())
	}
	for _, l := range strings.Split(out.String(), "\n") {
		if strings.HasPrefix(l, "    ids ") || strings.HasPrefix(l, "    opcodes ") || strings.HasPrefix(l, "        ") {
			if strings.HasSuffix(l, ":") || len(l) > 80 {
				t.Errorf("line %q: cut inside a pair, or over 80 columns", l)
			}
		}
	}
}
