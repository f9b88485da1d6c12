package report

import (
	"bytes"
	"strings"
	"testing"
)

func TestTCPGraphPlot(t *testing.T) {
	g := TCPGraph{Title: "10 MB to peer",
		Windows: []Series{{Name: "cwnd", X: []float64{0, 1, 2}, Y: []float64{10, 20, 15}}, {Name: "ssthresh"}},
		RTT:     []Series{{Name: "smoothed RTT", X: []float64{0, 1, 2}, Y: []float64{80, 90, 85}}},
		Retrans: []float64{1.5}}
	svg, err := TCPGraphPlot(g, "svg")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<svg", "cwnd", "smoothed RTT", "retransmission", "RTT (µs)"} {
		if !strings.Contains(string(svg), want) {
			t.Errorf("SVG lacks %q", want)
		}
	}
	if strings.Contains(string(svg), "ssthresh") {
		t.Error("an empty series is in the legend")
	}
	png, err := TCPGraphPlot(g, "png")
	if err != nil || !bytes.HasPrefix(png, []byte("\x89PNG")) {
		t.Fatalf("png: %v", err)
	}
	if _, err := TCPGraphPlot(g, "gif"); err == nil {
		t.Fatal("gif accepted")
	}
}

func TestCPUBarsPlot(t *testing.T) {
	svg, err := CPUBarsPlot("work per CPU", "count", []int{0, 1, 2}, []BarGroup{{Name: "game", Values: []float64{1, 2, 3}}, {Name: "bulk", Values: []float64{4, 5}}}, "svg")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<svg", "work per CPU", "game", "bulk"} {
		if !strings.Contains(string(svg), want) {
			t.Errorf("SVG lacks %q", want)
		}
	}
	if _, err := CPUBarsPlot("t", "count", []int{0}, nil, "svg"); err == nil {
		t.Fatal("no groups accepted")
	}
}
