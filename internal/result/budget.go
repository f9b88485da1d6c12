package result

import (
	"errors"
	"fmt"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/infile"
	"github.com/latlab/latlab/internal/stats"
)

// SampleBytes is how much of the input cap one rebuilt sample is allowed:
// MaxRebuilt is infile.Max()/SampleBytes. A rebuilt sample is 8 bytes,
// and compare, report and try hold it several times over (the values, a
// sorted copy, the plots' series), about 40 bytes in all.
const SampleBytes = 128

// MaxRebuilt is how many samples one command rebuilds from histograms, over
// all its inputs: 8,388,608 with the default 1 GiB --max-input-size. A
// histogram's counts are the document's word (a few bytes can claim 2^62
// samples, and 1.5 KB claiming 10 million took 413 MiB), so they are
// charged to one budget before anything is allocated.
func MaxRebuilt() int64 { return infile.Max() / SampleBytes }

// Budget is the samples one command may still rebuild from histograms
// (MaxRebuilt): compare, report and try each make one and hand it to every
// reader of their inputs, try's arms included. It also keeps what it
// rebuilt, so a histogram read twice (report shows a run and then
// compares it) is rebuilt and charged once. Raw samples are not charged:
// they cost their bytes in the file, which infile bounds.
type Budget struct {
	used  int64
	limit int64
	built map[*Histogram][]int64
}

// NewBudget is a budget of MaxRebuilt samples.
func NewBudget() *Budget { return &Budget{limit: MaxRebuilt()} }

// Used is how many samples the budget has rebuilt.
func (b *Budget) Used() int64 { return b.used }

// BudgetError is a histogram whose samples would take the command past
// its budget. It comes wrapped as bad input (the CLI exits 2).
type BudgetError struct {
	Count int64 // the histogram's samples; -1: more than an int64 holds
	Used  int64 // rebuilt for the inputs before it
	Limit int64
}

func (e *BudgetError) Error() string {
	holds := fmt.Sprintf("its histogram holds %d samples", e.Count)
	if e.Count < 0 {
		holds = "its histogram holds more samples than a 64-bit count"
	}
	if e.Used == 0 {
		return fmt.Sprintf("%s, more than the %d latlab rebuilds from histograms for one command (one per %d bytes of %s; raise it to read more)",
			holds, e.Limit, SampleBytes, infile.MaxFlag)
	}
	return fmt.Sprintf("%s, and the inputs before it had %d rebuilt already: more than the %d latlab rebuilds from histograms for one command, over all its inputs (one per %d bytes of %s; raise it to read more)",
		holds, e.Used, e.Limit, SampleBytes, infile.MaxFlag)
}

// rebuild returns the values h stands for (each bucket's count at its
// representative value), charging them to b.
func (b *Budget) rebuild(h *Histogram) ([]int64, error) {
	if v, ok := b.built[h]; ok {
		return v, nil
	}
	hist, err := stats.DecodeHistogram(h.Data)
	if err != nil {
		return nil, err
	}
	bars := hist.Distribution()
	var n int64
	for _, bar := range bars {
		if bar.Count < 0 {
			return nil, errors.New("histogram has a negative count")
		}
		if n += bar.Count; n < 0 {
			n = -1
			break
		}
	}
	if n < 0 || n > b.limit-b.used {
		return nil, badinput.Wrap(&BudgetError{Count: n, Used: b.used, Limit: b.limit})
	}
	b.used += n
	out := make([]int64, 0, n)
	for _, bar := range bars {
		for i := int64(0); i < bar.Count; i++ {
			out = append(out, (bar.From+bar.To)/2)
		}
	}
	if b.built == nil {
		b.built = map[*Histogram][]int64{}
	}
	b.built[h] = out
	return out, nil
}

// Binned is the values rebuild would give for h (each bucket's count at
// its representative value) as their distinct values and counts, for a
// caller that compares them without rebuilding them: nothing is
// allocated per sample, so nothing is charged.
func Binned(h *Histogram) (stats.Binned, error) {
	hist, err := stats.DecodeHistogram(h.Data)
	if err != nil {
		return stats.Binned{}, err
	}
	var vs, cs []int64
	for _, bar := range hist.Distribution() {
		if bar.Count < 0 {
			return stats.Binned{}, errors.New("histogram has a negative count")
		}
		vs, cs = append(vs, (bar.From+bar.To)/2), append(cs, bar.Count)
	}
	return stats.NewBinned(vs, cs)
}

// Charge takes n samples a caller rebuilds itself from a histogram of
// another form (a cyclictest histogram) off the budget, before it
// allocates them; a *BudgetError (bad input) when they do not fit.
func (b *Budget) Charge(n int64) error {
	if n < 0 || n > b.limit-b.used {
		return badinput.Wrap(&BudgetError{Count: n, Used: b.used, Limit: b.limit})
	}
	b.used += n
	return nil
}
