package dpcwatch

import "github.com/latlab/latlab/internal/dpcverdict"

// The verdict's rule lies in package dpcverdict, which dpcisr can import
// too (it judges a LatencyMon report with it); these names keep the
// watch's callers and its summary's JSON as they were.
const (
	LevelOK   = dpcverdict.LevelOK
	LevelWarn = dpcverdict.LevelWarn
	LevelBad  = dpcverdict.LevelBad
	LevelNone = dpcverdict.LevelNone
)

// Verdict is the watch's conclusion in LatencyMon's terms (dpcverdict).
type Verdict = dpcverdict.Verdict

// Judge names the longest DPC and ISR (dpc and isr sorted longest first)
// and says how far the longest of all went past 1 ms and 2 ms.
func Judge(dpc, isr []ModuleStat) Verdict {
	return JudgeSections([]SectionStats{{"DPC", dpc}, {"ISR", isr}}, "every DPC and ISR ended within 1 ms")
}

// JudgeSections is Judge over named sections (a Linux trace's softirq and
// hardirq); within says in the section's words that all ended within 1 ms.
func JudgeSections(secs []SectionStats, within string) Verdict {
	vs := make([]dpcverdict.Section, len(secs))
	for i, s := range secs {
		vs[i].Name = s.Name
		if len(s.Stats) > 0 {
			vs[i].Longest = &dpcverdict.Execution{Module: s.Stats[0].Module, MaxUs: s.Stats[0].MaxUs}
		}
	}
	return dpcverdict.Judge(vs, within)
}
