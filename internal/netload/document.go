package netload

import (
	"fmt"

	"github.com/latlab/latlab/internal/etw"

	"github.com/latlab/latlab/internal/probe"
	"github.com/latlab/latlab/internal/result"
	"github.com/latlab/latlab/internal/stats"
	"github.com/latlab/latlab/internal/units"
)

// The kinds of the net commands' documents. Older documents kept the
// measurement and the RTT distribution at the top level; Moved reads them.
var (
	KindUDP = result.Register[UDPData]("udp", "paced UDP round trips to an echo server: RTT, loss, pacing (latlab net udp)",
		result.Moved("measurement", "summary", "histogram", "samples_ns", "corrected_summary", "corrected_histogram"))
	KindTCPDiscard = result.Register[TCPData]("tcp-discard", "one TCP bulk transfer to a discard or sink server with the kernel's TCP state (latlab net tcp-discard)",
		result.Moved("measurement", "summary", "samples_ns"))
	KindServeReady = result.Register[ServeReady]("net-serve-ready", "the addresses latlab net serve listens on, once it listens (one line)")
	KindServe      = result.Register[ServeStats]("net-serve", "what latlab net serve served, when it stops (one line)")
	// Older rss-experiment documents kept the measurement at the top level.
	KindRSSExperiment = result.Register[RSSResult]("rss-experiment", "which CPUs do a network interface's work under each load profile (latlab net rss-experiment)",
		result.Moved("measurement"))
)

// ServeReady is the payload of the line `net serve --json` prints once
// it listens: the bound addresses (absent: that server is off).
type ServeReady struct {
	Echo    string `json:"echo,omitempty"`
	Discard string `json:"discard,omitempty"`
	Sink    string `json:"sink,omitempty"`
	PID     int    `json:"pid"`
}

// UDPData is the payload of a udp document. Summary, Histogram and
// Samples hold the round-trip times (absent when no echo came back);
// CorrectedSummary and CorrectedHistogram the latency from the intended
// send time (coordinated-omission-free).
type UDPData struct {
	Measurement  probe.Measurement `json:"measurement"`
	Profile      string            `json:"profile,omitempty"` // "" for explicit --rate/--size
	ProfileAbout string            `json:"profile_about,omitempty"`
	LossRatio    float64           `json:"loss_ratio"`
	AchievedPPS  float64           `json:"achieved_rate_pps"`
	// SendLag is actual - intended send time: how well the schedule was
	// held. Its p99 is the generator's own error.
	SendLag stats.Summary `json:"send_lag"`
	*UDPResult
	Summary            *stats.Summary    `json:"summary,omitempty"`
	Histogram          *result.Histogram `json:"histogram,omitempty"`
	Samples            []int64           `json:"samples_ns,omitzero"`
	CorrectedSummary   *stats.Summary    `json:"corrected_summary,omitempty"`
	CorrectedHistogram *result.Histogram `json:"corrected_histogram,omitempty"`
	// ReceiverWake is how long after the kernel's receive time stamp the
	// receiving goroutine read each echo (absent where the kernel does not
	// stamp): this host's scheduling, left out of the round trip.
	ReceiverWake *stats.Summary `json:"receiver_wake,omitempty"`
	// ScheduleVerdict says whether the generator held its schedule
	// (ScheduleVerdict), as the text output does.
	ScheduleVerdict string `json:"schedule_verdict,omitempty"`
}

// ScheduleVerdict says whether the generator held its schedule, judged
// by the send lag's p99 (burstEveryNs: the lag bursts allow by design).
// The p99 needs stats.MinSamples of it (368 sends) before it says more
// than the maximum does: `net udp --count 5` once said "the generator
// held its schedule" of a p99 that was the largest of five lags; with
// fewer sends the verdict says what the largest lag shows and no more.
func ScheduleVerdict(lag stats.Summary, burstEveryNs int64) string {
	held := "the generator held its schedule"
	if burstEveryNs > 0 {
		held += fmt.Sprintf(" (sending in bursts at most every %s: up to that much lag is by design)", units.Ns(burstEveryNs))
	}
	slow := 100_000 + burstEveryNs
	if need := stats.MinSamples(stats.Quantile(99), 0.95); lag.Count < int64(need) {
		if lag.Max < slow {
			return fmt.Sprintf("each of the %d sends left within %s of its schedule; too few to judge the p99 (it needs %d)", lag.Count, units.Ns(slow), need)
		}
		return fmt.Sprintf("too few sends to judge the schedule's p99: %d, it needs %d; the largest lag was %s", lag.Count, need, units.Ns(lag.Max))
	}
	switch {
	case lag.P99 >= 1_000_000:
		return "the generator fell behind its schedule (p99 send lag >= 1 ms): the rate is more than this machine sends, or it was busy; 'from schedule' shows what a receiver would have seen"
	case lag.P99 >= slow:
		return fmt.Sprintf("send lag p99 is over %s: the machine is busy or the pacing thread wakes late; compare round trip with 'from schedule'", units.Ns(slow))
	}
	return held
}

// NewUDPData summarises a result for the document; notes are what the
// document's notes should add.
func NewUDPData(r *UDPResult, profile, about string) (d *UDPData, notes []string, err error) {
	d = &UDPData{Profile: profile, ProfileAbout: about, UDPResult: r, AchievedPPS: r.AchievedRatePPS(),
		SendLag: stats.Summarize(r.SendLag)}
	d.ScheduleVerdict = ScheduleVerdict(d.SendLag, r.BurstEveryNs)
	if r.Sent > 0 {
		d.LossRatio = float64(r.Lost) / float64(r.Sent)
	}
	d.Measurement = probe.Measurement{
		Method:         "UDP echo round trip: echo arrival - send time, both on this host's clock; arrival from " + r.ReceiveTimes + "; sends paced by " + r.PacerMethod,
		IntervalNs:     int64(1e9 / r.RatePPS),
		ElapsedNs:      r.ElapsedNs,
		ClockSource:    r.ClockSource,
		PercentileNote: result.PercentileDefinition,
	}
	if len(r.RTT) > 0 {
		s := stats.Summarize(r.RTT)
		d.Summary = &s
		if d.Histogram, err = result.EncodeHistogram(stats.HistogramOf(r.RTT)); err != nil {
			return nil, nil, err
		}
		var note string
		if d.Samples, note = result.KeepSamples(r.RTT); note != "" {
			notes = append(notes, note)
		}
		cs := stats.Summarize(r.FromIntended)
		d.CorrectedSummary = &cs
		if d.CorrectedHistogram, err = result.EncodeHistogram(stats.HistogramOf(r.FromIntended)); err != nil {
			return nil, nil, err
		}
	} else {
		notes = append(notes, "no echo came back: no round-trip times")
	}
	notes = append(notes,
		"summary, histogram and samples_ns: round-trip time; corrected_summary: latency from the intended send time (no coordinated omission)",
		"jitter: RFC 3550 interarrival jitter of the echoed stream (round-trip transit times)")
	if len(r.ReceiverWake) > 0 {
		s := stats.Summarize(r.ReceiverWake)
		d.ReceiverWake = &s
		notes = append(notes, "receiver_wake: the receiving goroutine's read - the kernel's receive time stamp, per echo; not part of the round trip")
	}
	if r.ReceiveStampsUnavailable != "" {
		notes = append(notes, "receive_stamps_unavailable: echo arrivals are the receiving goroutine's reads, not the OS's receive stamps: "+r.ReceiveStampsUnavailable)
	}
	if r.ReceiveStampsMissing > 0 {
		notes = append(notes, fmt.Sprintf("%d echoes came without a usable kernel receive stamp and are timed by the receiving goroutine's read (receive_stamps_missing)", r.ReceiveStampsMissing))
	}
	if r.Interrupted {
		notes = append(notes, "interrupted before the planned packet count")
	}
	if r.DSCP != nil && r.DSCP.Note != "" {
		notes = append(notes, "dscp: "+r.DSCP.Note)
	}
	return d, notes, nil
}

// Values returns the round-trip times (result.Sampled).
func (d *UDPData) Values(b *result.Budget) ([]int64, bool, error) {
	return result.Values(d.Samples, d.Histogram, b)
}

// SamplesInOrder says the raw round trips are in the order measured
// (result.Ordered): the order their echoes arrived in, as tracker.add
// appends them (a reordered echo where it arrived, a lost one absent),
// which is the order in time that interference on the path and on this
// host follows.
func (d *UDPData) SamplesInOrder() bool { return true }

// Measured says how the samples were taken.
func (d *UDPData) Measured() *probe.Measurement { return &d.Measurement }

// TCPData is the payload of a tcp-discard document. Summary and
// RTTSamples hold the sampled smoothed RTT in ns (absent when the
// kernel gave none).
type TCPData struct {
	Measurement probe.Measurement `json:"measurement"`
	*TCPResult
	Summary    *stats.Summary `json:"summary,omitempty"`
	RTTSamples []int64        `json:"samples_ns,omitzero"`
	// Fields summarises each sampled field over the transfer.
	FieldStats map[string]FieldStat `json:"field_stats"`
	// Samples are the state readings: t_ns and the fields present.
	Samples []map[string]int64 `json:"samples"`
	// RetransAtNs lists when a retransmission counter grew.
	RetransAtNs []int64 `json:"retransmissions_at_ns"`
	// ETW holds the TCP/IP provider's events of the connection
	// (net tcp-discard --etw, Windows).
	ETW *etw.TCPConnection `json:"etw,omitempty"`
	// DSack is the verdict on D-SACKs and the reorder window from the
	// Windows 11 loss-recovery events (with --etw).
	DSack *etw.DSackReport `json:"dsack,omitempty"`
}

// Values returns the sampled smoothed RTTs (result.Sampled).
func (d *TCPData) Values(b *result.Budget) ([]int64, bool, error) {
	return result.Values(d.RTTSamples, nil, b)
}

// Measured says how the samples were taken.
func (d *TCPData) Measured() *probe.Measurement { return &d.Measurement }

// FieldStat summarises one TCP state field over the samples.
type FieldStat struct {
	First int64 `json:"first"`
	Min   int64 `json:"min"`
	P50   int64 `json:"p50"`
	Max   int64 `json:"max"`
	Last  int64 `json:"last"`
	N     int   `json:"samples"`
}

// FieldSeries returns the values of f over the samples where present.
func (r *TCPResult) FieldSeries(f Field) (t, v []int64) {
	for _, s := range r.Samples {
		if x, ok := s.Get(f); ok {
			t = append(t, s.TNs)
			v = append(v, x)
		}
	}
	return t, v
}

// NewTCPData summarises a transfer for the document; notes are what the
// document's notes should add.
func NewTCPData(r *TCPResult) (*TCPData, []string) {
	d := &TCPData{TCPResult: r, FieldStats: map[string]FieldStat{}}
	d.Measurement = probe.Measurement{
		Method:         "TCP bulk send to a discard/sink server; state sampled with " + r.SampleMethod,
		IntervalNs:     r.SampleEveryNs,
		ElapsedNs:      r.WallNs,
		ClockSource:    r.ClockSource,
		PercentileNote: result.PercentileDefinition,
	}
	for f := Field(0); f < numFields; f++ {
		_, v := r.FieldSeries(f)
		if len(v) == 0 {
			continue
		}
		s := stats.Summarize(v)
		d.FieldStats[f.String()] = FieldStat{First: v[0], Min: s.Min, P50: s.P50, Max: s.Max, Last: v[len(v)-1], N: len(v)}
	}
	for _, s := range r.Samples {
		m := s.Map()
		m["t_ns"] = s.TNs
		d.Samples = append(d.Samples, m)
		if s.Retrans {
			d.RetransAtNs = append(d.RetransAtNs, s.TNs)
		}
	}
	var notes []string
	if _, rtt := r.FieldSeries(FRTT); len(rtt) > 0 {
		ns := make([]int64, len(rtt))
		for i, v := range rtt {
			ns[i] = v * 1000
		}
		s := stats.Summarize(ns)
		d.Summary = &s
		var note string
		if d.RTTSamples, note = result.KeepSamples(ns); note != "" {
			notes = append(notes, note)
		}
		notes = append(notes, "summary and samples_ns: the kernel's smoothed RTT of the connection at each sample")
	}
	if r.SinkBytes < 0 {
		notes = append(notes, "the peer is a plain discard server: the byte count is not confirmed by the receiver")
	}
	if r.SampleLimitHit {
		notes = append(notes, fmt.Sprintf("sampling stopped at %d samples", MaxTCPSamples))
	}
	if r.Events != nil {
		d.ETW, d.DSack = r.Events.Conn, r.Events.DSack
		notes = append(notes, r.Events.Notes...)
	}
	return d, notes
}
