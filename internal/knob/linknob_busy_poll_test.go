package knob

import (
	"slices"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/knob/backend"
)

func busyFiles(poll, read string) map[string]string {
	return map[string]string{"proc/sys/net/core/busy_poll": poll, "proc/sys/net/core/busy_read": read}
}

func TestBusyPollExplain(t *testing.T) {
	k := busyPoll{}
	for in, want := range map[string]string{
		"50":               "busy_poll 50 µs, busy_read 50 µs",
		"0":                "busy_poll 0 (off), busy_read 0 (off)",
		"off":              "busy_poll 0 (off), busy_read 0 (off)",
		"poll=100":         "busy_poll 100 µs, busy_read unchanged",
		"read=50us,poll=0": "busy_poll 0 (off), busy_read 50 µs",
	} {
		ex, err := k.Explain(in, ExplainOptions{})
		if err != nil || len(ex.Text) == 0 || ex.Text[0] != want {
			t.Errorf("explain %s: %v %v, want %q", in, ex, err, want)
		}
	}
	for in, want := range map[string]string{
		"-1":               `invalid busy-poll "-1": accepted a number of µs for both`,
		"2147483648":       "0 to 2147483647",
		"fast":             "accepted a number of µs",
		"poll=50,spin=5":   `unknown "spin"`,
		"poll=50,poll=10":  "poll given twice",
		"poll=x":           `"x" is not a number of µs`,
		"read=50,poll=-50": `"-50" is not a number of µs`,
	} {
		_, err := k.Explain(in, ExplainOptions{})
		sysctlBadInput(t, "explain "+in, err, want)
	}
}

func TestBusyPollGet(t *testing.T) {
	for _, c := range []struct {
		files          map[string]string
		value, meaning string
		note           string
	}{
		{busyFiles("0\n", "0\n"), "poll 0 (off), read 0 (off)", "off (the default)", ""},
		{busyFiles("50\n", "50\n"), "poll 50 µs, read 50 µs", "reads spin up to 50 µs and poll/select/epoll up to 50 µs", ""},
		{busyFiles("0\n", "50\n"), "poll 0 (off), read 50 µs", "blocking reads spin up to 50 µs", ""},
		{busyFiles("50\n", "0\n"), "poll 50 µs, read 0 (off)", "only for sockets with SO_BUSY_POLL set", ""},
		{busyFiles("", ""), "absent", "net.core.busy_poll does not exist: this kernel has no busy polling (CONFIG_NET_RX_BUSY_POLL)", ""},
		{busyFiles("50\n", ""), "poll 50 µs, read absent", "poll/select/epoll spin", "net.core.busy_read does not exist"},
	} {
		env, _ := sysctlEnv(t, c.files)
		r, err := busyPoll{}.Get(env, Selector{})
		if err != nil || len(r.Items) != 1 || r.Items[0].Value != c.value || !strings.Contains(r.Items[0].Meaning, c.meaning) {
			t.Errorf("get %v: %+v %v, want %q: %q", c.files, r, err, c.value, c.meaning)
			continue
		}
		if c.note != "" && !strings.Contains(strings.Join(r.Notes, ";"), c.note) {
			t.Errorf("get %v: notes %q, want %q", c.files, r.Notes, c.note)
		}
	}
}

func TestBusyPollPlan(t *testing.T) {
	bp, br := "proc/sys/net/core/busy_poll", "proc/sys/net/core/busy_read"
	for _, c := range []struct {
		files map[string]string
		value string
		want  []string
		note  string
	}{
		{busyFiles("0\n", "0\n"), "50", []string{bp + "=50", br + "=50"}, "a CPU spins"},
		{busyFiles("0\n", "0\n"), "poll=50", []string{bp + "=50"}, "only sockets whose program sets SO_BUSY_POLL"},
		{busyFiles("50\n", "50\n"), "read=0,poll=50", []string{br + "=0"}, "only sockets whose program"},
		{busyFiles("50\n", "50\n"), "off", []string{bp + "=0", br + "=0"}, ""},
		{busyFiles("50\n", "50\n"), "50us", nil, ""},
	} {
		env, _ := sysctlEnv(t, c.files)
		p, err := busyPoll{}.Plan(env, Selector{}, c.value)
		if err != nil {
			t.Errorf("plan %s: %v", c.value, err)
			continue
		}
		if got := sysctlChanges(p); !slices.Equal(got, c.want) {
			t.Errorf("plan %s: %q, want %q", c.value, got, c.want)
		}
		if c.note != "" && !strings.Contains(strings.Join(p.Notes, ";"), c.note) {
			t.Errorf("plan %s: notes %q, want %q", c.value, p.Notes, c.note)
		}
	}
	env, _ := sysctlEnv(t, busyFiles("0\n", ""))
	if _, err := (busyPoll{}).Plan(env, Selector{}, "50"); err == nil || !strings.Contains(err.Error(), "net.core.busy_read does not exist") {
		t.Errorf("plan without busy_read: %v", err)
	}
	if p, err := (busyPoll{}).Plan(env, Selector{}, "poll=50"); err != nil || len(p.Changes) != 1 {
		t.Errorf("plan of busy_poll alone without busy_read: %+v %v", p, err)
	}
	_, err := busyPoll{}.Plan(env, Selector{}, "lots")
	sysctlBadInput(t, "plan lots", err, "accepted a number of µs")
}

// A crash after any write of a set leaves what revert undoes (the
// conformance suite, linknob_busy_poll_conform_test.go, sets and reverts
// without one).
func TestBusyPollCrashEverywhere(t *testing.T) {
	crashEverywhere(t, []setStep{{busyPollName, Selector{}, "50"}, {busyPollName, Selector{}, "poll=100"}, {busyPollName, Selector{}, "off"}, {busyPollName, Selector{}, "read=10"}},
		func(t *testing.T) (*Env, func() map[string]string) {
			env, root := sysctlEnv(t, busyFiles("0\n", "0\n"))
			return env, func() map[string]string { return snapshotTree(t, root) }
		})
}

func TestBusyPollVet(t *testing.T) {
	k := busyPoll{}
	for _, l := range []backend.Loc{busyPollLoc, busyReadLoc} {
		for _, v := range []string{"0\n", "50\n", "2147483647\n"} {
			if err := k.Vet("", l, backend.FileValue(v)); err != nil {
				t.Errorf("%s %q: %v", l, v, err)
			}
		}
	}
	for _, c := range []struct {
		target string
		l      backend.Loc
		v      string
		want   string
	}{
		{"", busyPollLoc, "-1\n", "outside 0..2147483647"},
		{"", busyReadLoc, "50us\n", "not an integer"},
		{"", fileLoc("proc/sys/net/core/busy_budget"), "8\n", "not a value"},
		{"eth0", busyReadLoc, "50\n", "no targets"},
	} {
		if err := k.Vet(c.target, c.l, backend.FileValue(c.v)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("vet %q %s %q: %v, want %q", c.target, c.l, c.v, err, c.want)
		}
	}
}

// Whatever parseBusy accepts names at least one file, each with a value
// the kernel takes (0 to INT_MAX).
func FuzzParseBusy(f *testing.F) {
	for _, s := range []string{"50", "off", "poll=50,read=0", "read=50us", "poll=1,poll=2", "poll=", "=5", ","} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		poll, read, err := parseBusy(s)
		if err != nil {
			return
		}
		if poll == nil && read == nil {
			t.Fatalf("%q: accepted, names nothing", s)
		}
		for _, p := range []*int64{poll, read} {
			if p != nil && (*p < 0 || *p > sysctlIntMax) {
				t.Fatalf("%q: %d", s, *p)
			}
		}
	})
}
