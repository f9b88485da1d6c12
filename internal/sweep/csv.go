package sweep

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
)

// CSVHeader's first three columns are those of micro-adjust-benchmark.ps1
// (RequestedResolutionMs,DeltaMs,STDEV: the mean and standard deviation of
// Sleep's overshoot in ms), so spreadsheets and plotting habits built on that
// script keep working; latlab's own columns follow.
const CSVHeader = "RequestedResolutionMs,DeltaMs,STDEV,GrantedMs,CurrentMs,P50Ms,P99Ms,MaxMs,RankBy,RankValueMs,CILowMs,CIHighMs,Samples,Rank,Reference"

// WriteCSV writes one row per step in ascending order of the request.
func WriteCSV(w io.Writer, r *Result) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, CSVHeader)
	ms := func(ns float64) string { return strconv.FormatFloat(ns/1e6, 'f', 6, 64) }
	for _, s := range r.Steps {
		o := s.Summary.Overshoot
		cur := ""
		if s.CurrentNs > 0 {
			cur = ms(float64(s.CurrentNs))
		}
		lo, hi := "", "" // no interval: too few samples for one
		if ci := s.Summary.CI; ci != nil {
			lo, hi = ms(ci.Lo), ms(ci.Hi)
		}
		ref := "0"
		if s.Reference {
			ref = "1"
		}
		fmt.Fprintf(bw, "%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%d,%d,%s\n",
			strconv.FormatFloat(float64(s.RequestedNs)/1e6, 'f', -1, 64), ms(o.Mean), ms(o.Stdev), ms(float64(s.GrantedNs)), cur,
			ms(float64(o.P50)), ms(float64(o.P99)), ms(float64(o.Max)), r.RankBy, ms(s.Summary.Value), lo, hi,
			o.Count, s.Rank, ref)
	}
	return bw.Flush()
}
