package doctor

import (
	"slices"
	"strings"
)

// The global RSS state (netsh int tcp show global) decides before any
// adapter keyword: disabled, no adapter spreads receive processing. Its
// rule goes first among the rss rules.
func init() {
	i := slices.IndexFunc(Rules, func(r Rule) bool { return r.Knob == "rss" })
	if i < 0 {
		i = len(Rules)
	}
	Rules = slices.Insert(Rules, i, Rule{
		ID: "rss-global-off", Knob: "rss", Verdict: Suspicious, When: "the global Receive-Side Scaling State is disabled",
		Match:    func(c *Case) bool { return globalRSS(c) == "disabled" },
		Reason:   text("RSS is disabled globally (netsh int tcp show global): one CPU processes every adapter's received packets, whatever the keywords"),
		Evidence: func(c *Case) string { return quote("rss", "", `State": disabled`) },
		Next: func(c *Case) *Step {
			return &Step{Command: "netsh int tcp set global rss=enabled", Why: "RSS is disabled for every adapter", Benefit: 40}
		},
	})
}

// globalRSS is the global state the rss reading noted, "" when unknown.
func globalRSS(c *Case) string {
	for _, n := range c.Notes {
		if v, ok := strings.CutPrefix(n, "global Receive-Side Scaling State (netsh int tcp show global): "); ok {
			return v
		}
	}
	return ""
}
