package knob

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/knob/backend"
	"github.com/latlab/latlab/internal/textwrap"
)

// nicBuffersName is the knob's name, written in this file only: the rest of
// latlab asks the catalogue.
const nicBuffersName = "nic-buffers"

func init() { register(nicBuffers{}) }

// nic-buffers: the NDIS standardized keywords *ReceiveBuffers and
// *TransmitBuffers of a network adapter, REG_SZ numbers whose range the
// driver's INF states in Ndi\Params (type, min, max, step). Microsoft's
// table of standardized keywords that can be edited
// (learn.microsoft.com/windows-hardware/drivers/network/keywords-that-can-be-edited)
// describes them differently: *ReceiveBuffers is "the number of receive
// descriptors used by the miniport adapter", *TransmitBuffers "the size,
// in bytes, of the transmit buffers that the hardware can support", which
// is "hardware-dependent"; so latlab quotes the table and the driver's own
// Ndi\Params (its ParamDesc, type and range) and calls neither a count of
// its own. The GamingPCSetup interrupt moderation measurements
// (djdallmann, CONTENT/RESEARCH/NETWORK/README.md) ran with "RX & TX
// buffer 768" and name rx/tx buffers among the factors their results "may
// be dependant" on.

// bufferKeywords: each keyword's short name and what Microsoft's table
// says of it.
var bufferKeywords = []struct{ name, short, desc, quote string }{
	{"*ReceiveBuffers", "rx", "receive buffers",
		`"The number of receive descriptors used by the miniport adapter. ... if the value is too small, the miniport adapter may run out of receive buffers under heavy load. If the value is too large, system resources are wasted."`},
	{"*TransmitBuffers", "tx", "transmit buffers",
		`"The size, in bytes, of the transmit buffers that the hardware can support. This size is hardware-dependent and can include data buffers, buffer descriptors, and so on."`},
}

// keywordsSource is the page bufferKeywords quote.
const keywordsSource = `Microsoft, "Keywords that can be edited" (standardized INF keywords for NDIS)`

type nicBuffers struct{ windowsKnob }

func (nicBuffers) Name() string { return nicBuffersName }

// Selectors are the selector flags nicBuffers reads.
func (nicBuffers) Selectors() []string { return []string{SelAdapter} }
func (nicBuffers) Summary() string {
	return "receive and transmit buffers of a network adapter (NDIS *ReceiveBuffers, *TransmitBuffers)"
}

// regInput is what Explain takes for a value a .reg file writes
// (ExplainRegFile): the keyword as KEYWORD=VALUE.
func (nicBuffers) regInput(l backend.Loc, v backend.Value) (string, string) {
	return l.Name + "=" + v.String(), ""
}

// parseBuffers reads "768" (both), "rx=768,tx=512" or
// "*ReceiveBuffers=768".
func parseBuffers(value string) ([]kv, error) {
	const accepted = "accepted N (both), rx=N, tx=N or *ReceiveBuffers=N,*TransmitBuffers=N"
	value = strings.TrimSpace(value)
	if n, err := strconv.ParseUint(value, 10, 32); err == nil {
		return []kv{{"*ReceiveBuffers", n}, {"*TransmitBuffers", n}}, nil
	}
	var out []kv
	for _, part := range strings.FieldsFunc(value, func(r rune) bool { return r == ',' || r == ' ' }) {
		name, val, ok := strings.Cut(part, "=")
		kw := ""
		for _, b := range bufferKeywords {
			if strings.EqualFold(name, b.short) || strings.EqualFold("*"+strings.TrimPrefix(name, "*"), b.name) {
				kw = b.name
			}
		}
		if !ok || kw == "" {
			return nil, badinput.Errorf("invalid nic-buffers setting %q: %s", part, accepted)
		}
		n, err := strconv.ParseUint(strings.TrimSpace(val), 10, 32)
		if err != nil || n == 0 {
			return nil, badinput.Errorf("%s=%s is not a positive whole number: %s", kw, val, accepted)
		}
		for _, o := range out {
			if o.key == kw {
				return nil, badinput.Errorf("nic-buffers %q sets %s twice: give it once", value, kw)
			}
		}
		out = append(out, kv{kw, n})
	}
	if len(out) == 0 {
		return nil, badinput.Errorf("no nic-buffers setting given: %s", accepted)
	}
	return out, nil
}

func (nicBuffers) Explain(value string, o ExplainOptions) (*Explanation, error) {
	ex := &Explanation{Knob: nicBuffersName}
	if value == "" {
		ex.Text = textwrap.Hanging("*ReceiveBuffers and *TransmitBuffers (REG_SZ under the adapter's class key), as "+keywordsSource+" describes them:", 2, 80)
		for _, b := range bufferKeywords {
			ex.Text = append(ex.Text, textwrap.Hanging("  "+b.name+": "+b.quote, 4, 80)...)
		}
		ex.Text = append(ex.Text,
			"What this adapter accepts is its driver's own: the Ndi\\Params of each",
			"  keyword (ParamDesc, type, min, max, step); knob get shows them and set",
			"  checks a value against them.",
			"Bench: GamingPCSetup (djdallmann) measured with \"RX & TX buffer 768\";",
			"  it names rx/tx buffers among what its DPC results may depend on, and",
			"  measured no other size.",
			"Takes effect when the adapter restarts.",
			"Values: N (both), rx=N, tx=N; e.g. latlab knob set nic-buffers 768 --adapter 7",
		)
		return ex, nil
	}
	kvs, err := parseBuffers(value)
	if err != nil {
		return nil, err
	}
	for _, s := range kvs {
		for _, b := range bufferKeywords {
			if b.name == s.key {
				ex.Text = append(ex.Text, textwrap.Hanging(fmt.Sprintf("%s=%d: %d %s; %s: %s", s.key, s.n, s.n, b.desc, keywordsSource, b.quote), 2, 80)...)
			}
		}
	}
	ex.Text = append(ex.Text, "whether the adapter accepts it: latlab knob get nic-buffers --adapter NAME")
	return ex, nil
}

func (k nicBuffers) Get(env *Env, sel Selector) (*Reading, error) {
	as, err := selectAdapters(env, sel)
	if err != nil {
		return nil, err
	}
	r := &Reading{Knob: k.Name()}
	for _, a := range as {
		it := Item{Target: a.String()}
		offered := map[string]NdiParam{}
		var parts, meaning []string
		for _, b := range bufferKeywords {
			l := regLoc(a.Key, b.name)
			v, err := env.read(l)
			if err != nil {
				return nil, err
			}
			np, err := readNdiParam(env, a.Key, b.name)
			if err != nil {
				return nil, err
			}
			if np.Declared {
				offered[b.name] = np
			}
			cur, what := strings.TrimSpace(v.String()), ""
			if v.IsAbsent() {
				if !np.Declared {
					continue
				}
				cur, what = np.Default, " (driver default)"
			} else {
				parts = append(parts, b.name+"="+cur)
				it.Extra = append(it.Extra, Change{Loc: l, Old: v, New: v})
			}
			if cur == "" {
				cur = "?"
			}
			meaning = append(meaning, fmt.Sprintf("%s %s%s", cur, b.desc, what))
			if n, err := strconv.ParseInt(cur, 10, 64); err == nil && np.Declared && !np.Allows(n) {
				it.Warnings = append(it.Warnings, fmt.Sprintf("%s=%s is outside what the adapter declares (%s)", b.name, cur, np.Accepted()))
			}
			if acc := np.Accepted(); acc != "" || np.Desc != "" {
				r.Notes = append(r.Notes, ndiNote(a.Name, b.name, np))
			}
		}
		if len(meaning) == 0 {
			continue // the driver offers neither
		}
		it.Meaning = strings.Join(meaning, ", ")
		it.Value = strings.Join(parts, " ")
		if it.Value == "" {
			it.Value = "(no values stored: driver defaults)"
		}
		if len(offered) > 0 {
			it.Detail = map[string]any{"ndi_params": offered}
		}
		r.Items = append(r.Items, it)
	}
	return r, nil
}

func (k nicBuffers) Plan(env *Env, sel Selector, value string) (*Plan, error) {
	if sel.Adapter == "" {
		return nil, badinput.Errorf("nic-buffers needs --adapter NAME|INDEX (latlab knob get nic-buffers lists them)")
	}
	a, err := findAdapter(env, sel.Adapter)
	if err != nil {
		return nil, err
	}
	kvs, err := parseBuffers(value)
	if err != nil {
		return nil, err
	}
	p := &Plan{Knob: k.Name(), Target: a.Name, Request: value, Notes: []string{"takes effect when the adapter restarts (disable and enable it, or reboot)"}}
	for _, s := range kvs {
		np, err := readNdiParam(env, a.Key, s.key)
		if err != nil {
			return nil, err
		}
		// Unlike the RSS keywords, a buffer count the driver does not
		// declare has no range to check and no known effect.
		if !np.Declared {
			return nil, badinput.Errorf("%q does not declare %s in its Ndi\\Params: its driver offers no such setting", a.Name, s.key)
		}
		if err := np.CheckAgainst(a.Name, int64(s.n)); err != nil {
			return nil, err
		}
		if _, err := p.addNumber(env, regLoc(a.Key, s.key), s.n, backend.TypeSZ); err != nil {
			return nil, err
		}
	}
	return p, nil
}

func (k nicBuffers) Vet(target string, l backend.Loc, v backend.Value) error {
	var names []string
	for _, b := range bufferKeywords {
		names = append(names, b.name)
	}
	if target == "" || !adapterValue(l, names) {
		return notMine(k.Name(), target, l)
	}
	return regNumber(v)
}

// VetLive checks that the class key is the target adapter's: Vet takes
// any adapter's.
func (k nicBuffers) VetLive(env *Env, target string, l backend.Loc, v backend.Value) error {
	return vetAdapterLive(env, k.Name(), target, l, v)
}

// Checkup is what the check-up knows of nic-buffers: its default, how its
// instances are read and the verdict rules.
func (nicBuffers) Checkup() Checkup {
	return Checkup{Default: text("the driver's Ndi\\Params default"), Rules: nicBuffersRules}
}

// Experiment is how a change of nic-buffers takes effect for latlab try.
func (nicBuffers) Experiment() Experiment {
	return Experiment{Scope: ScopeSystem, Restart: true, Settle: DefaultSettle, Probe: ProbeUDP}
}

var nicBuffersRules = []Rule{
	{ID: "buffers-none", Verdict: Default, When: "no adapter declares the buffer keywords",
		Match:  func(c *Case) bool { return c.Empty },
		Reason: text("no network adapter declares *ReceiveBuffers or *TransmitBuffers")},
	{ID: "buffers-out-of-range", Verdict: Suspicious, When: "a stored count the adapter does not declare",
		Match:  func(c *Case) bool { return len(c.Warnings) > 0 },
		Reason: func(c *Case) string { return c.Meaning + "; " + strings.Join(c.Warnings, "; ") }},
	{ID: "buffers-default", Verdict: Default, When: "nothing stored, or every count at its Ndi\\Params default",
		Match:  func(c *Case) bool { diff, known := ndiDiffs(c); return len(c.Extra) == 0 || (known && len(diff) == 0) },
		Reason: func(c *Case) string { return c.Meaning }},
	{ID: "buffers-tuned", Verdict: Changed, When: "a count differs from its Ndi\\Params default",
		Match: always,
		Reason: func(c *Case) string {
			if diff, _ := ndiDiffs(c); len(diff) > 0 {
				return c.Meaning + "; changed from the driver's default: " + strings.Join(diff, ", ")
			}
			return c.Meaning
		},
		Evidence: func(c *Case) string { return quote(nicBuffersName, "", "Bench:") },
		IsDefault: func(c *Case) *bool {
			if _, known := ndiDiffs(c); !known {
				return nil
			}
			return boolPtr(false)
		}},
}

// ndiNote says what the driver's Ndi\Params declare of a keyword: its
// ParamDesc (the name the Advanced tab shows), type and range.
func ndiNote(adapter, kw string, np NdiParam) string {
	var what []string
	if np.Desc != "" {
		what = append(what, fmt.Sprintf("%q", np.Desc))
	}
	if np.Type != "" {
		what = append(what, "type "+strings.ToLower(np.Type))
	}
	if acc := np.Accepted(); acc != "" {
		what = append(what, "accepts "+acc)
	}
	return fmt.Sprintf("%s: %s is %s (its driver's Ndi\\Params)", adapter, kw, strings.Join(what, ", "))
}
