package exporter

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/latlab/latlab/internal/probe"
)

// BenchmarkCPUShare runs the exporter as `latlab exporter` does by
// default (both probes, 2% duty, 1 s cycles) and reports the whole
// process's CPU time over wall time as measured here (%cpu, of one CPU;
// the goal is at most 2, the duty), the whole process's share as the
// exporter exports it and bounds it by the duty (%cpu-process,
// latlab_process_cpu_ratio) and the probe thread's own share
// (%cpu-probe, latlab_probe_cpu_ratio). One op is one cycle: -benchtime
// 60x measures a minute.
func BenchmarkCPUShare(b *testing.B) {
	o := Defaults()
	o.Settings = func(context.Context) ([]Setting, error) {
		return []Setting{{Knob: "tcp-recovery", Value: "1", Verdict: "default"}}, nil
	}
	addr, e := started(b, o)
	waitHealthy(b, "http://"+addr, e, 1) // past the calibration
	start := e.prober.cycles.Load()
	cpu0, t0 := processCPU(), time.Now()
	b.ResetTimer()
	for e.prober.cycles.Load() < start+int64(b.N) {
		time.Sleep(50 * time.Millisecond) // waiting for cycles, not measuring them
	}
	b.StopTimer()
	cpu, wall := processCPU()-cpu0, time.Since(t0)
	b.ReportMetric(100*cpu.Seconds()/wall.Seconds(), "%cpu")
	b.ReportMetric(100*e.prober.lastProcessRatio(), "%cpu-process")
	b.ReportMetric(100*e.prober.lastRatio(), "%cpu-probe")
}

// BenchmarkScrape times one scrape of /metrics over loopback HTTP, in the
// text format and in the protobuf format that carries the native
// histograms, after a day of samples at the default duty.
func BenchmarkScrape(b *testing.B) {
	o := Defaults()
	o.Settings = func(context.Context) ([]Setting, error) {
		ss := make([]Setting, 40)
		for i := range ss {
			ss[i] = Setting{Knob: "irq-affinity", Target: "IRQ " + string(rune('A'+i)), Value: "0-1", Verdict: "default"}
		}
		return ss, nil
	}
	e, err := New(o)
	if err != nil {
		b.Fatal(err)
	}
	if err := e.settings.refresh(context.Background(), time.Now()); err != nil {
		b.Fatal(err)
	}
	// A day of 1 ms wake-ups at 2% duty, alternating with sleeps: ~860k
	// samples each, spread over 2 µs..20 ms.
	lat := make([]int64, 1000)
	for i := range lat {
		lat[i] = 2_000 << (i % 14)
	}
	for i := 0; i < 864; i++ {
		e.metrics.observeWake(lat, 0)
		e.metrics.observeSleep(lat)
	}
	e.metrics.setOverhead(ProbeWake, probe.Overhead{ClockReadP50Ns: 20, ZeroWaitP50Ns: 1500})
	srv := httptest.NewServer(e.Handler())
	defer srv.Close()
	for _, f := range []struct{ name, accept string }{
		{"text", "text/plain;version=0.0.4"},
		{"protobuf", "application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited"},
	} {
		b.Run(f.name, func(b *testing.B) {
			req, _ := http.NewRequest("GET", srv.URL+"/metrics", nil)
			req.Header.Set("Accept", f.accept)
			var n int64
			for b.Loop() {
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					b.Fatal(err)
				}
				n, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
			b.ReportMetric(float64(n), "bytes/scrape")
		})
	}
}
