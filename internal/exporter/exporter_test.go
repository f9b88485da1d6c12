package exporter

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/latlab/latlab/internal/probe"
	"github.com/latlab/latlab/internal/testutil"
)

func TestParseDuty(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want float64
		err  string
	}{
		{"2%", 0.02, ""},
		{" 0.5% ", 0.005, ""},
		{"0.02", 0.02, ""},
		{"50%", 0.5, ""},
		{"0.1%", 0.001, ""},
		{"0.05%", 0, "accepted 0.1% to 50%"},
		{"60%", 0, "accepted 0.1% to 50%"},
		{"-2%", 0, "accepted 0.1% to 50%"},
		{"NaN", 0, "accepted 0.1% to 50%"},
		{"two", 0, "want a percentage like 2% or a fraction like 0.02"},
		{"", 0, "want a percentage"},
	} {
		got, err := ParseDuty(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseDuty(%q): %v, want an error with %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ParseDuty(%q) = %g, %v; want %g", tc.in, got, err, tc.want)
		}
	}
}

func TestParseProbes(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want string
		err  string
	}{
		{"wake,sleep", "[wake sleep]", ""},
		{"Sleep", "[sleep]", ""},
		{" wake ", "[wake]", ""},
		{"wake,wake", "", "wake is listed twice"},
		{"wake,nap", "", "accepted wake, sleep or wake,sleep"},
		{"", "", "accepted wake, sleep"},
	} {
		got, err := ParseProbes(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseProbes(%q): %v, want an error with %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || fmt.Sprint(got) != tc.want {
			t.Errorf("ParseProbes(%q) = %v, %v; want %s", tc.in, got, err, tc.want)
		}
	}
}

func TestValidate(t *testing.T) {
	bad := testutil.TempDir(t) + "/web.yml"
	for _, tc := range []struct {
		name string
		edit func(*Options)
		err  string
	}{
		{"defaults", func(*Options) {}, ""},
		{"every interface", func(o *Options) { o.Listen = ":9977" }, ""},
		{"ipv6 loopback", func(o *Options) { o.Listen = "[::1]:9977" }, ""},
		{"no port", func(o *Options) { o.Listen = "127.0.0.1" }, "want host:port"},
		{"port", func(o *Options) { o.Listen = "127.0.0.1:http" }, "the port must be a number"},
		{"host name", func(o *Options) { o.Listen = "example.com:9977" }, "the host must be an IP address or localhost"},
		{"interval", func(o *Options) { o.Interval = time.Microsecond }, "invalid --interval 1µs: accepted 10µs to 100ms"},
		{"burst too short", func(o *Options) { o.Interval = 15 * time.Millisecond }, "is a 20ms burst, too short for two 15ms intervals"},
		{"duty", func(o *Options) { o.Duty = 0.9 }, "invalid --duty 90%"},
		{"no probes", func(o *Options) { o.Probes = nil }, "give wake, sleep or both"},
		{"sleep interval", func(o *Options) { o.Interval = 1500 * time.Microsecond },
			"invalid --interval 1.5ms for the sleep probe: sleep takes whole milliseconds; give whole milliseconds or --probes wake"},
		{"cpu", func(o *Options) { o.CPU = 4096 }, "invalid --cpus 4096"},
		{"rtprio", func(o *Options) { o.RTPrio = 100 }, "accepted 0 (normal) or 1-99"},
		{"settings-every", func(o *Options) { o.SettingsEvery = time.Millisecond }, "invalid --settings-every 1ms: accepted 1s to 24h"},
		{"missing web config", func(o *Options) { o.WebConfig = bad }, "invalid --tls-config " + bad},
	} {
		if tc.name == "sleep interval" && probe.SleepMethods()[0] != "sleep" {
			continue // only Windows' Sleep counts whole milliseconds
		}
		t.Run(tc.name, func(t *testing.T) {
			o := Defaults()
			tc.edit(&o)
			err := Validate(o)
			if tc.err == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Fatalf("%v, want an error with %q", err, tc.err)
			}
		})
	}
}

// The window's CPU shares are the sums of CPU over the sum of wall time
// of the last cpuWindow cycles, for the probe thread and the process.
func TestAccountWindow(t *testing.T) {
	var w cpuWin
	if r, rp := w.add(10, 40, 1000); r != 0.01 || rp != 0.04 {
		t.Fatalf("one cycle: %g %g", r, rp)
	}
	for i := 0; i < cpuWindow-1; i++ {
		w.add(30, 60, 1000)
	}
	if r, rp := w.add(30, 60, 1000); r != 0.03 || rp != 0.06 {
		t.Fatalf("after the first cycle left the window: %g %g, want 0.03 0.06", r, rp)
	}
}

// A cycle lasts long enough that the whole process's CPU share over the
// window stays within the duty, not only the probe thread's: the probe
// thread used a tenth of what the process used (issue 30), and the old
// rule, cpu/duty, let the process run at ten times the duty.
func TestCycleLengthBoundsTheProcess(t *testing.T) {
	const cycle, duty = time.Second, 0.02
	ms := func(n int64) int64 { return n * int64(time.Millisecond) }
	full := func(procMs int64) *cpuWin { // a window of 1 s cycles that cost procMs each
		var w cpuWin
		for i := 0; i < cpuWindow; i++ {
			w.add(ms(procMs)/10, ms(procMs), ms(1000))
		}
		return &w
	}
	for _, tc := range []struct {
		name      string
		w         *cpuWin
		cpu, proc int64
		want      time.Duration
	}{
		{"cheap: the cycle", &cpuWin{}, ms(2), ms(5), cycle},
		{"probe thread over the duty", &cpuWin{}, ms(30), ms(30), 1500 * time.Millisecond},
		{"process over the duty, probe thread within", &cpuWin{}, ms(3), ms(30), 1500 * time.Millisecond},
		// 59 cycles at 1% leave 0.59 s of room: 40 ms fits in 1 s
		{"room left in the window", full(10), ms(4), ms(40), cycle},
		// 59 cycles at exactly 2%: this cycle may cost 2% of itself
		{"window full: this cycle alone", full(20), ms(4), ms(30), 1500 * time.Millisecond},
		// 59 cycles at 2.1%: the debt (59 ms of CPU over 59 s) is paid too
		{"window over: the debt is paid", full(21), ms(4), ms(20), 3950 * time.Millisecond},
		{"bounded", full(100), ms(4), ms(20), maxStretch * cycle},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.w.length(cycle, duty, tc.cpu, tc.proc)
			if d := got - tc.want; d < -time.Microsecond || d > time.Microsecond {
				t.Fatalf("length = %v, want %v", got, tc.want)
			}
			if got < maxStretch*cycle {
				old := tc.w.sumProc - tc.w.procNs[tc.w.slot]
				wall := tc.w.sumWall - tc.w.wallNs[tc.w.slot]
				if share := float64(old+tc.proc) / float64(wall+int64(got)); share > duty+1e-9 {
					t.Fatalf("the process's share over the window would be %g > %g", share, duty)
				}
			}
		})
	}
}

func TestHealth(t *testing.T) {
	p := newProber(Defaults(), nil)
	now := time.Unix(1000, 0)
	if ok, msg := p.health(now); ok || !strings.HasPrefix(msg, "starting") {
		t.Errorf("before a cycle: %v %q", ok, msg)
	}
	p.last.Store(now.UnixNano())
	p.cycles.Store(3)
	if ok, msg := p.health(now.Add(time.Second)); !ok || msg != "ok: 3 probe cycles" {
		t.Errorf("after a cycle: %v %q", ok, msg)
	}
	if ok, msg := p.health(now.Add(11 * time.Second)); ok || msg != "no probe cycle has finished for 11s" {
		t.Errorf("stalled: %v %q", ok, msg)
	}
	f := "probe thread: SCHED_FIFO priority 80: operation not permitted"
	p.failure.Store(&f)
	if ok, msg := p.health(now); ok || msg != f {
		t.Errorf("failed: %v %q", ok, msg)
	}
}

func TestHandlerPages(t *testing.T) {
	e, err := New(Defaults())
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(e.Handler())
	defer srv.Close()
	for _, tc := range []struct {
		path, want string
		code       int
	}{
		{"/", `<a href="metrics">metrics</a>`, 200},
		{"/", "a 20ms burst of 1ms intervals every 1s (duty 2%)", 200},
		{"/healthz", "starting", 503},
		{"/metrics", "latlab_probe_duty_ratio 0.02", 200},
		{"/metrics", "go_goroutines", 200},
		{"/nothing", "404", 404},
	} {
		code, body := get(t, srv.URL+tc.path)
		if code != tc.code || !strings.Contains(body, tc.want) {
			t.Errorf("GET %s: %d, want %d with %q:\n%s", tc.path, code, tc.code, tc.want, body)
		}
	}
}

func get(t testing.TB, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<22))
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

// started runs an exporter with o on a loopback port and returns its
// address; the exporter stops when the test ends.
func started(t testing.TB, o Options) (addr string, e *Exporter) {
	t.Helper()
	o.Listen = "127.0.0.1:0"
	ready := make(chan net.Addr, 1)
	o.Ready = func(a net.Addr) { ready <- a }
	e, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- e.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("run: %v", err)
			}
		case <-time.After(30 * time.Second):
			t.Error("the exporter did not stop within 30 s of its context ending")
		}
	})
	select {
	case a := <-ready:
		return a.String(), e
	case err := <-done:
		t.Fatalf("run: %v", err)
	case <-time.After(30 * time.Second):
		t.Fatal("the exporter did not start listening within 30 s")
	}
	return "", nil
}

// waitHealthy polls /healthz until the probe has finished n cycles; the
// bound only keeps a broken exporter from hanging the test.
func waitHealthy(t testing.TB, base string, e *Exporter, n int64) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		code, msg := get(t, base+"/healthz")
		if code == 200 && e.prober.cycles.Load() >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("not healthy after 60 s: %d %s", code, msg)
		}
		time.Sleep(20 * time.Millisecond) // polling, not measuring
	}
}

// fastOptions run short cycles so a test sees several in well under a
// second.
func fastOptions() Options {
	o := Defaults()
	o.Cycle = 50 * time.Millisecond
	o.Duty = 0.2 // a 10 ms burst of 1 ms intervals
	o.SettingsEvery = time.Second
	o.Settings = func(context.Context) ([]Setting, error) {
		return []Setting{{Knob: "tcp-recovery", Value: "1", Verdict: "default"}}, nil
	}
	return o
}

// A running exporter measures with the OS's primitives and serves what
// it measured; the probe thread's CPU share stays within the duty.
func TestRunServesMeasurements(t *testing.T) {
	o := fastOptions()
	addr, e := started(t, o)
	base := "http://" + addr
	waitHealthy(t, base, e, 4)
	code, body := get(t, base+"/metrics")
	if code != 200 {
		t.Fatalf("metrics: %d", code)
	}
	for _, want := range []string{
		"latlab_wake_latency_seconds_count{method=\"" + wakeMethod + "\"}",
		"latlab_sleep_overshoot_seconds_count{method=",
		`latlab_setting_info{knob="tcp-recovery",target="",value="1",verdict="default"} 1`,
		`latlab_probe_overhead_seconds{kind="zero_wait",probe="wake"}`,
		"process_cpu_seconds_total",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("metrics lack %s", want)
		}
	}
	mfs, err := e.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		switch mf.GetName() {
		case "latlab_wake_latency_seconds", "latlab_sleep_overshoot_seconds":
			if n := mf.GetMetric()[0].GetHistogram().GetSampleCount(); n == 0 {
				t.Errorf("%s: no samples after 4 cycles", mf.GetName())
			}
		case "latlab_probe_cpu_ratio", "latlab_process_cpu_ratio":
			// Each cycle lasts until the process's CPU time over the
			// window is within the duty (the probe thread's is part of
			// it), so this holds by construction, not by luck.
			if r := mf.GetMetric()[0].GetGauge().GetValue(); r < 0 || r > o.Duty {
				t.Errorf("%s %g outside 0..%g", mf.GetName(), r, o.Duty)
			}
		}
	}
}

// The probe thread's calibration sets its timer slack to 1 ns for a
// moment, and that thread may be the main thread whose slack the audit
// and the timer metric read: the settings are first read, and the
// endpoint served, after it.
func TestNothingReadsBeforeCalibration(t *testing.T) {
	var e *Exporter
	calibrated := func() bool { return e.prober.calibrated.Load() }
	early := make(chan string, 2)
	read := make(chan struct{}, 1)
	o := fastOptions()
	o.Listen = "127.0.0.1:0"
	o.Settings = func(context.Context) ([]Setting, error) {
		if !calibrated() {
			early <- "the settings were read"
		}
		select {
		case read <- struct{}{}:
		default:
		}
		return nil, nil
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	served := make(chan struct{})
	o.Ready = func(net.Addr) {
		if !calibrated() {
			early <- "the endpoint was served"
		}
		close(served)
	}
	var err error
	if e, err = New(o); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- e.Run(ctx) }()
	select {
	case <-served:
	case err := <-done:
		t.Fatalf("run: %v", err)
	}
	<-read
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	close(early)
	for what := range early {
		t.Errorf("%s before the probe thread was calibrated", what)
	}
}
