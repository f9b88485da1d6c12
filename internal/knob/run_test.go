package knob

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/badinput"
)

// native is a knob of this OS that the fixture environment (testEnv)
// holds: its value there as get shows it, a new value for set, where
// that value is stored, and how it reads back and shows in a change.
type nativeKnob struct {
	name, value, set string
	got              string // the value get shows after the set
	other            string // another valid value, set behind latlab's back
	loc              string
	from, to         string
}

func native() nativeKnob {
	if HostOS == "windows" {
		return nativeKnob{name: "win32-priority-separation", value: "0x2 (2)", set: "0x26", got: "0x26 (38)", other: "0x18",
			loc:  `HKLM\SYSTEM\CurrentControlSet\Control\PriorityControl\Win32PrioritySeparation`,
			from: "2 (REG_DWORD)", to: "38 (REG_DWORD)"}
	}
	return nativeKnob{name: "tcp-recovery", value: "1", set: "5", got: "5", other: "3",
		loc: "/proc/sys/net/ipv4/tcp_recovery", from: "1", to: "5"}
}

func TestRunList(t *testing.T) {
	env, _, _, _ := testEnvTree(t)
	n := native()
	for _, c := range []struct {
		all  bool
		want int
	}{{false, len(Native())}, {true, len(All())}} {
		l, err := RunList(context.Background(), ListOptions{All: c.all, Env: env})
		if err != nil {
			t.Fatal(err)
		}
		if l.OS != HostOS || len(l.Knobs) != c.want {
			t.Fatalf("--all=%v: os %q, %d knobs; want %q, %d", c.all, l.OS, len(l.Knobs), HostOS, c.want)
		}
		found := false
		for _, e := range l.Knobs {
			switch {
			case e.OS != HostOS && (e.Reading != nil || e.Error != ""):
				t.Errorf("%s of %s was read on %s", e.Name, e.OS, HostOS)
			case e.OS == HostOS && (e.Reading == nil) == (e.Error == ""):
				t.Errorf("%s: want a reading or an error: %+v", e.Name, e)
			case e.Summary == "":
				t.Errorf("%s has no summary", e.Name)
			}
			if e.Name == n.name {
				found = e.Reading != nil && len(e.Reading.Items) == 1 && e.Reading.Items[0].Value == n.value
			}
		}
		if !found {
			t.Errorf("--all=%v: %s is not listed with its value %q", c.all, n.name, n.value)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := RunList(ctx, ListOptions{Env: env}); !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled list: %v", err)
	}
}

func TestRunGet(t *testing.T) {
	env, _, _, _ := testEnvTree(t)
	n := native()
	other := "rss"
	if HostOS == "windows" {
		other = "tcp-recovery"
	}
	for _, c := range []struct {
		knob  string
		value string // of the one instance; "" = a badinput.Error is wanted
		err   string
	}{
		{n.name, n.value, ""},
		{strings.ToUpper(n.name), n.value, ""},
		{other, "", other + " is a "},
		{"tcp-recovry", "", "did you mean tcp-recovery?"},
	} {
		r, err := RunGet(context.Background(), GetOptions{Knob: c.knob, Env: env})
		switch {
		case c.value == "" && (!badinput.Is(err) || !strings.Contains(err.Error(), c.err)):
			t.Errorf("get %s: %v, want an input error with %q", c.knob, err, c.err)
		case c.value != "" && err != nil:
			t.Errorf("get %s: %v", c.knob, err)
		case c.value != "" && (r.Knob != n.name || len(r.Items) != 1 || r.Items[0].Value != c.value):
			t.Errorf("get %s: %+v, want %s with the value %q", c.knob, r, n.name, c.value)
		}
	}
}

// explain decodes any knob on any OS; the input is kept as given.
func TestRunExplain(t *testing.T) {
	for _, c := range []struct {
		knob, value string
		o           ExplainOptions
		want        string // in the text; "" = a badinput.Error with err
		err         string
	}{
		{"win32-priority-separation", "0x26", ExplainOptions{}, "short, variable quanta", ""},
		{"Win32-Priority-Separation", "", ExplainOptions{Find: "short,variable,3:1"}, "use 0x26", ""},
		{"tcp-recovery", "5", ExplainOptions{}, "RACK", ""},
		{"rss", "*RSSProfile=4", ExplainOptions{}, "RSSProfile", ""},
		{"network-throttling-index", "80", ExplainOptions{}, "", "accepted 1-70 or off"},
		{"win32-priority-separation", "", ExplainOptions{Find: "medium"}, "", "unknown term"},
		{"no-such-knob", "1", ExplainOptions{}, "", "unknown knob"},
	} {
		ex, err := RunExplain(context.Background(), c.knob, c.value, c.o)
		if c.want == "" {
			if !badinput.Is(err) || !strings.Contains(err.Error(), c.err) {
				t.Errorf("explain %s %q: %v, want an input error with %q", c.knob, c.value, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("explain %s %q: %v", c.knob, c.value, err)
			continue
		}
		if ex.Knob != strings.ToLower(c.knob) || ex.Input != c.value || !strings.Contains(strings.Join(ex.Text, "\n"), c.want) {
			t.Errorf("explain %s %q: %+v, want %q in the text", c.knob, c.value, ex, c.want)
		}
	}
}
