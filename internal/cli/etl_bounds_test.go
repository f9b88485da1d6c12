package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/testutil"
)

// A trace's own text reaches the terminal with its control characters
// escaped: a logger name holding ESC, BEL and CR cannot drive the
// terminal. JSON escapes them as JSON does.
func TestETLTraceTextIsEscapedForTheTerminal(t *testing.T) {
	b, err := os.ReadFile(etlData + "lxcore_kernel.etl")
	if err != nil {
		t.Fatal(err)
	}
	name := []byte{}
	for _, c := range "lxcore_kernel" { // the logger name, UTF-16LE
		name = append(name, byte(c), 0)
	}
	i := bytes.Index(b, name)
	if i < 0 {
		t.Fatal("the fixture's logger name is not where this test expects it")
	}
	copy(b[i:], []byte{0x1b, 0, '[', 0, '2', 0, 'J', 0, 7, 0, '\r', 0})
	path := filepath.Join(testutil.TempDir(t), "escape.etl")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runCLI(t, "etl", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if strings.ContainsAny(out, "\x1b\a\r") || !strings.Contains(out, `logger    \x1b[2J\x07\x0d`) {
		t.Errorf("output:\n%q", out)
	}
	code, out, _ = runCLI(t, "etl", "--json", path)
	if code != 0 || !strings.Contains(out, `"logger_name": "\u001b[2J\u0007\r`) {
		t.Errorf("exit %d, JSON:\n%s", code, out)
	}
}

// One Ctrl-C stops the read of a trace: etl and dpcisr write what was
// read, marked interrupted, and exit 130 (dpcisr once ignored it).
func TestETLReadsStopAtCtrlC(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	run := func(args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		code := Run(ctx, args, &IO{In: strings.NewReader(""), Out: &out, Err: &errb})
		return code, out.String(), errb.String()
	}
	code, out, errs := run("etl", etlData+"written-dpcisr-64.etl")
	if code != 130 || !strings.Contains(out, "interrupted after 0 buffers") {
		t.Errorf("etl: exit %d, %s%s", code, out, errs)
	}
	code, out, _ = run("etl", "--json", etlData+"written-dpcisr-64.etl")
	if code != 130 || !strings.Contains(out, `"interrupted": true`) {
		t.Errorf("etl --json: exit %d, %s", code, out)
	}
	code, out, errs = run("dpcisr", etlData+"written-dpcisr-64.etl")
	if code != 130 || !strings.Contains(errs, "interrupted while reading its kernel images") {
		t.Errorf("dpcisr: exit %d, %s%s", code, out, errs)
	}
}

// dpcisr says "no DPC or ISR events" of a trace only when there are none:
// a trace with unreadable buffers says which and why.
func TestDPCISRNamesUnreadableBuffers(t *testing.T) {
	b, err := os.ReadFile(etlData + "lxcore_kernel.etl")
	if err != nil {
		t.Fatal(err)
	}
	b[2*8192+0x48+2] = 0x7f // the third buffer's first event: an unknown header type
	path := filepath.Join(testutil.TempDir(t), "damaged.etl")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errs := runCLI(t, "dpcisr", path)
	testutil.CheckBadExit(t, "a trace with a damaged buffer", code, errs, "no DPC or ISR events in the buffers read, and 1 of its buffers could not be read")
	if !strings.Contains(errs, "event at offset 16456") {
		t.Errorf("the damaged event is not named: %s", errs)
	}
	code, out, _ := runCLI(t, "etl", path)
	if code != 0 || !strings.Contains(out, "1 of its buffers could not be") {
		t.Errorf("etl: exit %d: %s", code, out)
	}
}
