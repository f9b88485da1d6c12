package dpcisr

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/host"
	"github.com/latlab/latlab/internal/testutil"
)

// The whole capture with a fake xperf: the line before the trace, the
// trace kept, the report written and analysed, the temporary folder gone.
func TestCaptureRun(t *testing.T) {
	dir := testutil.TempDir(t)
	report := readFixture(t, "xperf-dpcisr-keyboard-ps2-vs-usb.txt")
	var calls []string
	var tmp string
	var slept time.Duration
	started := 0
	o := CaptureOptions{
		Seconds: 3, Out: filepath.Join(dir, "out.txt"), Etl: filepath.Join(dir, "kept.etl"), Module: "I8042PRT.SYS",
		Command: func(ctx context.Context, name string, args ...string) ([]byte, error) {
			if started != 1 {
				t.Errorf("%s %v ran with OnStart called %d times", name, args, started)
			}
			calls = append(calls, args[0])
			switch args[0] {
			case "-d":
				tmp = filepath.Dir(args[1])
				return nil, os.WriteFile(args[1], []byte("etl"), 0o644)
			case "-i":
				return nil, os.WriteFile(args[3], []byte(report), 0o644)
			}
			return nil, nil
		},
		Sleep:   func(ctx context.Context, d time.Duration) error { slept = d; return nil },
		OnStart: func() { started++ },
	}
	res, err := o.capture(context.Background(), "xperf")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(calls, " ") != "-on -d -i" || slept != 3*time.Second {
		t.Errorf("calls %v, slept %v", calls, slept)
	}
	if b, _ := os.ReadFile(o.Etl); string(b) != "etl" {
		t.Errorf("kept trace %q", b)
	}
	if b, _ := os.ReadFile(o.Out); string(b) != report {
		t.Error("-o does not hold xperf's report")
	}
	// Wine's NT layer lacks what os.RemoveAll uses: the folder stays
	// there, and only there.
	if _, err := os.Stat(tmp); tmp == "" || !os.IsNotExist(err) && !testutil.UnderWine() {
		t.Errorf("temporary folder %q left: %v", tmp, err)
	} else if err == nil {
		testutil.RemoveTree(tmp)
	}
	if res.File != o.Out || res.Module != o.Module || len(res.Report.Sections[0].Modules) != 2 || res.Report.Sections[0].Modules[0].Module != "i8042prt.sys" {
		t.Errorf("analysis: %+v", res.Result)
	}
	doc := res.Document(host.Facts{})
	if notes := strings.Join(doc.Notes, " "); doc.Kind != Kind.Name() || !strings.Contains(notes, "xperf -on PROC_THREAD+LOADER+DPC+INTERRUPT for 3 s; report in "+o.Out) {
		t.Errorf("document %s, notes %q", doc.Kind, notes)
	}

	// A report that is no report, and a module it lacks, are bad input.
	o.Module = "nosuch.sys"
	if _, err := o.WriteReport([]byte(report)); !badinput.Is(err) || !strings.Contains(err.Error(), `no module "nosuch.sys"`) {
		t.Errorf("unknown module: %v", err)
	}
	if _, err := o.WriteReport(nil); !badinput.Is(err) || !strings.HasPrefix(err.Error(), "xperf's report: ") {
		t.Errorf("empty report: %v", err)
	}
}
