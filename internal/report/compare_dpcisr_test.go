package report

import (
	"bytes"
	"context"
	"html"
	"path/filepath"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/compare"
	"github.com/latlab/latlab/internal/dpcisr"
	"github.com/latlab/latlab/internal/host"
	"github.com/latlab/latlab/internal/try"
)

// The HTML report of the comparison of a dpcisr try's arms shows the
// verdict of each section and the arms' shares at or below each bound,
// not an empty ranking.
func TestCompareDPCISRInHTMLReport(t *testing.T) {
	r, err := compare.Run(context.Background(), compare.RunOptions{Files: []string{filepath.Join("..", "compare", "testdata", "try-dpcisr.json")},
		By: "p50", Seed: 1, Detect: 0.05, Arms: map[string]compare.Arms{try.Kind.Name(): try.CompareInputs}})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := BuildReport([]ReportInput{{Label: "cmp.json", Doc: compare.Kind.New(host.Facts{}, r)}}, "r")
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := rep.WriteHTML(&b); err != nil {
		t.Fatal(err)
	}
	h := b.String()
	esc := func(s string) string { return strings.ReplaceAll(html.EscapeString(s), "+", "&#43;") } // as html/template writes it
	for _, want := range []string{esc(r.DPCISR.Sections[0].Verdict), "DPC of ndis.sys: share of executions at or below each bound",
		"try-dpcisr.json[off]", "57.14%", "85.71%"} {
		if !strings.Contains(h, want) {
			t.Errorf("page lacks %q", want)
		}
	}
}

// A Linux trace's sections are softirqs and hard interrupt handlers, and
// the heading says so.
func TestCompareDPCISRTextLinuxHeading(t *testing.T) {
	r, err := compare.Run(context.Background(), compare.RunOptions{Files: []string{filepath.Join("..", "compare", "testdata", "try-dpcisr.json")},
		By: "p50", Seed: 1, Detect: 0.05, Arms: map[string]compare.Arms{try.Kind.Name(): try.CompareInputs}})
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{dpcisr.DPC: "latlab compare: DPC/ISR execution times of ndis.sys, 2 runs;",
		dpcisr.SoftIRQ: "latlab compare: softirq and interrupt handler times of ndis.sys, 2 runs;"} {
		r.DPCISR.Sections[0].Name = name
		var b bytes.Buffer
		CompareText(&b, r)
		if !strings.HasPrefix(b.String(), want) {
			t.Errorf("%s: %q", name, b.String()[:80])
		}
	}
}
