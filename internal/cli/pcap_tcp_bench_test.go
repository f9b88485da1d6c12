package cli

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/latlab/latlab/internal/testutil"
)

// shortCapture returns a capture of short connections from
// scripts/pcapgen (as scripts/bench-pcap-tcp makes them), size bytes of
// it, or the capture LATLAB_BENCH_PCAP names.
func shortCapture(tb testing.TB, size string) string {
	if p := os.Getenv("LATLAB_BENCH_PCAP"); p != "" {
		return p
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		tb.Skip("needs the go command to run scripts/pcapgen")
	}
	path := filepath.Join(testutil.TempDir(tb), "short.pcap")
	gen := exec.Command(gobin, "run", "./scripts/pcapgen", "-o", path, "-size", size, "-seed", "1",
		"-active", "200", "-conn-bytes", "3000", "-gap", "200us")
	gen.Dir = "../.."
	if out, err := gen.CombinedOutput(); err != nil {
		tb.Fatalf("pcapgen: %v\n%s", err, out)
	}
	return path
}

// BenchmarkPcapTCP is `pcap tcp` on a capture of thousands of short
// connections, with the tables and with --json: the document's cost
// (package result's streamed JSON) is the difference (scripts/bench-pcap-tcp's goal: --json at >= 0.6x the
// tables' speed), written to a file; cpu-ns/op counts every goroutine's CPU time.
func BenchmarkPcapTCP(b *testing.B) {
	capture := shortCapture(b, "20MB")
	st, err := os.Stat(capture)
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name string
		args []string
	}{
		{"tables", []string{"pcap", "tcp", capture}},
		{"json", []string{"pcap", "tcp", capture, "--json"}},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(st.Size())
			// The output goes to a file, as the script's does: writing
			// the document is part of its cost.
			out, err := os.Create(filepath.Join(testutil.TempDir(b), "out"))
			if err != nil {
				b.Fatal(err)
			}
			defer out.Close()
			cpu := testutil.ProcessCPU()
			for b.Loop() {
				if err := out.Truncate(0); err != nil {
					b.Fatal(err)
				}
				if _, err := out.Seek(0, io.SeekStart); err != nil {
					b.Fatal(err)
				}
				if code := Run(context.Background(), c.args, &IO{Out: out, Err: io.Discard}); code != 0 {
					b.Fatalf("exit %d", code)
				}
			}
			testutil.ReportCPU(b, cpu)
		})
	}
}
