package knob

import (
	"os"
	"strings"
	"testing"
)

// The fixtures are written in Microsoft's documented layout, not captured
// (testdata/rssstate.PROVENANCE).
func TestParseOffloadGlobal(t *testing.T) {
	f, err := os.Open("testdata/offload-global.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	g, err := ParseOffloadGlobal(f)
	if err != nil {
		t.Fatal(err)
	}
	s := &RSSState{Offload: g}
	if s.GlobalRSS() != "enabled" || g.ReceiveSegmentCoalescing != "enabled" {
		t.Errorf("parsed %+v", g)
	}
	for _, tc := range []struct{ in, rss, rsc string }{
		{`{"ReceiveSideScaling":0,"ReceiveSegmentCoalescing":0}`, "disabled", "disabled"},
		{"\ufeff[{\"ReceiveSideScaling\":1}]\r\n", "enabled", ""},
		{`{"ReceiveSideScaling":7,"ReceiveSegmentCoalescing":1}`, "7", "enabled"},
	} {
		g, err := ParseOffloadGlobal(strings.NewReader(tc.in))
		if err != nil || g.ReceiveSideScaling != tc.rss || g.ReceiveSegmentCoalescing != tc.rsc {
			t.Errorf("%q: %+v %v", tc.in, g, err)
		}
	}
	for _, bad := range []string{
		"", "Get-CimInstance : Ungültige Klasse", `{"ReceiveSegmentCoalescing":1}`, `[]`,
		`[{"ReceiveSideScaling":1},{"ReceiveSideScaling":0}]`, `{"ReceiveSideScaling":"Enabled"}`,
	} {
		if g, err := ParseOffloadGlobal(strings.NewReader(bad)); err == nil {
			t.Errorf("%q parsed as %+v", bad, g)
		}
	}
}

// netsh translates its labels: on a German or French Windows the global
// state read by the English label came back empty and rss-global-off never
// fired. The CIM class's JSON is the same in every language.
func TestGlobalRSSAnyLanguage(t *testing.T) {
	for _, lang := range []string{"en", "de", "fr"} {
		g, err := ParseOffloadGlobal(strings.NewReader(`{"ReceiveSideScaling":0,"ReceiveSegmentCoalescing":1}`))
		if err != nil {
			t.Fatal(err)
		}
		a, err := os.ReadFile(map[string]string{"en": "testdata/get-netadapterrss.txt", "de": "testdata/get-netadapterrss-de.txt", "fr": "testdata/get-netadapterrss-fr.txt"}[lang])
		if err != nil {
			t.Fatal(err)
		}
		as, err := ParseNetAdapterRSS(strings.NewReader(string(a)))
		if err != nil {
			t.Fatal(err)
		}
		s := &RSSState{Offload: g, Adapters: as}
		if s.GlobalRSS() != "disabled" {
			t.Errorf("%s: global %q", lang, s.GlobalRSS())
		}
		if len(as) != 2 || as[0].Summary() != "enabled true, 2 queues, profile NUMAStatic, base 0:2, max 2 processors, indirection table: 16 entries over 0:2 0:3" ||
			as[1].Enabled != "False" || !strings.HasSuffix(as[1].Name, " 2") {
			t.Errorf("%s: adapters %+v", lang, as)
		}
	}
}

func TestParseNetAdapterRSS(t *testing.T) {
	f, err := os.Open("testdata/get-netadapterrss.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	as, err := ParseNetAdapterRSS(f)
	if err != nil {
		t.Fatal(err)
	}
	if len(as) != 2 {
		t.Fatalf("%d adapters: %+v", len(as), as)
	}
	a := as[0]
	if a.InterfaceDescription != "Intel(R) Ethernet Controller (3) I225-V" || a.BaseProcessor != "0:2" || a.MaxProcessor != "0:3" || a.MaxProcessors != "2" ||
		a.Profile != "NUMAStatic" || a.Queues != "2" || strings.Join(a.Processors, " ") != "0:2/0 0:3/0" || len(a.IndirectionTable) != 16 {
		t.Errorf("adapter %+v", a)
	}
	if got := a.Summary(); got != "enabled true, 2 queues, profile NUMAStatic, base 0:2, max 2 processors, indirection table: 16 entries over 0:2 0:3" {
		t.Errorf("summary %q", got)
	}
	if b := as[1]; b.Enabled != "False" || len(b.IndirectionTable) != 0 || b.MaxProcessor != "0:63" {
		t.Errorf("second adapter %+v", b)
	}
}

func FuzzParseNetAdapterRSS(f *testing.F) {
	b, _ := os.ReadFile("testdata/get-netadapterrss.txt")
	f.Add(string(b))
	f.Add("Name : x\n  0:1\nIndirectionTable : \n 0:0 0:1\n")
	f.Fuzz(func(t *testing.T, s string) {
		as, err := ParseNetAdapterRSS(strings.NewReader(s))
		if err == nil {
			for _, a := range as {
				_ = a.Summary()
			}
		}
	})
}

func FuzzParseOffloadGlobal(f *testing.F) {
	b, _ := os.ReadFile("testdata/offload-global.json")
	f.Add(string(b))
	f.Fuzz(func(t *testing.T, s string) {
		g, err := ParseOffloadGlobal(strings.NewReader(s))
		if err == nil && g.ReceiveSideScaling == "" {
			t.Fatal("no state and no error")
		}
	})
}

// knob get rss shows the global state and what NDIS made of the keywords.
func TestRSSReadingWithState(t *testing.T) {
	env, _, _, _ := testEnv(t)
	state := func(global string) func() (*RSSState, error) {
		return func() (*RSSState, error) {
			a, _ := os.ReadFile("testdata/get-netadapterrss.txt")
			gl, err := ParseOffloadGlobal(strings.NewReader(`{"ReceiveSideScaling":` + global + `,"ReceiveSegmentCoalescing":1}`))
			if err != nil {
				return nil, err
			}
			as, err := ParseNetAdapterRSS(strings.NewReader(string(a)))
			return &RSSState{Offload: gl, Adapters: as}, err
		}
	}
	env.RSSState = state("1")
	r := get(t, env, "rss", Selector{})
	notes := strings.Join(r.Notes, "\n")
	if !strings.Contains(notes, "global Receive-Side Scaling (MSFT_NetOffloadGlobalSetting): enabled") || strings.Contains(notes, "RSS is off for every adapter") {
		t.Errorf("notes %v", r.Notes)
	}
	for _, it := range r.Items {
		switch {
		case strings.Contains(it.Target, "I225-V"):
			if !strings.Contains(it.Meaning, "Get-NetAdapterRss: enabled true, 2 queues, profile NUMAStatic, base 0:2") {
				t.Errorf("I225-V meaning %q", it.Meaning)
			}
			if d, _ := it.Detail.(map[string]any); d == nil || d["adapter_rss"] == nil || d["ndi_params"] == nil {
				t.Errorf("I225-V detail %+v", it.Detail)
			}
		case strings.Contains(it.Target, "Realtek"):
			if !strings.Contains(strings.Join(it.Warnings, " "), "*RSS is 1 but Get-NetAdapterRss says Enabled False") {
				t.Errorf("Realtek warnings %v", it.Warnings)
			}
		}
	}
	env.RSSState = state("0")
	r = get(t, env, "rss", Selector{})
	if !strings.Contains(strings.Join(r.Notes, "\n"), "RSS is off for every adapter whatever its keywords") {
		t.Errorf("global off not said: %v", r.Notes)
	}
	k, _ := Lookup("rss")
	ex, _ := k.Explain("", ExplainOptions{})
	if text := strings.Join(ex.Text, "\n"); !strings.Contains(text, "Get-NetAdapterRss") || !strings.Contains(text, "indirection table") {
		t.Errorf("explain does not say where the state is read:\n%s", text)
	}
}

// Text that is not the list view read as "no adapter", the answer of a
// machine without RSS. Seen in public material: a script that keeps
// get-NetAdapterRss's output behind "#", the table view (Get-NetAdapterRss |
// Format-Table Name, Enabled, ...), the cmdlet's error message.
func TestParseNetAdapterRSSNoAdapter(t *testing.T) {
	list, err := os.ReadFile("testdata/get-netadapterrss.txt")
	if err != nil {
		t.Fatal(err)
	}
	var commented strings.Builder
	for _, l := range strings.SplitAfter(string(list), "\n") {
		commented.WriteString("#" + l)
	}
	for _, bad := range []string{
		commented.String(),
		"\r\nName       Enabled NumberOfReceiveQueues\r\n----       ------- ---------------------\r\nEthernet      True                     2\r\n",
		"Get-NetAdapterRss : No MSFT_NetAdapterRssSettingData objects found with property 'Name' equal to 'Ethernet'.  Verify the value of the property and retry.\n",
	} {
		if as, err := ParseNetAdapterRSS(strings.NewReader(bad)); err == nil || !strings.Contains(err.Error(), "no adapter") {
			t.Errorf("%.40q: %+v, %v", bad, as, err)
		}
	}
	// A byte-order mark before the first "Name" is not text of another layout.
	if as, err := ParseNetAdapterRSS(strings.NewReader("\ufeff" + strings.TrimLeft(string(list), "\r\n"))); err != nil || len(as) != 2 || as[0].Name != "Ethernet" {
		t.Errorf("with a byte-order mark: %+v, %v", as, err)
	}
	for _, none := range []string{"", "\ufeff", "\r\n\r\n", "  \n"} {
		if as, err := ParseNetAdapterRSS(strings.NewReader(none)); err != nil || len(as) != 0 {
			t.Errorf("%q: %+v, %v", none, as, err)
		}
	}
}

// The Windows Server tuning guide's example (English and its translations)
// ends the table's name in "]:" with the entries below; read by " : " alone
// the table came back empty and knob get rss warned that RSS spreads
// nothing. The rows here are whole (the guide elides some).
func TestParseNetAdapterRSSBracketColon(t *testing.T) {
	in := "Name                           : testnic 2\n" +
		"InterfaceDescription           : Broadcom BCM5708C NetXtreme II GigE (NDIS VBD Client) #66\n" +
		"Enabled                        : True\n" +
		"NumberOfReceiveQueues          : 2\n" +
		"BaseProcessor: [Group:Number]  : 0:0\n" +
		"MaxProcessor: [Group:Number]   : 0:15\n" +
		"RssProcessorArray: [Group:Number/NUMA Distance]:\n" +
		"     0:0/0  0:4/0\n" +
		"IndirectionTable: [Group:Number]: 0:0    0:4    0:0    0:4\n" +
		"     0:0    0:4    0:0    0:4    0:0    0:4    0:0    0:4\n"
	as, err := ParseNetAdapterRSS(strings.NewReader(in))
	if err != nil || len(as) != 1 {
		t.Fatalf("%+v, %v", as, err)
	}
	a := as[0]
	if strings.Join(a.Processors, " ") != "0:0/0 0:4/0" || len(a.IndirectionTable) != 12 || strings.Join(a.IndirectionCPUs(), " ") != "0:0 0:4" ||
		a.BaseProcessor != "0:0" || a.MaxProcessor != "0:15" {
		t.Errorf("%+v", a)
	}
	if w := emptyTableWarning(a); w != "" {
		t.Errorf("warns: %s", w)
	}
}

// The tuning guide's example elides rows of the table with "…" lines and a
// comment; the row after them continued nothing and was dropped, so the
// table read 8 entries where the example shows 16. Entries that continue
// neither the array nor the table are an error; a value wrapped onto an
// indented line (no entries on it) is not.
func TestParseNetAdapterRSSStrayEntries(t *testing.T) {
	head := "Name                           : testnic 2\n" +
		"Enabled                        : True\n"
	elided := "     0:0    0:4    0:0    0:4    0:0    0:4    0:0    0:4\n" +
		"…\n" +
		"(# indirection table entries are a power of 2 and based on # of processors)\n" +
		"…\n" +
		"                          0:0    0:4    0:0    0:4    0:0    0:4    0:0    0:4\n"
	for _, tc := range []struct{ name, in, says string }{
		{"spaced", head + "IndirectionTable: [Group:Number]                :\n" + elided, `line 8: entries "0:0    0:4`},
		{"bracket colon", head + "IndirectionTable: [Group:Number]:\n" + elided, `(after "…", not a line of the list view)`},
		{"after a scalar", head + "MaxProcessors                  : 8\n     0:0/0  0:2/0\n", `line 4: entries "0:0/0  0:2/0"`},
	} {
		as, err := ParseNetAdapterRSS(strings.NewReader(tc.in))
		if err == nil || !strings.Contains(err.Error(), "continue neither") || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%s: %+v, %v", tc.name, as, err)
		}
	}
	wrapped := "Name                 : MGMT NIC\n" +
		"InterfaceDescription : Broadcom BCM 57800 NetXtreme II 1 GigE\n" +
		"                       (NDIS VBD Client) # 131\n" +
		"Enabled              : True\n"
	if as, err := ParseNetAdapterRSS(strings.NewReader(wrapped)); err != nil || len(as) != 1 || as[0].Enabled != "True" {
		t.Errorf("wrapped value: %+v, %v", as, err)
	}
}
