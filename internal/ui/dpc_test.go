package ui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/dpcwatch"
	"github.com/latlab/latlab/internal/etw"
)

// The panel lists the drivers with the most time across both sections,
// most first, at most dpcRows of them, with dpc watch's verdict on the
// longest single execution.
func TestDPCPanelFromSummary(t *testing.T) {
	var dpc, isr []dpcwatch.ModuleStat
	for i := range 8 {
		dpc = append(dpc, dpcwatch.ModuleStat{Module: fmt.Sprintf("d%d.sys", i), Count: 10, TotalUs: float64(100 * (i + 1)), MaxUs: float64(10 * (i + 1))})
		isr = append(isr, dpcwatch.ModuleStat{Module: fmt.Sprintf("i%d.sys", i), Count: 5, TotalUs: float64(150 * (i + 1)), MaxUs: float64(1500 - i)})
	}
	// In dpc watch's order, longest execution first (the ISRs' maxima fall
	// from i0 to i7); the panel orders by total time instead.
	s := dpcwatch.Summary{Seconds: 12, DPC: dpc, ISR: isr}
	s.Verdict = dpcwatch.Judge(dpc, isr)
	p := dpcPanel(s)
	if !p.Watching || p.Sections != [2]string{"DPC", "ISR"} || p.Seconds != 12 {
		t.Errorf("panel %+v", p)
	}
	if len(p.Rows) != dpcRows {
		t.Fatalf("%d rows, want %d", len(p.Rows), dpcRows)
	}
	want := []string{"ISR i7.sys 1200", "ISR i6.sys 1050", "ISR i5.sys 900", "DPC d7.sys 800", "ISR i4.sys 750"}
	for i, w := range want {
		if got := fmt.Sprintf("%s %s %.0f", p.Rows[i].Section, p.Rows[i].Module, p.Rows[i].TotalUs); got != w {
			t.Errorf("row %d: %s, want %s", i, got, w)
		}
	}
	// The worst single one: i0.sys's ISR of 1500 µs, over 1 ms.
	if p.Verdict.Level != dpcwatch.LevelWarn || p.Verdict.Module != "i0.sys" || !strings.Contains(p.Verdict.Text, "i0.sys ran an ISR for") {
		t.Errorf("verdict %+v", p.Verdict)
	}

	// A Linux trace's sections name softirqs and hard interrupt handlers.
	l := dpcwatch.Summary{DPC: []dpcwatch.ModuleStat{}, ISR: []dpcwatch.ModuleStat{},
		SoftIRQ: []dpcwatch.ModuleStat{{Module: "TIMER", Count: 3, TotalUs: 9, MaxUs: 4}},
		HardIRQ: []dpcwatch.ModuleStat{{Module: "LOC (local_timer)", Count: 9, TotalUs: 20, MaxUs: 3}}}
	if p := dpcPanel(l); p.Sections != [2]string{"softirq", "hardirq"} || len(p.Rows) != 2 || p.Rows[0].Module != "LOC (local_timer)" {
		t.Errorf("linux panel %+v", p)
	}
}

// Without the watch the panel says why and what adds it.
func TestDPCPanelUnavailable(t *testing.T) {
	for _, c := range []struct {
		err  error
		want string
	}{
		{&etw.AccessError{Op: "dpc watch"}, "not watched: "},
		{&etw.HeldError{Sessions: []string{"NT Kernel Logger"}}, "NT Kernel Logger"},
		{&etw.UnavailableError{Reason: "under Wine"}, "tracing unavailable: under Wine"},
		{etw.ErrUnsupported, "read on Windows and Linux"},
		{fmt.Errorf("tracefs: %w", errTest), "not watched: tracefs: boom"},
	} {
		p := dpcUnavailable(c.err)
		if p.Watching || !strings.Contains(p.Status, c.want) || p.Rows == nil {
			t.Errorf("%v: %+v, want %q", c.err, p, c.want)
		}
	}
	if p := dpcUnavailable(&etw.AccessError{}); !strings.Contains(p.Status, "root") && !strings.Contains(p.Status, "Administrator") {
		t.Errorf("access: %q says nothing of elevation", p.Status)
	}
}

var errTest = fmt.Errorf("boom")
