package report

import (
	"bytes"
	"context"
	"testing"

	"github.com/sebdah/goldie/v2"

	"github.com/latlab/latlab/internal/dpcisr"
)

// The text of dpcisr and dpcisr compare, at full width and at 80
// columns (COLUMNS=80), against testdata/dpcisr-*.golden: what the
// commands printed for these fixtures (../dpcisr/testdata/README.md)
// before the text moved into this package.
func TestDPCISRTextGolden(t *testing.T) {
	ctx := context.Background()
	const data = "../dpcisr/testdata/"
	for _, c := range []struct {
		golden, file, module string
		cols                 int
	}{
		{"dpcisr-text-written-layout", "xperf-dpcisr-written-layout.txt", "", 0},
		{"dpcisr-text-watch-80", "watch-synthetic.json", "ndis.sys", 80},
	} {
		res, err := dpcisr.Run(ctx, dpcisr.Options{File: data + c.file, Module: c.module})
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		DPCISRText(WithWidth(&b, c.cols), res)
		goldie.New(t).Assert(t, c.golden, b.Bytes())
	}

	cmp, err := dpcisr.RunCompare(ctx, dpcisr.CompareOptions{
		Files:  []string{data + "xperf-dpcisr-im-extreme.txt", data + "xperf-dpcisr-im-off.txt"},
		Labels: []string{"Extreme", "Off"}, Module: "ndis.sys",
	})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	DPCISRCompareText(&b, cmp)
	goldie.New(t).Assert(t, "dpcisr-compare-ndis", b.Bytes())
}

// The CDF panels end at the last bounded bucket, at 100% for each run.
func TestDPCISRComparePanels(t *testing.T) {
	const data = "../dpcisr/testdata/"
	cmp, err := dpcisr.RunCompare(context.Background(), dpcisr.CompareOptions{
		Files: []string{data + "xperf-dpcisr-im-extreme.txt", data + "xperf-dpcisr-im-off.txt"}, Module: "ndis.sys",
	})
	if err != nil {
		t.Fatal(err)
	}
	ps := DPCISRComparePanels(cmp)
	if len(ps) != 2 || ps[0].Title != "DPC ndis.sys" || ps[1].Title != "ISR ndis.sys" || len(ps[0].Series) != 2 {
		t.Fatalf("%+v", ps)
	}
	for _, p := range ps {
		for _, s := range p.Series {
			if len(s.X) == 0 || len(s.X) != len(s.Y) || s.X[0] <= 0 {
				t.Errorf("%s %s: %v %v", p.Title, s.Label, s.X, s.Y)
				continue
			}
			for i := 1; i < len(s.X); i++ {
				if s.X[i] <= s.X[i-1] || s.Y[i] < s.Y[i-1] {
					t.Errorf("%s %s: not ascending at %d: %v %v", p.Title, s.Label, i, s.X, s.Y)
				}
			}
		}
	}
}
