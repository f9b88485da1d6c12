package crossproc

import (
	"github.com/latlab/latlab/internal/host"
	"github.com/latlab/latlab/internal/probe"
	"github.com/latlab/latlab/internal/result"
	"github.com/latlab/latlab/internal/timer"
)

// Kind is the document `latlab crossproc --json` writes. Older documents
// kept the timer state and the measurement at the top level; Moved reads
// them.
var Kind = result.Register[Data]("crossproc", "does another process's timer request change this one's sleeps (latlab crossproc)",
	result.Moved("timer", "measurement"))

// Data is the payload of a crossproc document: the result, with the
// timer state after the run (absent when it could not be read) and how
// it measured.
type Data struct {
	Timer       *timer.Status     `json:"timer,omitempty"`
	Measurement probe.Measurement `json:"measurement"`
	Result
}

// TimerState is the timer state after the run, nil when unknown.
func (d *Data) TimerState() *timer.Status { return d.Timer }

// Document is the crossproc document of r on the host facts, with the
// timer state Run read after the run.
func (r *Result) Document(facts host.Facts) *result.Document {
	data := &Data{Result: *r, Timer: r.timerAfter}
	doc := Kind.New(facts, data)
	data.Measurement = probe.Measurement{Method: r.Method, RequestedNs: r.DurationNs, ClockSource: doc.Host.ClockSource,
		PercentileNote: result.PercentileDefinition}
	return doc
}
