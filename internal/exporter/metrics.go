package exporter

import (
	"math"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/latlab/latlab/internal/probe"
)

// Histogram layout. The classic buckets are log-spaced from 1 µs to
// 100 ms, four to a decade, so histogram_quantile works on any
// Prometheus; the native (sparse) buckets of the same metric resolve
// about 9% per bucket for servers that ingest native histograms.
const (
	bucketMin       = 1e-6
	bucketMax       = 0.1
	bucketsByDecade = 4
	// nativeFactor 1.1 gives 8 buckets per power of two; 1 µs..100 ms
	// spans 17 powers, so 160 buckets hold the usual range and bound the
	// memory an outlier storm can take.
	nativeFactor     = 1.1
	nativeMaxBuckets = 160
	nativeMinReset   = time.Hour
)

// classicBuckets returns the log-spaced upper bounds, rounded to three
// significant digits so the le labels read well (1e-06, 1.78e-06, ...).
func classicBuckets() []float64 {
	decades := math.Log10(bucketMax / bucketMin)
	n := int(math.Round(decades*bucketsByDecade)) + 1
	b := prometheus.ExponentialBucketsRange(bucketMin, bucketMax, n)
	for i, v := range b {
		b[i], _ = strconv.ParseFloat(strconv.FormatFloat(v, 'g', 3, 64), 64)
	}
	return b
}

func histogramOpts(name, help string, labels prometheus.Labels) prometheus.HistogramOpts {
	return prometheus.HistogramOpts{
		Name: name, Help: help, ConstLabels: labels,
		Buckets:                         classicBuckets(),
		NativeHistogramBucketFactor:     nativeFactor,
		NativeHistogramMaxBucketNumber:  nativeMaxBuckets,
		NativeHistogramMinResetDuration: nativeMinReset,
	}
}

// metrics are the probe's metric families. A burst's samples are
// observed after the burst, outside the timed loop.
type metrics struct {
	wake, sleep   prometheus.Histogram
	missed        prometheus.Counter
	overhead      *prometheus.GaugeVec
	cpuSeconds    prometheus.Counter
	cpuRatio      prometheus.Gauge
	processRatio  prometheus.Gauge
	duty          prometheus.Gauge
	sleepDuration int64 // ns asked of each sleep
	all           []prometheus.Collector
}

func newMetrics(o Options) *metrics {
	wakeLabels := prometheus.Labels{"method": wakeMethod}
	sleepLabels := prometheus.Labels{"method": probe.SleepMethods()[0]}
	if o.CPU >= 0 {
		cpu := strconv.Itoa(o.CPU)
		wakeLabels["cpu"], sleepLabels["cpu"] = cpu, cpu
	}
	m := &metrics{sleepDuration: o.Interval.Nanoseconds()}
	m.wake = prometheus.NewHistogram(histogramOpts("latlab_wake_latency_seconds",
		"How late a thread woke for a periodic absolute deadline (wake time - deadline), measured in low-duty bursts.", wakeLabels))
	m.sleep = prometheus.NewHistogram(histogramOpts("latlab_sleep_overshoot_seconds",
		"How much longer than asked a sleep of --interval took (slept - requested), measured in low-duty bursts.", sleepLabels))
	m.missed = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "latlab_wake_missed_periods_total", ConstLabels: wakeLabels,
		Help: "Periodic deadlines that passed while the probe thread was late, skipped and counted as cyclictest counts overruns.",
	})
	m.overhead = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "latlab_probe_overhead_seconds",
		Help: "What the tool itself adds to a sample, median of 1000 at start: a clock read (kind=clock_read) and a wait that is already due (kind=zero_wait).",
	}, []string{"probe", "kind"})
	m.cpuSeconds = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "latlab_probe_cpu_seconds_total",
		Help: "CPU time of the probe thread: the bursts and the observing of their samples.",
	})
	m.cpuRatio = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "latlab_probe_cpu_ratio",
		Help: "The probe thread's CPU time divided by wall time over the last minute of cycles: the measuring alone, part of latlab_process_cpu_ratio.",
	})
	m.processRatio = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "latlab_process_cpu_ratio",
		Help: "The whole exporter process's CPU time (every thread: probe, HTTP server, settings reader, Go runtime) divided by wall time over the last minute of cycles; --duty bounds it.",
	})
	m.duty = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "latlab_probe_duty_ratio",
		Help: "The configured --duty: the share of each cycle spent measuring, and the bound on latlab_process_cpu_ratio.",
	})
	m.duty.Set(o.Duty)
	m.all = []prometheus.Collector{m.overhead, m.cpuSeconds, m.cpuRatio, m.processRatio, m.duty}
	for _, p := range o.Probes {
		switch p {
		case ProbeWake:
			m.all = append(m.all, m.wake, m.missed)
		case ProbeSleep:
			m.all = append(m.all, m.sleep)
		}
	}
	return m
}

func (m *metrics) Describe(ch chan<- *prometheus.Desc) {
	for _, c := range m.all {
		c.Describe(ch)
	}
}

func (m *metrics) Collect(ch chan<- prometheus.Metric) {
	for _, c := range m.all {
		c.Collect(ch)
	}
}

// observeWake records one burst of wake-up latencies (ns).
func (m *metrics) observeWake(lat []int64, overruns int64) {
	for _, v := range lat {
		m.wake.Observe(float64(v) / 1e9)
	}
	if overruns > 0 {
		m.missed.Add(float64(overruns))
	}
}

// observeSleep records one burst of measured sleeps (ns) as overshoots.
func (m *metrics) observeSleep(slept []int64) {
	for _, v := range slept {
		m.sleep.Observe(float64(v-m.sleepDuration) / 1e9)
	}
}

func (m *metrics) setOverhead(probeName string, o probe.Overhead) {
	m.overhead.WithLabelValues(probeName, "clock_read").Set(float64(o.ClockReadP50Ns) / 1e9)
	m.overhead.WithLabelValues(probeName, "zero_wait").Set(float64(o.ZeroWaitP50Ns) / 1e9)
}

func (m *metrics) addCPU(cpu time.Duration, ratio, processRatio float64) {
	m.cpuSeconds.Add(cpu.Seconds())
	m.cpuRatio.Set(ratio)
	m.processRatio.Set(processRatio)
}
