package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/doctor"
	"github.com/latlab/latlab/internal/host"
	"github.com/latlab/latlab/internal/knob"
)

func testDoctorPage(t *testing.T) string {
	t.Helper()
	r := testCheckup()
	r.Settings = append(r.Settings, doctor.Setting{Knob: "qos-dscp", Target: `<script>alert("x")</script>`, Value: "DSCP 46", Verdict: knob.Changed, Reason: "a & b"})
	doc, err := doctor.Document(host.Facts{}, r, map[string]string{"quick": "false"})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := DoctorHTML(&b, doc, r); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestDoctorHTML(t *testing.T) {
	page := testDoctorPage(t)
	// Sleep and wake each get a histogram and a CDF; the per-CPU probe
	// has no samples here.
	if n := strings.Count(page, "<svg"); n != 4 {
		t.Errorf("%d plots, want 4", n)
	}
	for _, want := range []string{`content="default-src 'none'`, `name="viewport"`, "@media (max-width: 40rem)",
		`<span class="badge b-suspicious">suspicious</span>`, "<summary>evidence</summary>", "Measured (GamingPCSetup, xperf, one Intel adapter)",
		"<code>latlab knob set network-throttling-index 10</code>", "&lt;script&gt;", "a &amp; b", "5 read, none altered: ",
		"driver ndis.sys: most DPC", "drop-outs possible: ndis.sys ran a DPC for 1.2 ms"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	bare := strings.ReplaceAll(page, "http://www.w3.org/", "") // SVG's namespaces
	if strings.Contains(bare, "<script") || strings.Contains(bare, "http:") || strings.Contains(bare, "https:") {
		t.Errorf("the page has a script or a link out")
	}
	// The answer first: the verdict, the summary and the next steps come
	// before the evidence (timer, probes, cause, settings).
	last := -1
	for _, want := range []string{`id="verdict">mediocre: some wake-ups`, `<td class="k">wake-ups</td>`, `<td class="k">cause</td>`,
		"Next steps", `<section id="timer">`, `<section id="probes">`, `<section id="cause">`, `<section id="settings">`} {
		i := strings.Index(page, want)
		if i <= last {
			t.Errorf("%q is not after byte %d", want, last)
		}
		last = max(last, i)
	}
	// Worst first.
	if h, d := strings.Index(page, `class="badge b-suspicious"`), strings.Index(page, `class="badge b-default"`); h < 0 || d < h {
		t.Errorf("settings out of order")
	}
}

func TestDoctorHTMLReferences(t *testing.T) {
	r := testCheckup()
	r.Settings = append(r.Settings, doctor.Setting{Knob: "swappiness", Value: "60", Verdict: knob.Default, Reason: "the default",
		References: []knob.Reference{{Source: "tuned", Version: "2.20.0", Profile: "latency-performance", Section: "sysctl", Key: "vm.swappiness", Value: "10"}}})
	doc, err := doctor.Document(host.Facts{}, r, nil)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := DoctorHTML(&b, doc, r); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(b.String(), `<p class="ref">`); n != 1 || !strings.Contains(b.String(), `<p class="ref">tuned 2.20.0 latency-performance: vm.swappiness=10</p>`) {
		t.Errorf("%d reference lines, want the one", n)
	}
}
