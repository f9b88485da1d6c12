package doctor

import (
	"fmt"
)

// Overall is the check-up's answer in one sentence: how timely wake-ups
// are (the wake probe's band) and whether a setting needs attention.
type Overall struct {
	// Band is the wake probe's band (good, fair, mediocre, poor, too
	// few); ""
	// when there was no wake probe.
	Band string `json:"band,omitempty"`
	Text string `json:"text"`
}

// OverallVerdict puts the wake probe's band and the settings' counts in
// one sentence short enough for the first line of the page: each band's
// words fit 80 columns with "; 99 suspicious settings" after them.
func OverallVerdict(r *Result) Overall {
	o := Overall{}
	if r.Wake != nil {
		o.Band = r.Wake.Band
	}
	switch o.Band {
	case "poor":
		o.Text = "poor: some wake-ups later than a 240 Hz frame (4 ms)"
	case "mediocre":
		o.Text = "mediocre: some wake-ups too late for small audio buffers"
	case "fair":
		o.Text = "fair: wake-ups mostly timely, with a tail over 200 µs"
	case "good":
		o.Text = "good: wake-ups are timely"
	case TooFewBand:
		o.Text = "too few wake-ups to judge their tail"
	default:
		o.Text = "no wake probe"
	}
	c := r.Counts
	switch {
	case c.Suspicious > 0:
		o.Text += fmt.Sprintf("; %d %s", c.Suspicious, plural(c.Suspicious, "suspicious setting", "suspicious settings"))
	default:
		o.Text += "; no suspicious setting"
	}
	return o
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
