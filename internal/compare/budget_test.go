package compare_test

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/compare"
	"github.com/latlab/latlab/internal/host"
	"github.com/latlab/latlab/internal/infile"
	"github.com/latlab/latlab/internal/probe"
	"github.com/latlab/latlab/internal/result"
	"github.com/latlab/latlab/internal/stats"
	"github.com/latlab/latlab/internal/testutil"
)

// writeClaim writes a sleep result without raw samples whose histogram
// holds n samples around 1 ms (a few hundred bytes whatever n is).
func writeClaim(t *testing.T, path string, n int64) {
	t.Helper()
	h := stats.NewHistogram()
	if err := h.RecordValues(1_000_000, n/2); err != nil {
		t.Fatal(err)
	}
	if err := h.RecordValues(1_050_000, n-n/2); err != nil {
		t.Fatal(err)
	}
	enc, err := result.EncodeHistogram(h)
	if err != nil {
		t.Fatal(err)
	}
	d := probe.KindSleep.New(host.Facts{}, &probe.SleepData{Measurement: probe.Measurement{Method: "nanosleep", RequestedNs: 1_000_000}, Histogram: *enc})
	if err := result.WriteFile(path, d); err != nil {
		t.Fatal(err)
	}
}

// compare charges every input's rebuilt samples to one budget: a tiny
// file claiming ten million samples is refused before it costs hundreds
// of MiB, and files each under the limit hit it together.
func TestRunSampleBudget(t *testing.T) {
	defer infile.Reset()
	dir := testutil.TempDir(t)
	claim := filepath.Join(dir, "claim.json")
	writeClaim(t, claim, 10_000_000)
	if fi, err := os.Stat(claim); err != nil || fi.Size() > 4096 {
		t.Fatalf("the claim is not tiny: %v %v", fi, err)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := run(t, compare.RunOptions{Files: []string{td("a.json"), claim}})
	runtime.ReadMemStats(&after)
	if !badinput.Is(err) || !strings.Contains(err.Error(), "claim.json") || !strings.Contains(err.Error(), "10000000 samples, more than the 8388608") {
		t.Errorf("10M claimed: %v, want bad input naming the file and the limit", err)
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 64<<20 {
		t.Errorf("10M claimed: %d MiB allocated", n>>20)
	}

	infile.SetMax(16 << 20) // 131,072 samples over all inputs
	var files []string
	for i := 0; i < 4; i++ {
		f := filepath.Join(dir, "run"+string(rune('a'+i))+".json")
		writeClaim(t, f, 40_000)
		files = append(files, f)
	}
	if _, err := run(t, compare.RunOptions{Files: files[:3]}); err != nil {
		t.Fatalf("three files of 40,000: %v", err)
	}
	_, err = run(t, compare.RunOptions{Files: files})
	if !badinput.Is(err) || !strings.Contains(err.Error(), "rund.json") || !strings.Contains(err.Error(), "more than the 131072") || !strings.Contains(err.Error(), infile.MaxFlag) {
		t.Errorf("four files of 40,000: %v, want the shared limit named", err)
	}
}
