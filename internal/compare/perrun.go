package compare

import (
	"fmt"
	"math"
	"slices"

	"github.com/latlab/latlab/internal/netload"
	"github.com/latlab/latlab/internal/result"
)

// perRunKind reports whether a kind is compared run by run: one value per
// document, several documents per side. A tcp-discard document is one bulk
// transfer; the smoothed RTT samples inside it are readings of one
// connection's state a millisecond apart, not repeated measurements, so
// pooling them would count one transfer as thousands of trials. What the
// research compares is each transfer's duration and goodput across
// repeated runs.
func perRunKind(kind string) bool { return kind == netload.KindTCPDiscard.Name() }

func readTCPRun(label string, d *result.Document) (*netload.TCPResult, error) {
	data, ok := netload.KindTCPDiscard.Of(d)
	if !ok || data.TCPResult == nil {
		return nil, fmt.Errorf("%w: %s: a tcp-discard result without its transfer (no data)", ErrIncompatible, label)
	}
	r := data.TCPResult
	if r.WallNs <= 0 || r.Written <= 0 || !(r.GoodputBps > 0) || math.IsInf(r.GoodputBps, 0) {
		return nil, fmt.Errorf("%w: %s: a tcp-discard result without a completed transfer (wall_ns %d, written_bytes %d)", ErrIncompatible, label, r.WallNs, r.Written)
	}
	return r, nil
}

// perRunValues reads one side's runs: each transfer's wall time (first
// write until the peer closed, ns) and goodput (bit/s), sorted ascending.
func perRunValues(x Input, size *int64, sizeFrom *string) (durations, goodputs []int64, err error) {
	for i, d := range append([]*result.Document{x.Doc}, x.More...) {
		if d.Kind != netload.KindTCPDiscard.Name() {
			return nil, nil, fmt.Errorf("%w: %s holds a %s result among tcp-discard results; a side's runs must be of the same kind", ErrIncompatible, x.Label, d.Kind)
		}
		label := x.Label
		if len(x.More) > 0 {
			label = fmt.Sprintf("%s (run %d)", x.Label, i+1)
		}
		r, err := readTCPRun(label, d)
		if err != nil {
			return nil, nil, err
		}
		if *size == 0 {
			*size, *sizeFrom = r.Size, label
		} else if r.Size != *size {
			return nil, nil, fmt.Errorf("%w: %s sent %d bytes and %s %d: transfer times of different sizes are not comparable; compare runs with the same --size",
				ErrIncompatible, *sizeFrom, *size, label, r.Size)
		}
		durations = append(durations, r.WallNs)
		goodputs = append(goodputs, int64(math.Round(r.GoodputBps)))
	}
	slices.Sort(durations)
	slices.Sort(goodputs)
	return durations, goodputs, nil
}
