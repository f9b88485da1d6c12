package try

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/testutil"
)

// A knob no probe measures says why in its own words; the TCP knobs keep
// theirs. rt-throttling was told to compare TCP discard runs.
func TestTryUnprobedNote(t *testing.T) {
	root := testutil.TempDir(t)
	testutil.WriteTree(t, root, map[string]string{
		"proc/sys/kernel/sched_rt_runtime_us": "950000\n",
		"proc/sys/kernel/sched_rt_period_us":  "1000000\n",
		"proc/sys/net/ipv4/tcp_recovery":      "1\n",
	})
	state := filepath.Join(testutil.TempDir(t), "state")
	for _, c := range []struct{ knob, value, want, not string }{
		{"rt-throttling", "off", "none of try's probes measures what rt-throttling changes: throttling stops realtime threads", "TCP"},
		{"tcp-recovery", "0", "(TCP loss recovery): compare latlab net tcp-discard runs", ""},
	} {
		in, ok := LookupInfo(c.knob)
		if !ok || in.Probe != "" {
			t.Fatalf("%s: %+v", c.knob, in)
		}
		if c.knob == "rt-throttling" && in.Unprobed == "" {
			t.Fatalf("%s says nothing of why no probe shows it", c.knob)
		}
		o := treeOptions(root, state, c.value)
		o.Knob, o.Command = c.knob, "latlab try "+c.knob
		res, err := Plan(o)
		if err != nil {
			t.Fatal(err)
		}
		notes := strings.Join(res.Notes, "\n")
		if !strings.Contains(notes, c.want) || (c.not != "" && strings.Contains(notes, c.not)) {
			t.Errorf("%s: notes %q, want %q", c.knob, notes, c.want)
		}
	}
}
