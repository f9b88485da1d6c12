package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jedib0t/go-pretty/v6/text"
)

// copyLines are the lines of a golden file allowed past 80 columns: a
// line to be copied as it is (Verbatim), which a line break would spoil;
// a terminal folds it for the eye and copies it whole.
var copyLines = map[string][]string{
	"knob-set-manual.golden": {`       GRUB_CMDLINE_LINUX="console=ttyS0 isolcpus=managed_irq,domain,2-3 nohz_full=2-3 rcu_nocbs=2-3"`},
}

// Every line of every command's text in the golden files fits 80
// display columns (a wide character counts two, a box-drawing one), as
// it fits a terminal of 80 columns or a pipe: the per-command tests
// check their own, this one any golden added later too.
func TestGoldensFit80Columns(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.golden"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 30 {
		t.Fatalf("%d golden files, want the 39 or more of testdata", len(files))
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Base(f)
		for i, l := range strings.Split(strings.TrimRight(string(b), "\n"), "\n") {
			n := text.StringWidthWithoutEscSequences(l)
			if n <= pageWidth {
				continue
			}
			allowed := false
			for _, c := range copyLines[name] {
				allowed = allowed || l == c
			}
			if !allowed {
				t.Errorf("%s:%d: %d columns, want at most %d:\n%s", name, i+1, n, pageWidth, l)
			}
		}
	}
}
