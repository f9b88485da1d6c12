package sweep

import (
	"github.com/latlab/latlab/internal/host"
	"github.com/latlab/latlab/internal/probe"
	"github.com/latlab/latlab/internal/result"
)

// Kind is the document `latlab sweep --json` writes. Older documents kept
// the timer state and the measurement at the top level; Moved reads them.
var Kind = result.Register[Data]("sweep", "sleep overshoot per requested timer resolution or slack, ranked (latlab sweep)",
	result.Moved("timer", "measurement"))

// Data is the payload of a sweep document: the sweep, with the timer
// state after it and how it measured.
type Data struct {
	probe.SleepsRun
	Result
}

// Document is the sweep document of r on the host facts, with the timer
// state Run read after the run and the notes a reader needs.
func (r *Result) Document(facts host.Facts) *result.Document {
	data := &Data{SleepsRun: probe.SleepsRun{Timer: r.timerAfter}, Result: *r}
	doc := Kind.New(facts, data)
	data.Measurement = probe.Measurement{Method: r.Method, RequestedNs: r.DurationNs, ElapsedNs: r.ElapsedNs,
		ClockSource: doc.Host.ClockSource, PercentileNote: result.PercentileDefinition}
	doc.Notes = append(doc.Notes, r.Notes...)
	doc.Notes = append(doc.Notes, "overshoot = slept - requested sleep; each step's warm-up sample is discarded")
	return doc
}
