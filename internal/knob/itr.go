package knob

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/textwrap"
	"github.com/latlab/latlab/internal/units"
)

// Intel's interrupt moderation rate (the ITR keyword) is an enum of named
// levels. Its numbers are driver-specific codes, not interrupts per
// second: the e1r/e1d INFs (I210, I219) give Medium as 950 (read in
// e1r63x64.inf 12.4.36.0, e1r68x64.inf 12.18.11.1 and e1d68x64.inf
// 12.18.9.23; internal/inf/testdata/README.md says where), the e2f/e2fn
// INFs (I225) as 125, and no INF checked has 488. So latlab reads each
// adapter's own Ndi\Params\ITR\Enum and falls back to these tables only
// for an adapter that declares none, where the driver (its Ndi\Service)
// tells which table applies.

// ITRFamily is one Intel driver family's ITR levels as its INFs list them.
type ITRFamily struct {
	Family   string    `json:"driver_family"`
	Services []string  `json:"services"` // the adapter's Ndi\Service value
	Adapters string    `json:"adapters"`
	Levels   []EnumOpt `json:"levels"`
}

var itrFamilies = []ITRFamily{
	// e1i68x64 is the e1i driver of Windows' own net1ic64.inf (82574L,
	// the Gigabit CT), whose ITR codes are these (itrMeasured.Levels).
	{"e1r/e1d", []string{"e1rexpress", "e1dexpress", "e1i68x64"}, "I210, I219", []EnumOpt{
		{"65535", "Adaptive"}, {"3600", "Extreme"}, {"2000", "High"}, {"950", "Medium"}, {"400", "Low"}, {"200", "Minimal"}, {"0", "Off"}}},
	{"e2f/e2fn", []string{"e2fexpress", "e2fnexpress"}, "I225", []EnumOpt{
		{"500", "Extreme"}, {"250", "High"}, {"125", "Medium"}, {"64", "Low"}, {"32", "Minimal"}, {"0", "Off"}}},
}

// itrFamilyOf finds the table of a driver by its service name.
func itrFamilyOf(service string) *ITRFamily {
	s := strings.ToLower(strings.TrimSpace(service))
	for i := range itrFamilies {
		for _, n := range itrFamilies[i].Services {
			if s == n {
				return &itrFamilies[i]
			}
		}
	}
	return nil
}

// ITRMeasured is the evidence the explanation rests on: djdallmann's
// GamingPCSetup research
// (https://github.com/djdallmann/GamingPCSetup/blob/master/CONTENT/RESEARCH/NETWORK/README.md,
// "Intel Interrupt Moderation"): an Intel Gigabit CT on Windows 10 1909,
// 30 s of 900 Mbit/s TCP per level, counted with xperf.
type ITRMeasured struct {
	Source     string       `json:"source"`
	URL        string       `json:"url"`
	Interrupts []LevelCount `json:"interrupts"` // fewest first
	Findings   []string     `json:"findings"`
	// Levels are the measured adapter's ITR codes as its driver's INF
	// gives them, and LevelsSource that INF: the research names the
	// adapter, not its driver's version.
	Levels       []EnumOpt `json:"levels"`
	LevelsSource string    `json:"levels_source"`
}

// LevelCount is the interrupts counted at one level and the NDIS DPC
// execution times the research listed for it.
type LevelCount struct {
	Level      string     `json:"level"`
	Interrupts int        `json:"interrupts"`
	DPC        []DPCShare `json:"ndis_dpc"`
}

// DPCShare is one row of a level's NDIS DPC histogram: Percent of the
// DPCs ran at most AtMostUs µs (the research's "22% <= 8 usecs"). The
// rows are the research's own and need not add up to 100.
type DPCShare struct {
	AtMostUs int `json:"at_most_us"`
	Percent  int `json:"percent"`
}

var itrMeasured = ITRMeasured{
	Source: "GamingPCSetup research (djdallmann), Intel Gigabit CT, Windows 10 1909, 30 s of 900 Mbit/s TCP per level, xperf",
	URL:    "https://github.com/djdallmann/GamingPCSetup/blob/master/CONTENT/RESEARCH/NETWORK/README.md",
	Interrupts: []LevelCount{
		{"Extreme", 92000, []DPCShare{{8, 22}, {16, 46}, {32, 20}}},
		{"High", 115000, []DPCShare{{1, 2}, {2, 7}, {8, 31}, {16, 46}, {32, 11}}},
		{"Medium", 180000, []DPCShare{{1, 30}, {4, 22}, {16, 34}}},
		{"Adaptive", 200000, []DPCShare{{1, 6}, {2, 22}, {4, 41}, {16, 24}}},
		{"Low", 340000, []DPCShare{{2, 23}, {8, 55}}},
		{"Minimal", 640000, []DPCShare{{2, 49}, {4, 8}, {8, 34}}},
		{"Off", 2650000, []DPCShare{{1, 27}, {2, 58}, {8, 8}}},
	},
	Findings: []string{
		"a higher level means fewer interrupts; Adaptive depends on the load",
		"the levels changed NDIS DPC times more than ISR times (\"more of an impact on DPC latency processing times over ISR\")",
		"NDIS DPC times did not scale equally with the level (\"each setting didn't scale equally\"): Off had the shortest (85% within 2 µs) and Extreme the longest (most 8-32 µs); most of Low's DPCs took 2-8 µs where most of Medium's and Adaptive's took 4 µs or less, yet theirs reached 16 µs (34% and 24%) where Low's stopped at 8 µs",
		"how the NDIS DPCs spread across cores varied between runs; their times did not",
		"disabling *InterruptModeration gave the same numbers as ITR Off",
		"Medium seemed to the researcher to have the least impact on games while keeping DPC latency low: 90% of DPCs within 1 µs for high-volume small UDP packets (gaming; its TCP run gave Medium 30%); one adapter was measured, and another driver's Medium is another number",
	},
	// net1ic64.inf lines 2175-2184 ([e1c.reg], installed for
	// PCI\VEN_8086&DEV_10D3&SUBSYS_A01F8086, "Intel(R) Gigabit CT Desktop
	// Adapter"); internal/inf/testdata/README.md (net1ic64-like.inf) gives
	// the file's repository, path and commit.
	Levels: []EnumOpt{{"65535", "Adaptive"}, {"3600", "Extreme"}, {"2000", "High"}, {"950", "Medium"}, {"400", "Low"}, {"200", "Minimal"}, {"0", "Off"}},
	LevelsSource: "net1ic64.inf 12.19.1.32, the e1i INF (driver e1i68x64) Windows ships for the 82574L; " +
		"github.com/OSDeploy/WinPEDriverPack, amd64/Win11-Ethernet/src/Net/net1ic64_12.19.1.32_58317EB3B60C092279A54391A4D999CE94D4DA1585D1CC1669772B148073FAB6/net1ic64.inf, " +
		"commit b82036c119fb70730fa59912da9b6867dd355fdd, lines 2175-2184",
}

// itrEvidence is the measured evidence as text lines under 80 columns:
// each level's interrupts and its NDIS DPC histogram, then the findings.
func itrEvidence() []string {
	out := []string{
		"Measured (GamingPCSetup research: Intel Gigabit CT, Windows 10 1909, 30 s",
		"  of 900 Mbit/s TCP per level, xperf), interrupts and NDIS DPC times per",
		"  level, fewest interrupts first:",
	}
	for _, c := range itrMeasured.Interrupts {
		var h []string
		for _, d := range c.DPC {
			h = append(h, fmt.Sprintf("%d%% <=%dµs", d.Percent, d.AtMostUs))
		}
		out = append(out, fmt.Sprintf("  %-8s %9s: %s", c.Level, units.Thousands(c.Interrupts), strings.Join(h, ", ")))
	}
	out = append(out,
		"  A higher level means fewer interrupts (Adaptive depends on the load), but",
		"  DPC times did not scale equally: Off ran the shortest NDIS DPCs, Extreme",
		"  the longest; most of Low's took 2-8 µs where most of Medium's and",
		"  Adaptive's took 4 µs or less, yet theirs reached 16 µs (34% and 24%)",
		"  and Low's stopped at 8 µs. The levels moved DPC times more than ISR",
		"  times; how the DPCs spread across cores varied between runs.",
		"  Disabling *InterruptModeration measured the same as ITR Off. Medium",
		"  seemed to have the least impact on games: 90% of DPCs within 1 µs for",
		"  high-volume small UDP packets (gaming; the TCP run above gave Medium",
		"  30%). One adapter was measured; another driver's Medium is another",
		"  number.",
		"  Source: github.com/djdallmann/GamingPCSetup, CONTENT/RESEARCH/NETWORK",
		"  /README.md, \"Intel Interrupt Moderation\"")
	out = append(out, textwrap.Hanging("  The Gigabit CT's e1i INF as Windows ships it (net1ic64.inf 12.19.1.32,"+
		" lines 2175-2184) codes the levels as e1r/e1d do: "+strings.Join(levelItems(itrMeasured.Levels), ", ")+
		"; the research does not say which driver version it ran.", 2, 80)...)
	return out
}

// levelItems is "Adaptive 65535", "Extreme 3600", ... for a wrapped list.
func levelItems(levels []EnumOpt) []string {
	var s []string
	for _, o := range levels {
		s = append(s, o.Name+" "+o.Value)
	}
	return s
}

func levelList(levels []EnumOpt) string {
	var s []string
	for _, o := range levels {
		s = append(s, o.Name+" "+o.Value)
	}
	return strings.Join(s, ", ")
}

// RateLevels is where an adapter's rate levels come from.
type RateLevels struct {
	Keyword string    `json:"rate_keyword"`
	Param   NdiParam  `json:"ndi_params"`
	Levels  []EnumOpt `json:"levels,omitempty"`
	// Source: "adapter" (its Ndi\Params\<kw>\Enum), "built-in FAMILY"
	// (latlab's table, the adapter declares none), or "" (none known).
	Source  string `json:"levels_from,omitempty"`
	Service string `json:"driver_service,omitempty"`
}

// rateLevels picks the levels of a rate keyword: the adapter's own enum,
// else (for ITR) the built-in table of its driver family.
func rateLevels(kw string, p NdiParam, service string) RateLevels {
	r := RateLevels{Keyword: kw, Param: p, Service: service}
	switch {
	case len(p.Enum) > 0:
		r.Levels, r.Source = p.Enum, "adapter"
	case kw == "ITR" && !numericType(p.Type):
		if f := itrFamilyOf(service); f != nil {
			r.Levels, r.Source = f.Levels, "built-in "+f.Family
		}
	}
	return r
}

// Describe is the name of a stored number ("" when not a known level).
func (r RateLevels) Describe(v string) string {
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	for _, o := range r.Levels {
		if o.Value == v || (err == nil && sameNumber(o.Value, n)) {
			return o.Name
		}
	}
	return ""
}

// Resolve turns a requested rate (a level name, or a number) into the
// number to store, checked against what the adapter declares. note says
// where the number came from when it is not the adapter's own list.
func (r RateLevels) Resolve(adapterName, rate string) (n uint64, note string, err error) {
	rate = strings.TrimSpace(rate)
	num, numErr := strconv.ParseInt(rate, 10, 64)
	for _, o := range r.Levels {
		if strings.EqualFold(o.Name, rate) || (numErr == nil && sameNumber(o.Value, num)) {
			v, err := strconv.ParseUint(strings.TrimSpace(o.Value), 10, 32)
			if err != nil {
				return 0, "", fmt.Errorf("%s level %q of %q has the value %q, not a number", r.Keyword, o.Name, adapterName, o.Value)
			}
			if r.Source != "adapter" {
				note = fmt.Sprintf("%q declares no %s levels in Ndi\\Params: used latlab's %s table (%s = %d)", adapterName, r.Keyword, r.Source, o.Name, v)
			}
			return v, note, nil
		}
	}
	if len(r.Levels) > 0 {
		from := "its Ndi\\Params\\" + r.Keyword + "\\Enum"
		if r.Source != "adapter" {
			from = "latlab's " + r.Source + " table (the adapter declares none)"
		}
		return 0, "", badinput.Errorf("%s level %q is not offered by %q: %s accepts %s", r.Keyword, rate, adapterName, from, levelList(r.Levels))
	}
	if numericType(r.Param.Type) {
		if numErr != nil || num < 0 || num > 0xFFFFFFFF {
			return 0, "", badinput.Errorf("%s of %q is a number (%s), not %q", r.Keyword, adapterName, r.Param.Accepted(), rate)
		}
		if err := r.Param.CheckAgainst(adapterName, num); err != nil {
			return 0, "", err
		}
		return uint64(num), "", nil
	}
	if numErr != nil || num < 0 || num > 0xFFFFFFFF {
		return 0, "", badinput.Errorf("%s of %q declares no levels and its driver (service %q) has no built-in table: the numbers are driver-specific, so give the driver's number as rate=N", r.Keyword, adapterName, r.Service)
	}
	return uint64(num), fmt.Sprintf("%s=%d is not checked: %q declares no levels; the numbers are driver-specific", r.Keyword, num, adapterName), nil
}
