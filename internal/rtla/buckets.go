package rtla

import "slices"

// Buckets is one column as CPU converts it, kept sparse: its non-empty
// 1 µs buckets in increasing order, without a slot for every µs of the
// range. CPU's dense form costs the range for each column it converts,
// and rtla writes a row only for a bucket some CPU has a count in, so a
// file of three rows (buckets at 1 and 999,999 µs on each of 4,096 CPUs,
// 50 KB) made a comparison of its CPUs allocate 4,096 x 8 MB and run for
// 28 s. Buckets costs the column's rows.
type Buckets struct {
	// Us are the buckets' lower bounds in µs, increasing; Counts their
	// counts, none zero.
	Us, Counts []int64
	// InRange is the sum of Counts; Overflows the occurrences at or
	// above RangeUs (the column's "over:" row, and in ns the last µs as
	// CPU counts it); RangeUs is CPU's RangeUs.
	InRange, Overflows, RangeUs int64
}

// CPUBuckets is CPU's conversion of the column of c on cpu, sparse: the
// same buckets, overflows and range (a test holds the two to each other);
// ok is false when the file has no such column.
func (h *Histogram) CPUBuckets(c Context, cpu int) (b Buckets, ok bool, _ error) {
	j := slices.Index(h.Columns, Column{c, cpu})
	if j < 0 {
		return b, false, nil
	}
	if err := h.bucket(); err != nil {
		return b, true, err
	}
	us := func(i int64) int64 {
		if h.Nano {
			return i / 1000
		}
		return i
	}
	b.Overflows = h.Over[j]
	for r, i := range h.Index {
		k := h.cells[r][j]
		if k == 0 {
			continue
		}
		u := us(i)
		// In ns several rows fall in one µs; the rows are in increasing
		// order, so they follow each other.
		if n := len(b.Us); n > 0 && b.Us[n-1] == u {
			b.Counts[n-1] += k // cannot overflow: check() summed them
			continue
		}
		b.Us, b.Counts = append(b.Us, u), append(b.Counts, k)
	}
	if n := len(h.Index); n > 0 {
		b.RangeUs = us(h.Index[n-1]) + 1
	}
	// As CPU does: in ns the range may end inside the last row's µs, which
	// then counts with the overflows when there are any.
	if h.Nano && b.Overflows > 0 && b.RangeUs > 0 {
		b.RangeUs--
		if n := len(b.Us); n > 0 && b.Us[n-1] == b.RangeUs {
			b.Overflows += b.Counts[n-1]
			b.Us, b.Counts = b.Us[:n-1], b.Counts[:n-1]
		}
	}
	for _, k := range b.Counts {
		b.InRange += k
	}
	return b, true, nil
}
