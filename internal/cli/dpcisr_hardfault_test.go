package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/testutil"
)

// The written hard fault traces (internal/etl/written_hardfault_test.go):
// 12 faults of threads in app.exe (5, one of them by thread 300 before
// its id went to svchost.exe), svchost.exe (3), System, searchindexer.exe,
// a process no Process event names (5000) and a thread no Thread event
// names (999). The 32- and 64-bit traces give the same table.
func TestDPCISRHardFaults(t *testing.T) {
	golden, err := os.ReadFile("testdata/dpcisr-hardfault.golden")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"written-hardfault-64.etl", "written-hardfault-32.etl"} {
		code, out, errs := runCLI(t, "dpcisr", etlData+f)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", f, code, errs)
		}
		want := strings.Replace(string(golden), "written-hardfault-64.etl", f, 1)
		if out != want {
			t.Errorf("%s: got\n%s\nwant (testdata/dpcisr-hardfault.golden)\n%s", f, out, want)
		}
		for i, l := range strings.Split(out, "\n") {
			if n := len([]rune(l)); n > 80 {
				t.Errorf("%s: line %d has %d columns: %q", f, i+1, n, l)
			}
		}
		code, out, errs = runCLI(t, "dpcisr", etlData+f, "--json")
		if code != 0 {
			t.Fatalf("%s --json: exit %d: %s", f, code, errs)
		}
		var doc struct {
			Data struct {
				Sections   []any
				HardFaults struct {
					Events    int64
					Bytes     uint64
					TotalUs   float64 `json:"total_us"`
					LongestUs float64 `json:"longest_us"`
					Processes []struct {
						Image     string
						PID       *uint32
						TID       *uint32
						Faults    int64
						Bytes     uint64
						TotalUs   float64 `json:"total_us"`
						LongestUs float64 `json:"longest_us"`
					}
				} `json:"hard_faults"`
			}
		}
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatal(err)
		}
		h := doc.Data.HardFaults
		if h.Events != 12 || h.Bytes != 122880 || h.TotalUs != 11820 || h.LongestUs != 1920 || len(h.Processes) != 6 || len(doc.Data.Sections) != 0 {
			t.Errorf("%s: %+v", f, h)
		}
		var rows []string
		for _, p := range h.Processes {
			pid, tid := "-", "-"
			if p.PID != nil {
				pid = fmt.Sprint(*p.PID)
			}
			if p.TID != nil {
				tid = fmt.Sprint(*p.TID)
			}
			rows = append(rows, fmt.Sprintf("%s/%s/%s/%d/%d", p.Image, pid, tid, p.Faults, p.Bytes))
		}
		wantRows := "svchost.exe/2000/-/3/28672 app.exe/1234/-/5/53248 searchindexer.exe/2100/-/1/8192 /-/999/1/4096 /5000/-/1/16384 System/4/-/1/12288"
		if strings.Join(rows, " ") != wantRows {
			t.Errorf("%s: rows\n got %s\nwant %s", f, strings.Join(rows, " "), wantRows)
		}
	}
	// The JSON document and the HTML page carry the section: read back,
	// the document prints the same table.
	dir := testutil.TempDir(t)
	code, out, errs := runCLI(t, "dpcisr", etlData+"written-hardfault-32.etl", "--json", "--html", filepath.Join(dir, "p.html"))
	if code != 0 {
		t.Fatalf("--json --html: exit %d: %s", code, errs)
	}
	doc := filepath.Join(dir, "hf.json")
	if err := os.WriteFile(doc, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs = runCLI(t, "dpcisr", doc)
	_, table, _ := strings.Cut(string(golden), "== hard page faults")
	if code != 0 || !strings.HasSuffix(out, table) {
		t.Errorf("document read back: exit %d: %s %s", code, out, errs)
	}
	page, err := os.ReadFile(filepath.Join(dir, "p.html"))
	if err != nil || !strings.Contains(string(page), "hard page faults: 12 hard page faults in 6 processes") || !strings.Contains(string(page), "thread 999, process unknown") {
		t.Errorf("page: %v", err)
	}
	// A DPC/ISR trace recorded without HARD_FAULTS says so in one line.
	code, out, errs = runCLI(t, "dpcisr", etlData+"written-dpcisr-64.etl")
	if code != 0 || !strings.Contains(out, "\n== hard page faults\nno hard page fault events: the trace was not recorded with the HARD_FAULTS\nkernel flag (xperf -on ...+HARD_FAULTS)\n") {
		t.Errorf("exit %d: %s %s", code, out, errs)
	}
}

// dpcisr compare of the written hard fault traces: their hard faults side
// by side per image (the same table twice), within 80 columns, in the text
// and the document; --plot has no histogram to draw and says so.
func TestDPCISRCompareHardFaults(t *testing.T) {
	a, b := etlData+"written-hardfault-64.etl", etlData+"written-hardfault-32.etl"
	code, out, errs := runCLI(t, "dpcisr", "compare", a, b, "--labels", "x64,x86")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{
		"latlab dpcisr compare: hard page faults in x64 vs x86\n\n== hard page faults\nverdict: x64 12 faults, 122.9 kB read, 11.8 ms waited; x86 12 faults,",
		"processes are matched by image name",
		"svchost.exe x64 2000 3 28.7 kB 3550 µs 1920 µs x86 2000 3 28.7 kB 3550 µs 1920 µs app.exe",
	} {
		if !strings.Contains(strings.Join(strings.Fields(out), " "), strings.Join(strings.Fields(want), " ")) {
			t.Errorf("missing %q in\n%s", want, out)
		}
	}
	for i, l := range strings.Split(out, "\n") {
		if n := len([]rune(l)); n > 80 {
			t.Errorf("line %d has %d columns: %q", i+1, n, l)
		}
	}
	code, out, errs = runCLI(t, "dpcisr", "compare", a, b, "--json")
	var doc struct {
		Data struct {
			HardFaults struct {
				Labels []string
				Images []struct {
					Image string
					Runs  []struct{ Faults int64 }
				}
			} `json:"hard_faults"`
		}
	}
	if err := json.Unmarshal([]byte(out), &doc); code != 0 || err != nil {
		t.Fatalf("--json: exit %d %v %s", code, err, errs)
	}
	if h := doc.Data.HardFaults; len(h.Images) != 5 || h.Images[0].Image != "svchost.exe" || len(h.Images[0].Runs) != 2 || h.Images[0].Runs[1].Faults != 3 {
		t.Errorf("--json: %+v", h)
	}
	dir := testutil.TempDir(t)
	code, _, errs = runCLI(t, "dpcisr", "compare", a, b, "--plot", filepath.Join(dir, "p.svg"))
	testutil.CheckBadExit(t, "--plot", code, errs, "no DPC/ISR histogram to plot")
	// An image name from a trace reaches the terminal escaped.
	_, out, _ = runCLI(t, "dpcisr", a, "--json")
	hostile := filepath.Join(dir, "hostile.json")
	if err := os.WriteFile(hostile, []byte(strings.Replace(out, `"image": "app.exe"`, `"image": "app\u001b[2J.exe"`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs = runCLI(t, "dpcisr", "compare", a, hostile)
	if code != 0 || !strings.Contains(out, "\n app"+`\x1b`+"[2J.exe\n") || strings.ContainsRune(out, 0x1b) {
		t.Errorf("escape in an image name: exit %d %s\n%q", code, errs, out)
	}
	// A report without hard faults is named in one line.
	code, out, errs = runCLI(t, "dpcisr", "compare", a, etlData+"written-dpcisr-64.etl")
	if code != 0 || !strings.HasSuffix(out, "\n\nhard page faults: not compared, only in written-hardfault-64.etl (not in\n  written-dpcisr-64.etl)\n") {
		t.Errorf("exit %d %s\n%s", code, errs, out)
	}
}
