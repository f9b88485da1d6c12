// Package dpcwatchtest holds the synthetic watch results that the tests of
// several packages print, write and read, so that they check one fixture.
// Only tests import it.
package dpcwatchtest

import (
	"github.com/latlab/latlab/internal/dpcwatch"
	"github.com/latlab/latlab/internal/etw"
)

// Freq is the synthetic trace's QPC frequency: ticks a second, 0.1 µs each.
const Freq = 10_000_000

// WindowsResult is a finished watch over a synthetic driver table:
// ndis.sys with a 2.5 ms DPC, a module with a long name, an ISR of
// USBPORT.SYS; 0.5 s, 801 DPCs and 400 ISRs.
func WindowsResult() *dpcwatch.Result {
	mods := etw.NewModules([]etw.Module{
		{Name: "ndis.sys", Base: 0xfffff80400300000, Size: 0x2000},
		{Name: "a-very-long-vendor-driver-name-x64.sys", Base: 0xfffff80400400000, Size: 0x1000},
		{Name: "USBPORT.SYS", Base: 0xfffff80400500000, Size: 0x1000},
	})
	r := dpcwatch.NewRecorder(Freq, 0, mods)
	add := func(kind etw.Kind, routine uint64, endUs, dUs int64) {
		r.Add(etw.Execution{Kind: kind, Routine: routine, Start: (endUs - dUs) * 10, End: endUs * 10, CPU: uint16(endUs % 2)})
	}
	for i := int64(1); i <= 400; i++ {
		add(etw.KindDPC, 0xfffff80400300010, i*1000, 1+i%6)
		add(etw.KindDPC, 0xfffff80400400010, i*1000+500, 2)
		add(etw.KindISR, 0xfffff80400500010, i*1000+700, 1)
	}
	add(etw.KindDPC, 0xfffff80400300010, 450_000, 2500)
	now := int64(500_000 * 10)
	return &dpcwatch.Result{Session: "latlab dpc watch", Report: r.Report(now), Summary: r.Summary(now)}
}
