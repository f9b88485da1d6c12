package knob

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/knob/backend"
	"github.com/latlab/latlab/internal/knob/knobtest"
)

// addAdapter adds a network adapter to the in-memory registry: its
// driver service and, when rateEnum is not nil, an ITR enum.
func addAdapter(m *knobtest.Mem, index, name, service string, rateEnum map[string]string) string {
	key := NetClassKey + `\` + index
	m.Set(key, "DriverDesc", backend.SZ(name))
	m.Set(key, "*InterruptModeration", backend.SZ("1"))
	m.Set(key+`\Ndi`, "Service", backend.SZ(service))
	m.Set(key+`\Ndi\Params\ITR`, "type", backend.SZ("enum"))
	for v, d := range rateEnum {
		m.Set(key+`\Ndi\Params\ITR\Enum`, v, backend.SZ(d))
	}
	return key
}

func TestInterruptModerationAdapterLevels(t *testing.T) {
	env, reg, _, _ := testEnv(t)
	r := get(t, env, "interrupt-moderation", Selector{Adapter: "I225"})
	if len(r.Items) != 1 || !strings.Contains(r.Items[0].Meaning, "ITR Medium (125)") {
		t.Fatalf("reading %+v", r.Items)
	}
	notes := strings.Join(r.Notes, " ")
	if !strings.Contains(notes, `ITR levels (its Ndi\Params\ITR\Enum): Off 0, Minimal 32, Low 64, Medium 125, High 250, Extreme 500`) {
		t.Errorf("notes %v: want the adapter's own enum in numeric order", r.Notes)
	}
	b, _ := json.Marshal(r)
	for _, bad := range []string{"interrupts/s", "488", "Adaptive"} {
		if strings.Contains(notes+string(b), bad) {
			t.Errorf("reading says %q: %s", bad, b)
		}
	}
	if !strings.Contains(string(b), `"levels_from":"adapter"`) || !strings.Contains(string(b), `"level":"Medium"`) {
		t.Errorf("JSON %s: want the level and where the levels come from", b)
	}
	reg.Set(NetClassKey+`\0007`, "ITR", backend.SZ("250"))
	for _, c := range []struct{ in, want string }{
		{"medium", "125"}, {"Extreme", "500"}, {"rate=minimal", "32"}, {"rate=64", "64"}, {"on,rate=off", "0"},
	} {
		p, err := plan(env, "interrupt-moderation", Selector{Adapter: "7"}, c.in)
		if err != nil {
			t.Errorf("%s: %v", c.in, err)
			continue
		}
		itr := p.Changes[len(p.Changes)-1]
		if itr.Loc.Name != "ITR" || itr.New.String() != c.want || itr.New.Type != backend.TypeSZ {
			t.Errorf("%s: wrote %s=%s (%s), want ITR=%s", c.in, itr.Loc.Name, itr.New, itr.New.Type, c.want)
		}
	}
	// The e2f driver has no Adaptive and no 950 (e1r/e1d's Medium).
	for _, in := range []string{"adaptive", "rate=950", "rate=488"} {
		_, err := plan(env, "interrupt-moderation", Selector{Adapter: "7"}, in)
		if err == nil || !badinput.Is(err) || !strings.Contains(err.Error(), "accepts Off 0, Minimal 32, Low 64, Medium 125, High 250, Extreme 500") {
			t.Errorf("%s: %v, want an input error naming the adapter's levels", in, err)
		}
	}
	// on|off stays the NDIS keyword *InterruptModeration.
	p, err := plan(env, "interrupt-moderation", Selector{Adapter: "7"}, "off")
	if err != nil || len(p.Changes) != 1 || p.Changes[0].Loc.Name != "*InterruptModeration" || p.Changes[0].New.String() != "0" {
		t.Fatalf("off: %+v %v", p, err)
	}
}

func TestInterruptModerationFallback(t *testing.T) {
	env, reg, _, _ := testEnv(t)
	addAdapter(reg, "0003", "Intel(R) Ethernet Connection (7) I219-V", "e1dexpress", nil)
	reg.Set(NetClassKey+`\0003`, "ITR", backend.SZ("65535"))
	addAdapter(reg, "0004", "Contoso 10G", "contoso", nil)

	r := get(t, env, "interrupt-moderation", Selector{Adapter: "I219"})
	if !strings.Contains(r.Items[0].Meaning, "ITR Adaptive (65535)") {
		t.Errorf("I219 meaning %q", r.Items[0].Meaning)
	}
	if n := strings.Join(r.Notes, " "); !strings.Contains(n, "ITR declares no levels in Ndi\\Params; latlab's built-in e1r/e1d table applies (driver e1dexpress)") {
		t.Errorf("I219 notes %v: want the fallback said", r.Notes)
	}
	p, err := plan(env, "interrupt-moderation", Selector{Adapter: "I219"}, "medium")
	if err != nil || p.Changes[0].New.String() != "950" {
		t.Fatalf("I219 medium: %+v %v", p, err)
	}
	if !strings.Contains(strings.Join(p.Notes, " "), "used latlab's built-in e1r/e1d table (Medium = 950)") {
		t.Errorf("notes %v: want the fallback said", p.Notes)
	}

	// No enum and no known driver: a name cannot be turned into a number.
	if _, err := plan(env, "interrupt-moderation", Selector{Adapter: "Contoso"}, "medium"); err == nil || !badinput.Is(err) || !strings.Contains(err.Error(), "give the driver's number as rate=N") {
		t.Errorf("unknown driver, name: %v", err)
	}
	p, err = plan(env, "interrupt-moderation", Selector{Adapter: "Contoso"}, "rate=300")
	if err != nil || p.Changes[0].New.String() != "300" || !strings.Contains(strings.Join(p.Notes, " "), "is not checked") {
		t.Errorf("unknown driver, number: %+v %v", p, err)
	}

	// A rate keyword of number type is checked against its min/max.
	k := NetClassKey + `\0004\Ndi\Params\ITR`
	reg.Set(k, "type", backend.SZ("int"))
	reg.Set(k, "min", backend.SZ("100"))
	reg.Set(k, "max", backend.SZ("10000"))
	if _, err := plan(env, "interrupt-moderation", Selector{Adapter: "Contoso"}, "rate=50"); err == nil || !badinput.Is(err) || !strings.Contains(err.Error(), "accepts 100-10000") {
		t.Errorf("int type out of range: %v", err)
	}
}

func TestInterruptModerationExplain(t *testing.T) {
	k, _ := Lookup("interrupt-moderation")
	ex, err := k.Explain("", ExplainOptions{})
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Join(ex.Text, "\n")
	for _, want := range []string{
		"not interrupts per second",
		"e1r/e1d (I210, I219): Adaptive 65535, Extreme 3600, High 2000, Medium 950,",
		"e2f/e2fn (I225):      Extreme 500, High 250, Medium 125, Low 64, Minimal 32,",
		// GamingPCSetup's per-level NDIS DPC histograms (djdallmann,
		// CONTENT/RESEARCH/NETWORK/README.md): "each setting didn't
		// scale equally", so the explanation quotes each level rather
		// than "NDIS DPCs ran longer at higher levels".
		"Extreme     92,000: 22% <=8µs, 46% <=16µs, 20% <=32µs",
		"Medium     180,000: 30% <=1µs, 22% <=4µs, 34% <=16µs",
		"Low        340,000: 23% <=2µs, 55% <=8µs",
		"Off      2,650,000: 27% <=1µs, 58% <=2µs, 8% <=8µs",
		"DPC times did not scale equally", "most of Low's took 2-8 µs where most of Medium's and",
		"yet theirs reached 16 µs (34% and 24%)", "The levels moved DPC times more than ISR",
		"spread across cores varied between runs", "One adapter was measured",
		"A higher level means fewer interrupts",
		"Disabling *InterruptModeration measured the same", "seemed to have the least impact on games: 90% of DPCs within 1 µs",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("explain lacks %q:\n%s", want, text)
		}
	}
	for _, l := range ex.Text {
		if len(l) > 80 {
			t.Errorf("line of %d columns: %q", len(l), l)
		}
	}
	for _, bad := range []string{"488", "interrupts/s", "ran longer at higher levels"} {
		if strings.Contains(text, bad) {
			t.Errorf("explain says %q", bad)
		}
	}

	ex, err = k.Explain("medium", ExplainOptions{})
	if err != nil {
		t.Fatal(err)
	}
	text = strings.Join(ex.Text, "\n")
	if !strings.Contains(text, "Medium 950 on e1r/e1d (I210, I219), Medium 125 on e2f/e2fn (I225)") {
		t.Errorf("explain medium:\n%s", text)
	}
	b, _ := json.Marshal(ex.Data)
	if !strings.Contains(string(b), `"matches":[{"driver_family":"e1r/e1d","level":"Medium","value":"950"},{"driver_family":"e2f/e2fn","level":"Medium","value":"125"}]`) ||
		!strings.Contains(string(b), `"measured":{"source":"GamingPCSetup research (djdallmann), Intel Gigabit CT, Windows 10 1909, 30 s of 900 Mbit/s TCP per level, xperf","url":"https://github.com/djdallmann/GamingPCSetup/blob/master/CONTENT/RESEARCH/NETWORK/README.md","interrupts":[{"level":"Extreme","interrupts":92000,"ndis_dpc":[{"at_most_us":8,"percent":22}`) {
		t.Errorf("explain medium JSON %s", b)
	}
	ex, _ = k.Explain("adaptive", ExplainOptions{})
	if text = strings.Join(ex.Text, "\n"); !strings.Contains(text, "no such level on e2f/e2fn") {
		t.Errorf("explain adaptive:\n%s", text)
	}
	ex, _ = k.Explain("rate=488", ExplainOptions{})
	if text = strings.Join(ex.Text, "\n"); !strings.Contains(text, "rate 488: no level of latlab's ITR tables") {
		t.Errorf("explain 488:\n%s", text)
	}
	for _, bad := range []string{"950", "on,fast,slow", "rate="} {
		if _, err := k.Explain(bad, ExplainOptions{}); err == nil || !badinput.Is(err) {
			t.Errorf("explain %q: %v, want an input error", bad, err)
		}
	}
}

// rss settings are checked against what the adapter's Ndi\Params offer:
// its enum, or min/max (and step) for a number type.
func TestRSSAgainstNdiParams(t *testing.T) {
	env, reg, _, _ := testEnv(t)
	for _, c := range []struct {
		adapter, value, want string
	}{
		{"7", "*NumRssQueues=3", `*NumRssQueues=3 is not offered by "Intel(R) Ethernet Controller (3) I225-V": its Ndi\Params\*NumRssQueues accepts 1 (1 Queue), 2 (2 Queues), 4 (4 Queues)`},
		{"7", "*NumRssQueues=8", "accepts 1 (1 Queue), 2 (2 Queues), 4 (4 Queues)"},
		{"1", "*MaxRssProcessors=12", "accepts 1-8"},
		{"1", "*RssBaseProcNumber=3", "accepts 0-6 in steps of 2"},
	} {
		rtk := NetClassKey + `\0001\Ndi\Params\`
		reg.Set(rtk+"*MaxRssProcessors", "type", backend.SZ("int"))
		reg.Set(rtk+"*MaxRssProcessors", "min", backend.SZ("1"))
		reg.Set(rtk+"*MaxRssProcessors", "max", backend.SZ("8"))
		reg.Set(rtk+"*RssBaseProcNumber", "type", backend.SZ("int"))
		reg.Set(rtk+"*RssBaseProcNumber", "min", backend.SZ("0"))
		reg.Set(rtk+"*RssBaseProcNumber", "max", backend.SZ("6"))
		reg.Set(rtk+"*RssBaseProcNumber", "step", backend.SZ("2"))
		_, err := plan(env, "rss", Selector{Adapter: c.adapter}, c.value)
		if err == nil || !badinput.Is(err) || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s on %s: %v, want an input error containing %q", c.value, c.adapter, err, c.want)
		}
	}
	for _, c := range []struct{ adapter, value string }{
		{"7", "*NumRssQueues=2"}, {"7", "off"}, {"1", "*MaxRssProcessors=8,*RssBaseProcNumber=4"},
		// Not declared by the I225-V's INF: only the documented range applies.
		{"7", "*RssBaseProcNumber=3"},
	} {
		if p, err := plan(env, "rss", Selector{Adapter: c.adapter}, c.value); err != nil || len(p.Changes) == 0 {
			t.Errorf("%s on %s: %+v %v", c.value, c.adapter, p, err)
		}
	}
	r := get(t, env, "rss", Selector{Adapter: "7"})
	if b, _ := json.Marshal(r.Items[0].Detail); !strings.Contains(string(b), `"*NumRssQueues":{"keyword":"*NumRssQueues","declared":true,"param_desc":"Maximum Number of RSS Queues","type":"enum","enum":[{"value":"1","name":"1 Queue"},{"value":"2","name":"2 Queues"},{"value":"4","name":"4 Queues"}]}`) {
		t.Errorf("rss get detail %s: want what the adapter offers", b)
	}
	// *InterruptModeration is checked against its enum too.
	reg.Write(regLoc(NetClassKey+`\0007\Ndi\Params\*InterruptModeration\Enum`, "0"), backend.Absent)
	if _, err := plan(env, "interrupt-moderation", Selector{Adapter: "7"}, "off"); err == nil || !badinput.Is(err) || !strings.Contains(err.Error(), "accepts 1 (Enabled)") {
		t.Errorf("*InterruptModeration=0 not offered: %v", err)
	}
}

func TestNdiParamAllows(t *testing.T) {
	i := func(n int64) *int64 { return &n }
	for _, c := range []struct {
		p        NdiParam
		n        int64
		ok       bool
		accepted string
	}{
		{NdiParam{}, 3, true, ""},
		{NdiParam{Enum: []EnumOpt{{"1", "a"}, {"02", "b"}}}, 2, true, "1 (a), 02 (b)"},
		{NdiParam{Enum: []EnumOpt{{"1", ""}, {"x", "y"}}}, 3, false, "1, x (y)"},
		{NdiParam{Type: "int", Min: i(-5), Max: i(5)}, -5, true, "-5 to 5"},
		{NdiParam{Type: "int", Min: i(0), Max: i(64), Step: 4}, 6, false, "0-64 in steps of 4"},
		{NdiParam{Type: "dword", Max: i(10)}, 11, false, "up to 10"},
		{NdiParam{Type: "word", Min: i(2)}, 1, false, "2 or more"},
	} {
		if got := c.p.Allows(c.n); got != c.ok {
			t.Errorf("%+v allows %d = %v", c.p, c.n, got)
		}
		if got := c.p.Accepted(); got != c.accepted {
			t.Errorf("%+v accepted %q, want %q", c.p, got, c.accepted)
		}
	}
}

func FuzzParseModeration(f *testing.F) {
	for _, s := range []string{"on", "off,rate=minimal", "medium", "rate=950", "on,,", "rate=", "a,b", "1,0"} {
		f.Add(s)
	}
	rl := rateLevels("ITR", NdiParam{}, "e2fexpress")
	f.Fuzz(func(t *testing.T, s string) {
		mod, rate, err := parseModeration(s)
		if err != nil {
			if !badinput.Is(err) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("%q: %v", s, err)
			}
			return
		}
		if mod < -1 || mod > 1 || (mod < 0 && rate == "") {
			t.Fatalf("%q: mod %d rate %q", s, mod, rate)
		}
		if rate != "" {
			if _, _, err := rl.Resolve("x", rate); err != nil && !badinput.Is(err) {
				t.Fatalf("%q: %v", rate, err)
			}
		}
	})
}

// GamingPCSetup's histograms (research 003:21-65): "each setting didn't
// scale equally" (003:4). Low's DPCs ran longer than Medium's and
// Adaptive's at the median only: their upper buckets reach 16 µs where
// Low's stop at 8 µs. The explanation once said Low's "ran longer" with no
// such limit. The figures it quotes are computed here from the table.
func TestITRFindingsFollowTheHistograms(t *testing.T) {
	level := func(name string) LevelCount {
		for _, c := range itrMeasured.Interrupts {
			if c.Level == name {
				return c
			}
		}
		t.Fatalf("no level %s", name)
		return LevelCount{}
	}
	// median is the bucket where half the listed DPCs are reached; top
	// is the last bucket listed, with its share.
	median := func(c LevelCount) int {
		total := 0
		for _, d := range c.DPC {
			total += d.Percent
		}
		cum := 0
		for _, d := range c.DPC {
			cum += d.Percent
			if 2*cum >= total {
				return d.AtMostUs
			}
		}
		return -1
	}
	top := func(c LevelCount) DPCShare { return c.DPC[len(c.DPC)-1] }
	low, med, ada := level("Low"), level("Medium"), level("Adaptive")
	if !(median(low) > median(med) && median(low) > median(ada)) {
		t.Errorf("Low's median bucket %d µs is not above Medium's %d and Adaptive's %d", median(low), median(med), median(ada))
	}
	if !(top(med).AtMostUs > top(low).AtMostUs && top(ada).AtMostUs > top(low).AtMostUs) {
		t.Errorf("Medium's and Adaptive's last buckets (%d, %d µs) do not pass Low's (%d µs)", top(med).AtMostUs, top(ada).AtMostUs, top(low).AtMostUs)
	}
	quoted := fmt.Sprintf("most of Low's took 2-%d µs where most of Medium's and Adaptive's took %d µs or less, yet theirs reached %d µs (%d%% and %d%%) and Low's stopped at %d µs",
		median(low), max(median(med), median(ada)), top(med).AtMostUs, top(med).Percent, top(ada).Percent, top(low).AtMostUs)
	flat := strings.Join(strings.Fields(strings.Join(itrEvidence(), " ")), " ")
	if !strings.Contains(flat, quoted) {
		t.Errorf("the evidence does not say %q:\n%s", quoted, flat)
	}
	if strings.Contains(flat, "Low's ran longer") {
		t.Error("the evidence says Low's DPCs ran longer without the tails")
	}
}

// The Medium rule: GamingPCSetup tested one Intel Gigabit CT and says
// Medium "seemed" best (research 003:75), and a driver's Medium is its own
// number (950 on e1r/e1d, 125 on e2f/e2fn).
func TestMediumCaveatNamesTheOneAdapterAndTheNumbers(t *testing.T) {
	for _, want := range []string{"seemed", "one adapter it measured (an Intel Gigabit CT)", "950 on e1r/e1d, 125 on e2f/e2fn"} {
		if !strings.Contains(mediumCaveat, want) {
			t.Errorf("%q lacks %q", mediumCaveat, want)
		}
	}
	if strings.Contains(mediumCaveat, "best balance") {
		t.Errorf("%q claims the measured best balance", mediumCaveat)
	}
}
