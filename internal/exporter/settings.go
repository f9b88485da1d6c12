package exporter

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Setting is one audited setting as the exporter shows it.
type Setting struct {
	Knob    string // the knob's catalogue name
	Target  string // the instance (an adapter, an IRQ); "" for a system-wide knob
	Value   string // as the audit shows it
	Verdict string // the audit's verdict; "unknown" when there is none
}

// SettingsFunc reads the audited settings of this machine. It is called
// every --settings-every from one goroutine; an error keeps the previous
// reading.
type SettingsFunc func(ctx context.Context) ([]Setting, error)

// maxLabel bounds a label value: a setting's value comes from the system
// (an affinity list, a policy) and a series label should stay readable.
const maxLabel = 200

var (
	settingDesc = prometheus.NewDesc("latlab_setting_info",
		"A latency setting as the check-up's audit reads and judges it (value 1); a changed value or verdict is a new series.",
		[]string{"knob", "target", "value", "verdict"}, nil)
	settingsReadDesc = prometheus.NewDesc("latlab_settings_read_timestamp_seconds",
		"When the settings were last read successfully (Unix time).", nil, nil)
	settingsErrorDesc = prometheus.NewDesc("latlab_settings_read_errors_total",
		"Failed reads of the settings; the previous reading stays exported.", nil, nil)
)

// settingsCollector exposes the latest reading of the settings.
type settingsCollector struct {
	read SettingsFunc

	mu     sync.Mutex
	cur    []Setting
	at     time.Time
	errors float64
}

func newSettingsCollector(read SettingsFunc) *settingsCollector {
	return &settingsCollector{read: read}
}

// refresh reads the settings once.
func (c *settingsCollector) refresh(ctx context.Context, now time.Time) error {
	s, err := c.read(ctx)
	c.mu.Lock()
	defer c.mu.Unlock()
	if err != nil {
		c.errors++
		return err
	}
	c.cur, c.at = dedupe(s), now
	return nil
}

// poll reads the settings now and then every period until ctx ends.
func (c *settingsCollector) poll(ctx context.Context, period time.Duration, log *slog.Logger) {
	t := time.NewTicker(period)
	defer t.Stop()
	for {
		if err := c.refresh(ctx, time.Now()); err != nil && ctx.Err() == nil {
			log.Warn("reading the settings failed", "err", err.Error())
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// dedupe clips the labels and drops repeated label sets, which the
// registry would refuse as a whole scrape.
func dedupe(in []Setting) []Setting {
	seen := map[Setting]bool{}
	out := make([]Setting, 0, len(in))
	for _, s := range in {
		s = Setting{Knob: clip(s.Knob), Target: clip(s.Target), Value: clip(s.Value), Verdict: clip(s.Verdict)}
		if s.Verdict == "" {
			s.Verdict = "unknown"
		}
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

func clip(s string) string {
	// Label values must be valid UTF-8, or the registry refuses them.
	s = strings.ToValidUTF8(s, "\uFFFD")
	if len(s) <= maxLabel {
		return s
	}
	// Cut on a rune boundary.
	cut := maxLabel - len("…")
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}

func (c *settingsCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- settingDesc
	ch <- settingsReadDesc
	ch <- settingsErrorDesc
}

func (c *settingsCollector) Collect(ch chan<- prometheus.Metric) {
	c.mu.Lock()
	cur, at, errs := c.cur, c.at, c.errors
	c.mu.Unlock()
	ch <- prometheus.MustNewConstMetric(settingsErrorDesc, prometheus.CounterValue, errs)
	if at.IsZero() {
		return
	}
	ch <- prometheus.MustNewConstMetric(settingsReadDesc, prometheus.GaugeValue, float64(at.UnixNano())/1e9)
	for _, s := range cur {
		ch <- prometheus.MustNewConstMetric(settingDesc, prometheus.GaugeValue, 1, s.Knob, s.Target, s.Value, s.Verdict)
	}
}
