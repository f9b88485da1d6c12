package probe

import (
	"bufio"
	"fmt"
	"io"
)

// WriteCyclictestHist writes the histogram in the layout of cyclictest
// -h: one row per 1 µs bucket with a column per thread, then the footer
// rteval and other consumers parse. Latencies are truncated to whole µs as
// cyclictest does; values at or above maxUs are overflows. dma, when 0 or
// more, is the /dev/cpu_dma_latency value the header names.
func (r *WakeResult) WriteCyclictestHist(out io.Writer, maxUs, dma int) error {
	cols := make([][]int64, len(r.Threads))
	for i, t := range r.Threads {
		cols[i] = t.Latencies
	}
	return writeCyclictestHist(out, cols, maxUs, dma)
}

// writeCyclictestHist writes cols (one per thread, ns) as
// WriteCyclictestHist describes.
func writeCyclictestHist(out io.Writer, cols [][]int64, maxUs, dma int) error {
	w := bufio.NewWriter(out)
	n := len(cols)
	hist := make([][]int64, n)
	overflows := make([][]int, n)
	minUs, maxL, sum := make([]int64, n), make([]int64, n), make([]int64, n)
	for i, col := range cols {
		hist[i] = make([]int64, maxUs)
		minUs[i] = 1 << 62
		for cyc, v := range col {
			us := v / 1000
			if us < 0 {
				us = 0
			}
			if us < minUs[i] {
				minUs[i] = us
			}
			if us > maxL[i] {
				maxL[i] = us
			}
			sum[i] += us
			if us >= int64(maxUs) {
				overflows[i] = append(overflows[i], cyc)
				continue
			}
			hist[i][us]++
		}
		if len(col) == 0 {
			minUs[i] = 0
		}
	}
	if dma >= 0 {
		fmt.Fprintf(w, "# /dev/cpu_dma_latency set to %dus\n", dma)
	}
	fmt.Fprintln(w, "# Histogram")
	for b := 0; b < maxUs; b++ {
		fmt.Fprintf(w, "%06d ", b)
		for i := 0; i < n; i++ {
			if i > 0 {
				fmt.Fprint(w, "\t")
			}
			fmt.Fprintf(w, "%06d", hist[i][b])
		}
		fmt.Fprintln(w)
	}
	footer := func(label string, f func(i int) string) {
		fmt.Fprintf(w, "# %s:", label)
		for i := 0; i < n; i++ {
			fmt.Fprintf(w, " %s", f(i))
		}
		fmt.Fprintln(w)
	}
	footer("Total", func(i int) string { return fmt.Sprintf("%09d", int64(len(cols[i])-len(overflows[i]))) })
	footer("Min Latencies", func(i int) string { return fmt.Sprintf("%05d", minUs[i]) })
	footer("Avg Latencies", func(i int) string {
		if len(cols[i]) == 0 {
			return "00000"
		}
		return fmt.Sprintf("%05d", sum[i]/int64(len(cols[i])))
	})
	footer("Max Latencies", func(i int) string { return fmt.Sprintf("%05d", maxL[i]) })
	footer("Histogram Overflows", func(i int) string { return fmt.Sprintf("%05d", len(overflows[i])) })
	fmt.Fprintln(w, "# Histogram Overflow at cycle number:")
	for i := 0; i < n; i++ {
		fmt.Fprintf(w, "# Thread %d:", i)
		for k, c := range overflows[i] {
			if k == 1000 {
				fmt.Fprintf(w, " # %05d others", len(overflows[i])-k)
				break
			}
			fmt.Fprintf(w, " %05d", c)
		}
		fmt.Fprintln(w)
	}
	return w.Flush()
}
