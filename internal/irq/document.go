package irq

import (
	"github.com/latlab/latlab/internal/probe"
	"github.com/latlab/latlab/internal/result"
)

// KindWatch is the document `latlab irq watch --json` writes. Older
// documents kept the measurement at the top level; Moved reads it.
var KindWatch = result.Register[WatchData]("irq", "interrupts, DPCs and softirqs per CPU, in total and per interval (latlab irq watch)",
	result.Moved("measurement"))

// WatchData is the payload of an irq document.
type WatchData struct {
	Measurement probe.Measurement `json:"measurement"`
	Method      string            `json:"method"`
	IntervalNs  int64             `json:"interval_ns"`
	Command     []string          `json:"command,omitempty"`
	ExitStatus  *int              `json:"exit_status,omitempty"`
	Total       *Interval         `json:"total"`
	Intervals   []*Interval       `json:"intervals,omitempty"` // omitted when there are too many to store
	Network     *NetInfo          `json:"network"`
}
