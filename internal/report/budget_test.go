package report

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/host"
	"github.com/latlab/latlab/internal/infile"
	"github.com/latlab/latlab/internal/probe"
	"github.com/latlab/latlab/internal/result"
	"github.com/latlab/latlab/internal/stats"
	"github.com/latlab/latlab/internal/testutil"
)

// report charges every input's rebuilt samples to one budget, its
// comparison section included (which reads them again, free): files each
// under the limit hit it together.
func TestRunSampleBudget(t *testing.T) {
	defer infile.Reset()
	// 8,192 samples over all inputs: three files of 2,500 fit, four do
	// not (the proportions of 10,000 against 32,768, with a quarter of
	// the samples to plot).
	infile.SetMax(1 << 20)
	dir := testutil.TempDir(t)
	var files []string
	for i := 0; i < 4; i++ {
		h := stats.NewHistogram()
		if err := h.RecordValues(1_000_000+int64(i)*10_000, 2_500); err != nil {
			t.Fatal(err)
		}
		enc, err := result.EncodeHistogram(h)
		if err != nil {
			t.Fatal(err)
		}
		f := filepath.Join(dir, "run"+string(rune('a'+i))+".json")
		d := probe.KindSleep.New(host.Facts{}, &probe.SleepData{Measurement: probe.Measurement{Method: "nanosleep", RequestedNs: 1_000_000}, Histogram: *enc})
		if err := result.WriteFile(f, d); err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	res, err := Run(context.Background(), Options{Files: files[:3], Out: filepath.Join(dir, "three.html")})
	if err != nil || res.Results != 3 {
		t.Fatalf("three files of 2,500: %+v %v", res, err)
	}
	_, err = Run(context.Background(), Options{Files: files, Out: filepath.Join(dir, "four.html")})
	if !badinput.Is(err) || !strings.Contains(err.Error(), "rund.json") || !strings.Contains(err.Error(), "more than the 8192") || !strings.Contains(err.Error(), infile.MaxFlag) {
		t.Errorf("four files of 2,500: %v, want bad input naming the shared limit", err)
	}
}
