package netload

import (
	"github.com/latlab/latlab/internal/stats"
)

// UDPData is the payload (result Document.Data) of a document of kind
// "udp". The document's summary, histogram and samples hold the round-trip
// times; its corrected summary and histogram the latency from the intended
// send time (coordinated-omission-free).
type UDPData struct {
	Profile      string  `json:"profile,omitempty"` // "" for explicit --rate/--size
	ProfileAbout string  `json:"profile_about,omitempty"`
	LossRatio    float64 `json:"loss_ratio"`
	AchievedPPS  float64 `json:"achieved_rate_pps"`
	// SendLag is actual - intended send time: how well the schedule was
	// held. Its p99 is the generator's own error.
	SendLag stats.Summary `json:"send_lag"`
	*UDPResult
}

// NewUDPData summarises a result for the document.
func NewUDPData(r *UDPResult, profile, about string) *UDPData {
	d := &UDPData{Profile: profile, ProfileAbout: about, UDPResult: r, AchievedPPS: r.AchievedRatePPS(),
		SendLag: stats.Summarize(r.SendLag)}
	if r.Sent > 0 {
		d.LossRatio = float64(r.Lost) / float64(r.Sent)
	}
	return d
}

// TCPData is the payload of a document of kind "tcp-discard". The
// document's summary and samples hold the sampled smoothed RTT in ns.
type TCPData struct {
	*TCPResult
	// Fields summarises each sampled field over the transfer.
	FieldStats map[string]FieldStat `json:"field_stats"`
	// Samples are the state readings: t_ns and the fields present.
	Samples []map[string]int64 `json:"samples"`
	// RetransAtNs lists when a retransmission counter grew.
	RetransAtNs []int64 `json:"retransmissions_at_ns"`
}

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

// NewTCPData summarises a transfer for the document.
func NewTCPData(r *TCPResult) *TCPData {
	d := &TCPData{TCPResult: r, FieldStats: map[string]FieldStat{}}
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
	return d
}
