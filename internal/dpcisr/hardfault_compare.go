package dpcisr

import (
	"sort"
	"strings"
)

// HardFaultComparison sets the hard page faults of the compared reports
// side by side, per process image. It says what each trace counted and
// summed, no more: a trace's totals depend on its length and on what ran
// during it, and no test of a difference is made.
type HardFaultComparison struct {
	// Labels are the reports compared, in order; Totals[i] and every
	// image's Runs[i] are report i's.
	Labels []string      `json:"labels"`
	Totals []FaultTotals `json:"totals,omitempty"`
	// Images are the faults per process image, matched across the reports
	// by image name (case-insensitive, as Windows names files): a pid
	// names a different process in another trace. The longest total wait
	// of any report first; faults of processes whose image the trace does
	// not name are one row with no image, not matched with anything.
	Images []ImageFaults `json:"images,omitempty"`
	// Missing are the reports without hard page faults (an xperf text
	// report, a trace recorded without HARD_FAULTS); when set, nothing is
	// compared and Totals and Images are empty.
	Missing []string `json:"missing,omitempty"`
}

// FaultTotals is one report's whole section: faults, bytes read, the time
// waited in all and the longest fault. CountsOnly: a Linux watch, which
// counts major faults and knows neither bytes nor times.
type FaultTotals struct {
	Faults     int64   `json:"faults"`
	Bytes      uint64  `json:"bytes"`
	TotalUs    float64 `json:"total_us"`
	LongestUs  float64 `json:"longest_us"`
	CountsOnly bool    `json:"counts_only,omitempty"`
}

// ImageFaults is one image's faults in each report.
type ImageFaults struct {
	// Image is the image as the first report that has it spells it; ""
	// for the processes and threads a trace does not name.
	Image string `json:"image"`
	// Runs has one entry per report (Labels), zero where the image did
	// not fault.
	Runs []ImageRun `json:"runs"`
}

// ImageRun is an image's faults in one report, summed over its processes
// (PIDs, ascending; several svchost.exe are one row).
type ImageRun struct {
	PIDs []uint32 `json:"pids,omitempty"`
	// Threads counts the faulting threads whose process the trace never
	// names (in the row with no image).
	Threads int `json:"threads,omitempty"`
	FaultTotals
}

// compareHardFaults compares the reports' hard faults: nil when no
// report has any (xperf text reports), Missing when only some do.
func compareHardFaults(runs []Labeled) *HardFaultComparison {
	hc := &HardFaultComparison{}
	var have []*HardFaults
	for _, r := range runs {
		hc.Labels = append(hc.Labels, r.Label)
		h := r.Report.HardFaults
		if h == nil || h.Missing != "" {
			hc.Missing = append(hc.Missing, r.Label)
			continue
		}
		have = append(have, h)
	}
	if len(have) == 0 {
		return nil
	}
	if len(hc.Missing) > 0 {
		return hc
	}
	index := map[string]int{}
	for i, h := range have {
		hc.Totals = append(hc.Totals, FaultTotals{Faults: h.Events, Bytes: h.Bytes, TotalUs: h.TotalUs, LongestUs: h.LongestUs, CountsOnly: h.CountsOnly})
		for _, p := range h.Processes {
			key := strings.ToLower(p.Image)
			j, ok := index[key]
			if !ok {
				j = len(hc.Images)
				index[key] = j
				hc.Images = append(hc.Images, ImageFaults{Image: p.Image, Runs: make([]ImageRun, len(have))})
				for k := range hc.Images[j].Runs {
					hc.Images[j].Runs[k].CountsOnly = have[k].CountsOnly
				}
			}
			run := &hc.Images[j].Runs[i]
			if p.PID != nil {
				run.PIDs = append(run.PIDs, *p.PID)
			} else {
				run.Threads++
			}
			run.Faults += p.Faults
			run.Bytes += p.Bytes
			run.TotalUs += p.TotalUs
			run.LongestUs = max(run.LongestUs, p.LongestUs)
		}
	}
	for _, im := range hc.Images {
		for _, r := range im.Runs {
			sort.Slice(r.PIDs, func(a, b int) bool { return r.PIDs[a] < r.PIDs[b] })
		}
	}
	most := func(im ImageFaults) (us float64, n int64) {
		for _, r := range im.Runs {
			us, n = max(us, r.TotalUs), max(n, r.Faults)
		}
		return us, n
	}
	sort.SliceStable(hc.Images, func(a, b int) bool {
		ua, na := most(hc.Images[a])
		ub, nb := most(hc.Images[b])
		if ua != ub {
			return ua > ub
		}
		if na != nb {
			return na > nb
		}
		return strings.ToLower(hc.Images[a].Image) < strings.ToLower(hc.Images[b].Image)
	})
	return hc
}
