// Package exporter serves latlab's measurements as Prometheus metrics:
// low-duty wake-up and sleep probes run continuously on one prepared
// thread, and the timer state and the audited latency settings are read
// periodically. Prometheus (or anything that scrapes its format) does the
// collecting across machines; this package only exposes one machine.
package exporter

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/exporter-toolkit/web"

	"github.com/latlab/latlab/internal/probe"
	"github.com/latlab/latlab/internal/sched"
	"github.com/latlab/latlab/internal/timer"
	"github.com/latlab/latlab/internal/units"
)

// Defaults of `latlab exporter`.
const (
	DefaultListen        = "127.0.0.1:9977"
	DefaultInterval      = time.Millisecond
	DefaultDuty          = 0.02
	DefaultCycle         = time.Second
	DefaultSettingsEvery = 60 * time.Second
)

// Bounds of the options.
const (
	MinDuty          = 0.001
	MaxDuty          = 0.5
	MinInterval      = 10 * time.Microsecond
	MaxInterval      = 100 * time.Millisecond
	MinSettingsEvery = time.Second
	MaxSettingsEvery = 24 * time.Hour
)

// Probes the exporter can run.
const (
	ProbeWake  = "wake"
	ProbeSleep = "sleep"
)

// Options configure the exporter.
type Options struct {
	Listen        string        // host:port
	Interval      time.Duration // wake-up period and sleep length inside a burst
	Duty          float64       // share of each cycle spent measuring
	Probes        []string      // ProbeWake, ProbeSleep
	CPU           int           // the probe thread's CPU; -1 = not pinned
	RTPrio        int           // SCHED_FIFO priority (Windows: realtime class); 0 = normal
	SettingsEvery time.Duration
	WebConfig     string // exporter-toolkit web configuration file (TLS, basic auth)
	// MaxConns bounds the HTTP connections open at once (0:
	// DefaultMaxConns); IdleTimeout closes idle keep-alive connections
	// (0: DefaultIdleTimeout).
	MaxConns    int
	IdleTimeout time.Duration
	// Settings reads the audited settings; nil leaves latlab_setting_info
	// out.
	Settings SettingsFunc
	// Cycle is the period of one burst and the pause after it; 0 means
	// DefaultCycle. Tests and benchmarks shorten it.
	Cycle time.Duration
	// Logger receives start, stop and failures; nil discards them.
	Logger *slog.Logger
	// Ready, when set, is called with the address being served once the
	// listener is open.
	Ready func(addr net.Addr)
	// Observe, when set, receives each burst's samples after the burst
	// (wake: latencies; sleep: slept times, ns) and the wake-ups missed.
	// It runs on the probe thread between bursts and must not keep
	// samples: the buffer is reused.
	Observe func(probe string, samples []int64, overruns int64)
}

// Defaults returns the options of a plain `latlab exporter`.
func Defaults() Options {
	return Options{
		Listen: DefaultListen, Interval: DefaultInterval, Duty: DefaultDuty,
		Probes: []string{ProbeWake, ProbeSleep}, CPU: -1, SettingsEvery: DefaultSettingsEvery,
	}
}

// ParseDuty reads a duty cycle as a percentage ("2%") or a fraction
// ("0.02").
func ParseDuty(s string) (float64, error) {
	t := strings.TrimSpace(s)
	pct := strings.HasSuffix(t, "%")
	v, err := strconv.ParseFloat(strings.TrimSuffix(t, "%"), 64)
	if err != nil {
		return 0, fmt.Errorf("invalid --duty %q: want a percentage like 2%% or a fraction like 0.02", s)
	}
	if pct {
		v /= 100
	}
	if !(v >= MinDuty && v <= MaxDuty) {
		return 0, fmt.Errorf("invalid --duty %q: accepted %g%% to %g%%", s, MinDuty*100, MaxDuty*100)
	}
	return v, nil
}

// ParseProbes reads a comma-separated probe list such as "wake,sleep".
func ParseProbes(s string) ([]string, error) {
	var out []string
	for _, p := range strings.Split(s, ",") {
		p = strings.ToLower(strings.TrimSpace(p))
		if p != ProbeWake && p != ProbeSleep {
			return nil, fmt.Errorf("invalid --probes %q: accepted wake, sleep or wake,sleep", s)
		}
		for _, q := range out {
			if q == p {
				return nil, fmt.Errorf("invalid --probes %q: %s is listed twice", s, p)
			}
		}
		out = append(out, p)
	}
	return out, nil
}

// Validate checks the options before anything starts; its errors are bad
// input.
func Validate(o Options) error {
	host, port, err := net.SplitHostPort(o.Listen)
	if err != nil {
		return fmt.Errorf("invalid --listen %q: want host:port, e.g. %s or :9977 for every interface", o.Listen, DefaultListen)
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return fmt.Errorf("invalid --listen %q: the port must be a number 0-65535", o.Listen)
	}
	if host != "" && net.ParseIP(host) == nil && host != "localhost" {
		return fmt.Errorf("invalid --listen %q: the host must be an IP address or localhost", o.Listen)
	}
	if o.Interval < MinInterval || o.Interval > MaxInterval {
		return fmt.Errorf("invalid --interval %s: accepted %s to %s", units.FlagDuration(o.Interval), units.FlagDuration(MinInterval), units.FlagDuration(MaxInterval))
	}
	if !(o.Duty >= MinDuty && o.Duty <= MaxDuty) {
		return fmt.Errorf("invalid --duty %g%%: accepted %g%% to %g%%", o.Duty*100, MinDuty*100, MaxDuty*100)
	}
	if burst := o.burst(); burst < 2*o.Interval {
		return fmt.Errorf("--duty %g%% of a %v cycle is a %v burst, too short for two %v intervals: raise --duty or shorten --interval",
			o.Duty*100, o.cycle(), burst, o.Interval)
	}
	if len(o.Probes) == 0 {
		return errors.New("invalid --probes: give wake, sleep or both")
	}
	for _, p := range o.Probes {
		method := probe.SleepMethods()[0]
		so := probe.SleepOptions{Duration: o.Interval, Samples: 1, Method: method}
		if p == ProbeSleep && so.Validate() != nil {
			// Windows: kernel32 Sleep counts whole milliseconds.
			return fmt.Errorf("invalid --interval %v for the sleep probe: %s takes whole milliseconds; give whole milliseconds or --probes wake", o.Interval, method)
		}
	}
	if o.CPU < -1 || o.CPU >= sched.NumCPU() {
		return fmt.Errorf("invalid --cpus %d: this machine has CPUs 0-%d", o.CPU, sched.NumCPU()-1)
	}
	if o.RTPrio < 0 || o.RTPrio > sched.MaxRTPrio {
		return fmt.Errorf("invalid --rtprio %d: accepted 0 (normal) or 1-99", o.RTPrio)
	}
	if o.SettingsEvery < MinSettingsEvery || o.SettingsEvery > MaxSettingsEvery {
		return fmt.Errorf("invalid --settings-every %s: accepted %s to %s", units.FlagDuration(o.SettingsEvery), units.FlagDuration(MinSettingsEvery), units.FlagDuration(MaxSettingsEvery))
	}
	if o.MaxConns < 0 {
		return fmt.Errorf("invalid --max-conns %d: want 1 or more (0: %d)", o.MaxConns, DefaultMaxConns)
	}
	if o.IdleTimeout < 0 {
		return fmt.Errorf("invalid idle timeout %v: want a positive duration", o.IdleTimeout)
	}
	if o.WebConfig != "" {
		if err := checkWebConfigOwner(o.WebConfig); err != nil {
			return err
		}
		if err := web.Validate(o.WebConfig); err != nil {
			return fmt.Errorf("invalid --tls-config %s: %v", o.WebConfig, err)
		}
	}
	return nil
}

func (o Options) idleTimeout() time.Duration {
	if o.IdleTimeout > 0 {
		return o.IdleTimeout
	}
	return DefaultIdleTimeout
}

func (o Options) cycle() time.Duration {
	if o.Cycle > 0 {
		return o.Cycle
	}
	return DefaultCycle
}

// burst is how long each cycle measures.
func (o Options) burst() time.Duration {
	return time.Duration(float64(o.cycle()) * o.Duty)
}

func (o Options) logger() *slog.Logger {
	if o.Logger != nil {
		return o.Logger
	}
	return slog.New(slog.DiscardHandler)
}

// Exporter is a running exporter's state: its registry and the pieces
// that feed it.
type Exporter struct {
	o        Options
	reg      *prometheus.Registry
	metrics  *metrics
	prober   *prober
	settings *settingsCollector
}

// New builds an exporter: the registry with every collector, nothing
// started.
func New(o Options) (*Exporter, error) {
	if err := Validate(o); err != nil {
		return nil, err
	}
	e := &Exporter{o: o, reg: prometheus.NewRegistry()}
	e.metrics = newMetrics(o)
	e.prober = newProber(o, e.metrics)
	e.settings = newSettingsCollector(o.Settings)
	cs := []prometheus.Collector{
		e.metrics, newTimerCollector(timer.Query, timerCacheFor(o.SettingsEvery)),
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
	}
	if o.Settings != nil {
		cs = append(cs, e.settings)
	}
	for _, c := range cs {
		if err := e.reg.Register(c); err != nil {
			return nil, fmt.Errorf("register metrics: %w", err)
		}
	}
	return e, nil
}

// Probe runs the probes alone, without the HTTP server or the settings
// reader, until ctx ends: o.Observe receives every burst. The live view
// (latlab ui) measures this way, at the exporter's duty.
func Probe(ctx context.Context, o Options) error {
	if o.Listen == "" {
		o.Listen = DefaultListen // never opened; Validate wants one
	}
	if err := Validate(o); err != nil {
		return err
	}
	return newProber(o, newMetrics(o)).run(ctx)
}

// Registry is the exporter's registry, for tests and benchmarks.
func (e *Exporter) Registry() *prometheus.Registry { return e.reg }

// Run serves until ctx ends: the probes on their thread, the settings
// reader, and the HTTP server. It returns the first failure, or nil
// after ctx ends.
func Run(ctx context.Context, o Options) error {
	e, err := New(o)
	if err != nil {
		return err
	}
	return e.Run(ctx)
}

// Run starts the exporter's work and serves until ctx ends.
func (e *Exporter) Run(ctx context.Context) error {
	log := e.o.logger()
	webDir, err := os.MkdirTemp("", "latlab-exporter-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(webDir)
	webConfig, err := effectiveWebConfig(e.o.WebConfig, webDir)
	if err != nil {
		return err
	}
	if webConfig != e.o.WebConfig {
		log.Info("basic auth without a rate_limit: exporter-toolkit's limiter is on", "interval", authRateInterval.String(), "burst", authRateBurst)
	}
	if w := ExposureWarning(e.o); w != "" {
		log.Warn(w)
	}
	l, err := net.Listen("tcp", e.o.Listen)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", e.o.Listen, err)
	}
	maxConns := e.o.MaxConns
	if maxConns == 0 {
		maxConns = DefaultMaxConns
	}
	l = newConnLimiter(l, maxConns)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errs := make(chan error, 2)
	go func() { errs <- e.prober.run(ctx) }()
	// Serve and read the settings once the probe thread is calibrated
	// (see prober.ready), or not at all when it cannot start.
	select {
	case <-e.prober.ready:
	case err := <-errs:
		l.Close()
		if err != nil {
			log.Error("latlab exporter failed", "err", err.Error())
		}
		return err
	case <-ctx.Done():
		l.Close()
		<-e.prober.done
		return nil
	}
	if e.o.Settings != nil {
		go func() { e.settings.poll(ctx, e.o.SettingsEvery, log); errs <- nil }()
	}
	srv := &http.Server{
		Handler: slotHandler(e.Handler()), ConnContext: connContext,
		ReadHeaderTimeout: readHeaderTimeout, IdleTimeout: e.o.idleTimeout(),
		// Connection errors (a client speaking HTTP to the TLS port, a
		// scanner) are not the exporter's failures.
		ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelDebug),
	}
	served := make(chan error, 1)
	go func() {
		cfg, sd := webConfig, false
		flags := &web.FlagConfig{WebListenAddresses: &[]string{e.o.Listen}, WebSystemdSocket: &sd, WebConfigFile: &cfg}
		served <- web.Serve(l, srv, flags, log)
	}()
	if e.o.Ready != nil {
		e.o.Ready(l.Addr())
	}
	log.Info("latlab exporter started", "address", l.Addr().String(), "probes", strings.Join(e.o.Probes, ","),
		"interval", e.o.Interval.String(), "duty", e.o.Duty)
	var runErr error
	select {
	case <-ctx.Done():
	case err := <-served:
		runErr = fmt.Errorf("serve: %w", err)
	case err := <-errs:
		if err != nil {
			runErr = err
		}
	}
	cancel()
	sctx, scancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer scancel()
	_ = srv.Shutdown(sctx)
	<-e.prober.done
	if runErr != nil {
		log.Error("latlab exporter failed", "err", runErr.Error())
	} else {
		log.Info("latlab exporter stopped")
	}
	return runErr
}
