package report

import (
	"bytes"
	"strings"
	"testing"
)

func TestRenderCDF(t *testing.T) {
	panels := []CDFPanel{
		{Title: "DPC ndis.sys", Series: []CDFSeries{
			{Label: "Extreme", X: []float64{1, 2, 4, 8, 16}, Y: []float64{0.4, 6.9, 37.6, 81.7, 100}},
			{Label: "Off", X: []float64{1, 2, 4, 8}, Y: []float64{4.5, 53.1, 90.8, 100}},
		}},
		{Title: "ISR ndis.sys", Series: []CDFSeries{{Label: "Extreme", X: []float64{2}, Y: []float64{100}}}},
	}
	b, err := RenderCDF(panels, "png")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")) {
		t.Error("not a PNG")
	}
	b, err = RenderCDF(panels, "svg")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<svg", "DPC ndis.sys", "ISR ndis.sys", "Extreme", "Off", "execution time at most"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("the SVG lacks %q", want)
		}
	}
	if _, err := RenderCDF(panels, "pdf"); err == nil {
		t.Error("pdf accepted")
	}
	if _, err := RenderCDF([]CDFPanel{{Title: "empty"}}, "svg"); err == nil {
		t.Error("empty panel accepted")
	}
	if _, err := RenderCDF(nil, "svg"); err == nil {
		t.Error("no panels accepted")
	}
}

// Twelve powers of two: the labels alternate, the highest bound labelled,
// so 2048 and 4096 do not print over each other.
func TestRenderCDFThinsLabels(t *testing.T) {
	pn := []CDFPanel{{Title: "DPC", Series: []CDFSeries{{Label: "a", X: []float64{1, 4096}, Y: []float64{50, 100}}}}}
	b, err := RenderCDF(pn, "svg")
	if err != nil {
		t.Fatal(err)
	}
	svg := string(b)
	for _, l := range []string{">4096<", ">1024<", ">4<"} {
		if !strings.Contains(svg, l) {
			t.Errorf("label %s missing", l)
		}
	}
	for _, l := range []string{">2048<", ">512<", ">2<"} {
		if strings.Contains(svg, l) {
			t.Errorf("label %s kept", l)
		}
	}
}
