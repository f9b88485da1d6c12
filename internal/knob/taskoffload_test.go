package knob

import (
	"strings"
	"testing"
)

// MSFT_NetOffloadGlobalSetting's TaskOffload is an EnabledDisabledEnum,
// Disabled 0 and Enabled 1 (Microsoft, Set-NetOffloadGlobalSetting).
func TestParseTaskOffload(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		err      bool
	}{
		{`{"TaskOffload":1}`, "enabled", false},
		{`{"TaskOffload":0}`, "disabled", false},
		{"\ufeff[{\"TaskOffload\":1}]\r\n", "enabled", false},
		{`{"TaskOffload":2}`, "2", false},
		{`{"ReceiveSideScaling":1}`, "", true},
		{`[{"TaskOffload":1},{"TaskOffload":0}]`, "", true},
		{`TaskOffload : Enabled`, "", true},
		{``, "", true},
	} {
		got, err := ParseTaskOffload(strings.NewReader(tc.in))
		if (err != nil) != tc.err || got != tc.want {
			t.Errorf("%q: %q, %v; want %q (error %v)", tc.in, got, err, tc.want, tc.err)
		}
	}
}

func FuzzParseTaskOffload(f *testing.F) {
	f.Add(`{"TaskOffload":1}`)
	f.Add(`[{"TaskOffload":0}]`)
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseTaskOffload(strings.NewReader(s))
		if err == nil && got == "" {
			t.Errorf("%q: no state and no error", s)
		}
	})
}

// GamingPCSetup's I225-V: "why is my indirection table missing" with RSS
// supported (research 004:128-130); its procedure first enables RSS and
// TaskOffload globally (004:141-154), then adds the RSS keys (004:155-169).
func TestRSSEmptyTableAndTaskOffload(t *testing.T) {
	env, _, _, _ := testEnv(t)
	r := get(t, env, "rss", Selector{})
	var desc string
	for _, it := range r.Items {
		if strings.Contains(it.Target, "I225-V") {
			_, desc, _ = strings.Cut(it.Target, " ")
		}
	}
	if desc == "" {
		t.Fatalf("no I225-V among %+v", r.Items)
	}
	table := func(entries ...string) func() (*RSSState, error) {
		return func() (*RSSState, error) {
			return &RSSState{Adapters: []AdapterRSS{{Name: "Ethernet", InterfaceDescription: desc, Enabled: "True", Queues: "2", IndirectionTable: entries}}}, nil
		}
	}
	env.RSSState = table()
	env.TaskOffload = func() (string, error) { return "disabled", nil }
	r = get(t, env, "rss", Selector{})
	notes := strings.Join(r.Notes, "\n")
	for _, want := range []string{taskOffloadNote + "disabled", "TaskOffload is not enabled", "taskoffload=enabled"} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes lack %q: %v", want, r.Notes)
		}
	}
	found := false
	for _, it := range r.Items {
		if !strings.Contains(it.Target, "I225-V") {
			continue
		}
		found = true
		w := strings.Join(it.Warnings, "\n")
		if !strings.Contains(w, "RSS is enabled but Get-NetAdapterRss shows no indirection table") {
			t.Errorf("I225-V warnings %v", it.Warnings)
		}
		if strings.Contains(w, "NDIS uses its defaults") {
			t.Errorf("the missing keywords' warning says NDIS uses its defaults: %v", it.Warnings)
		}
	}
	if !found {
		t.Fatal("no I225-V item")
	}

	// A populated table, TaskOffload on: neither.
	env.RSSState = table("0:2", "0:3")
	env.TaskOffload = func() (string, error) { return "enabled", nil }
	r = get(t, env, "rss", Selector{})
	if notes := strings.Join(r.Notes, "\n"); strings.Contains(notes, "TaskOffload is not enabled") || !strings.Contains(notes, taskOffloadNote+"enabled") {
		t.Errorf("notes %v", r.Notes)
	}
	for _, it := range r.Items {
		if strings.Contains(strings.Join(it.Warnings, " "), "no indirection table") {
			t.Errorf("%s warned with a table: %v", it.Target, it.Warnings)
		}
	}
	// A team's multiplexor: enabled, 0 queues, no table (real outputs):
	// the warning says where the table is instead; other adapters'
	// warnings do not.
	if w := emptyTableWarning(AdapterRSS{Enabled: "True", Queues: "0"}); !strings.Contains(w, "look at its members' tables") {
		t.Errorf("0 queues: %q", w)
	}
	if w := emptyTableWarning(AdapterRSS{Enabled: "True", Queues: "2"}); w == "" || strings.Contains(w, "members") {
		t.Errorf("2 queues: %q", w)
	}
	// RSS disabled with no table is not the symptom.
	if w := emptyTableWarning(AdapterRSS{Enabled: "False"}); w != "" {
		t.Errorf("warned for a disabled adapter: %q", w)
	}
}

// The missing advanced keywords: the research says they leave the I225-V's
// RSS indirection table missing (004:130), not that NDIS uses defaults.
func TestRSSMissingKeywordsWarning(t *testing.T) {
	env, _, _, _ := testEnv(t)
	r := get(t, env, "rss", Selector{})
	for _, it := range r.Items {
		w := strings.Join(it.Warnings, " ")
		if !strings.Contains(w, "advanced RSS keywords missing") {
			continue
		}
		if strings.Contains(w, "NDIS uses its defaults") || !strings.Contains(w, "RSS indirection table missing") {
			t.Errorf("%s: %q", it.Target, w)
		}
		return
	}
	t.Skip("the test registry has no adapter with missing keywords")
}
