package compare

import "github.com/latlab/latlab/internal/stats"

// Alone is a histogram side's run as a comparison summarizes it, on its
// own: its summary from its buckets (the statistics its overflows reach
// -1, named in Unknown), its source, and the notes a comparison gives of
// it. latlab report shows each histogram side with it, never expanded:
// the same figures and words latlab compare prints of that side.
func (c *Cyclictest) Alone(label string) (RunSummary, []string, error) {
	all, err := c.binned(0)
	if err != nil {
		return RunSummary{}, nil, err
	}
	r := RunSummary{Label: label, Summary: stats.SummarizeBinned(all), Reconstructed: true, OrderUnknown: true, Source: c.source()}
	unknownSummary(&r)
	return r, c.notes(label), nil
}
