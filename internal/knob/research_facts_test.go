package knob

import (
	"strings"
	"testing"
)

// Facts of the research texts (docs/README names them: 000 PC-Tuning, 003
// GamingPCSetup; "000:326" is line 326 of the saved copy) that the
// explanations must state, each with where it is read. A fact once missing
// or wrong is listed here.
func TestExplanationsStateTheResearchFacts(t *testing.T) {
	explain := func(name string) string {
		k, err := Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		ex, err := k.Explain("", ExplainOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return strings.Join(strings.Fields(strings.Join(ex.Text, " ")), " ")
	}
	for _, f := range []struct {
		cite, knob string
		says       []string
	}{
		// The study's table: identity for every request at the native
		// resolution and at a CRU-made 1280x720; the request honoured at
		// the GPU control panel's 1280x720.
		{"000:322-333", "display-scaling", []string{"came out as identity whenever the monitor was sent the desktop's resolution", "Custom Resolution Utility (CRU)", "only a lower resolution set in the GPU control panel took the request"}},
		{"000:340-342", "display-scaling", []string{"GPU or display scaling made a difference only with two or more detailed resolutions in CRU"}},
		{"000:346", "display-scaling", []string{"the monitor's on-screen display shows the desktop's resolution; another one means the GPU scales"}},
		{"000:75", "rss", []string{"are CPUs another driver or a realtime program could have used"}},
		{"003:98", "network-throttling-index", []string{"Intel adapters mostly within 1-2 µs, Realtek higher (most within 4 µs, some near 32 µs)"}},
		{"003:88", "network-throttling-index", []string{"Mark Russinovich's article \"Multimedia Class Scheduler Service (MMCSS) Vista Multimedia Playback and Network Throughput\""}},
		{"003:4", "interrupt-moderation", []string{"The levels moved DPC times more than ISR times"}},
		{"003:69", "interrupt-moderation", []string{"how the DPCs spread across cores varied between runs"}},
	} {
		text := explain(f.knob)
		for _, s := range f.says {
			if !strings.Contains(text, s) {
				t.Errorf("%s (research %s) does not say %q", f.knob, f.cite, s)
			}
		}
	}
}
