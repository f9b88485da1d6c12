package tcpflow

import (
	"context"
	"os"
	"testing"

	"github.com/latlab/latlab/internal/capture"
	"github.com/latlab/latlab/internal/testutil"
)

// BenchmarkRunFile runs the analysis (as the tables do: Top 10) on the
// capture named by LATLAB_BENCH_PCAP, e.g. one from scripts/pcapgen.
// cpu-ns/op counts both stages' CPU time.
func BenchmarkRunFile(b *testing.B) {
	path := os.Getenv("LATLAB_BENCH_PCAP")
	if path == "" {
		b.Skip("LATLAB_BENCH_PCAP names no capture")
	}
	fi, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(fi.Size())
	cpu := testutil.ProcessCPU()
	defer func() { testutil.ReportCPU(b, cpu) }()
	for range b.N {
		f, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		_, err = Run(context.Background(), Options{Stream: -1, Top: 10,
			Scan: func(ctx context.Context, h capture.Handler) (*capture.Stats, error) {
				return capture.Scan(f, capture.ScanOptions{Context: ctx}, h)
			}})
		f.Close()
		if err != nil {
			b.Fatal(err)
		}
	}
}
