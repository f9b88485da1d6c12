package crossproc

import (
	"github.com/latlab/latlab/internal/host"
	"github.com/latlab/latlab/internal/probe"
	"github.com/latlab/latlab/internal/result"
)

// Kind is the document `latlab crossproc --json` writes. Older documents
// kept the timer state and the measurement at the top level; Moved reads
// them.
var Kind = result.Register[Data]("crossproc", "does another process's timer request change this one's sleeps (latlab crossproc)",
	result.Moved("timer", "measurement"))

// Data is the payload of a crossproc document: the result, with the
// timer state after the run and how it measured.
type Data struct {
	probe.SleepsRun
	Result
}

// Document is the crossproc document of r on the host facts, with the
// timer state Run read after the run.
func (r *Result) Document(facts host.Facts) *result.Document {
	data := &Data{SleepsRun: probe.SleepsRun{Timer: r.timerAfter}, Result: *r}
	doc := Kind.New(facts, data)
	data.Measurement = probe.Measurement{Method: r.Method, RequestedNs: r.DurationNs, ClockSource: doc.Host.ClockSource,
		PercentileNote: result.PercentileDefinition}
	return doc
}
