package exporter

import (
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/latlab/latlab/internal/knob"
	"github.com/latlab/latlab/internal/timer"
)

var (
	resolutionDesc = prometheus.NewDesc("latlab_timer_resolution_seconds",
		"Windows system timer interval from NtQueryTimerResolution: current, finest and coarsest.", []string{"kind"}, nil)
	slackDesc = prometheus.NewDesc("latlab_timer_slack_seconds",
		"Linux timer slack of the exporter's threads (PR_GET_TIMERSLACK), inherited from the process that started it.", nil, nil)
	clocksourceDesc = prometheus.NewDesc("latlab_clocksource_info",
		"Linux clocksource in use (value 1); available lists the others the kernel offers.", []string{knob.ClocksourceName, "available"}, nil)
	timerErrorDesc = prometheus.NewDesc("latlab_timer_read_errors_total",
		"Failed reads of the timer state.", nil, nil)
)

// timerCollector exposes the timer state. read is timer.Query in
// production and a fixed Status in tests; a read is kept for ttl (0:
// every scrape reads).
type timerCollector struct {
	read  func() (timer.Status, error)
	ttl   time.Duration
	slack bool // this OS has timer slack (Linux)
	now   func() time.Time

	mu     sync.Mutex
	st     timer.Status
	ok     bool
	readAt time.Time
	errors float64
}

func newTimerCollector(read func() (timer.Status, error), ttl time.Duration) *timerCollector {
	return &timerCollector{read: read, ttl: ttl, slack: hasTimerSlack, now: time.Now}
}

// timerCacheFor is how long a timer reading is kept on this OS.
func timerCacheFor(settingsEvery time.Duration) time.Duration {
	if timerPerScrape {
		return 0
	}
	return settingsEvery
}

func (c *timerCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- resolutionDesc
	ch <- slackDesc
	ch <- clocksourceDesc
	ch <- timerErrorDesc
}

func (c *timerCollector) Collect(ch chan<- prometheus.Metric) {
	c.mu.Lock()
	now := c.now()
	if !c.ok || c.ttl == 0 || now.Sub(c.readAt) >= c.ttl {
		st, err := c.read()
		if err != nil {
			c.errors++
		}
		// A partial reading (Windows: the facts without the resolution)
		// still says what it could read.
		c.st, c.ok, c.readAt = st, true, now
	}
	st, errs := c.st, c.errors
	c.mu.Unlock()
	ch <- prometheus.MustNewConstMetric(timerErrorDesc, prometheus.CounterValue, errs)
	if st.Current100ns != 0 {
		for _, r := range []struct {
			kind string
			v    uint32
		}{{"current", st.Current100ns}, {"finest", st.Finest100ns}, {"coarsest", st.Coarsest100ns}} {
			ch <- prometheus.MustNewConstMetric(resolutionDesc, prometheus.GaugeValue, float64(r.v)/1e7, r.kind)
		}
	}
	if c.slack {
		// Zero is a real slack (a realtime parent), not a missing one.
		ch <- prometheus.MustNewConstMetric(slackDesc, prometheus.GaugeValue, float64(st.TimerSlackNs)/1e9)
	}
	if st.Clocksource != "" {
		ch <- prometheus.MustNewConstMetric(clocksourceDesc, prometheus.GaugeValue, 1,
			st.Clocksource, strings.Join(st.AvailableClocksources, " "))
	}
}
