package try

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/latlab/latlab/internal/compare"
	"github.com/latlab/latlab/internal/probe"
	"github.com/latlab/latlab/internal/result"
	"github.com/latlab/latlab/internal/stats"
)

// A try document is an outside file: whatever it holds, turning it into
// arms and comparing them returns an error or a comparison, never a
// panic.
func FuzzCompareTryArms(f *testing.F) {
	for _, name := range []string{"try.json", "try-noise.json", "try-noise-cpus.json", "try-dpcisr.json"} {
		b, err := os.ReadFile(filepath.Join("..", "compare", "testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		doc, err := result.Read(bytes.NewReader(b))
		if err != nil || doc.Kind != Kind.Name() {
			return
		}
		in, err := CompareInputs("t.json", doc, nil)
		if err != nil {
			return
		}
		compare.Compare(in, compare.Options{By: stats.Quantile(50), Seed: 1, Replicates: 20})
	})
}

// The figures of a noise try's blocks are the document's to claim: any
// count, kept count, runtime, noise and number of lengths in a block is
// refused or compared, never a panic or a sum that overflows into a
// plausible figure.
func FuzzArmNoiseDocument(f *testing.F) {
	f.Add(uint8(0), uint8(1), int64(60), int64(60), int64(1e9), int64(100000), uint16(60))
	f.Add(uint8(3), uint8(0), int64(-1), int64(0), int64(1<<62), int64(0), uint16(0))
	f.Add(uint8(7), uint8(1), int64(1<<40), int64(1<<40), int64(1<<40), int64(-5), uint16(9))
	b, err := os.ReadFile(filepath.Join("..", "compare", "testdata", "try-noise-cpus.json"))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, block, cpu uint8, count, kept, runtime, noise int64, lengths uint16) {
		doc, err := result.Read(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		d, _ := Kind.Of(doc)
		blk := &d.Runs[int(block)%len(d.Runs)]
		rec := &blk.NoiseCPUs[int(cpu)%len(blk.NoiseCPUs)]
		rec.Count, rec.Kept, rec.RuntimeNs, rec.NoiseNs = count, kept, runtime, noise
		if n := int(lengths); n < len(blk.Samples) {
			blk.Samples = blk.Samples[:n]
		}
		in, err := CompareInputs("t.json", doc, nil)
		if err != nil {
			return
		}
		for _, x := range in {
			nd, _ := probe.KindNoise.Of(x.Doc)
			for _, c := range nd.CPUs {
				if c.RuntimeNs <= 0 || c.Count < 0 || c.Count > c.RuntimeNs || c.Kept > c.Count || c.NoiseNs < 0 || c.NoiseNs > c.RuntimeNs {
					t.Fatalf("%s: CPU %d: %d interruptions, %d kept, %d ns of noise, in %d ns", x.Label, c.CPU, c.Count, c.Kept, c.NoiseNs, c.RuntimeNs)
				}
			}
		}
		compare.Compare(in, compare.Options{By: stats.Quantile(50), Seed: 1, Replicates: 20})
	})
}
