package report

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/testutil"
)

func TestCDFPlot(t *testing.T) {
	dir := testutil.TempDir(t)
	panels := []CDFPanel{
		{Title: "DPC ndis.sys", Series: []CDFSeries{
			{Label: "Extreme", X: []float64{1, 2, 4, 8, 16}, Y: []float64{0.4, 6.9, 37.6, 81.7, 100}},
			{Label: "Off", X: []float64{1, 2, 4, 8}, Y: []float64{4.5, 53.1, 90.8, 100}},
		}},
		{Title: "ISR ndis.sys", Series: []CDFSeries{{Label: "Extreme", X: []float64{2}, Y: []float64{100}}}},
	}
	png := dir + "/cdf.png"
	if err := CDFPlot(png, panels); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(png)
	if !bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")) {
		t.Error("not a PNG")
	}
	svg := dir + "/cdf.SVG"
	if err := CDFPlot(svg, panels); err != nil {
		t.Fatal(err)
	}
	b, _ = os.ReadFile(svg)
	if !strings.Contains(string(b), "<svg") || !strings.Contains(string(b), "ISR ndis.sys") {
		t.Error("not the SVG")
	}
	if err := CDFPlot(dir+"/x.pdf", panels); err == nil {
		t.Error("pdf accepted")
	}
	if err := CDFPlot(dir+"/x.svg", []CDFPanel{{Title: "empty"}}); err == nil {
		t.Error("empty panel accepted")
	}
}
