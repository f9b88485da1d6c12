package knob

import (
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/knob/backend"
	"github.com/latlab/latlab/internal/knob/journal"
	"github.com/latlab/latlab/internal/testutil"
)

func rtFiles(runtime, period string) map[string]string {
	return map[string]string{"proc/sys/kernel/sched_rt_runtime_us": runtime, "proc/sys/kernel/sched_rt_period_us": period}
}

var rtDefaultFiles = rtFiles("950000\n", "1000000\n")

func TestRTThrottlingExplain(t *testing.T) {
	k := rtThrottling{}
	for in, want := range map[string]string{
		"off":            "off: sched_rt_runtime_us=-1 (the period stays): throttling off",
		"-1":             "off: sched_rt_runtime_us=-1",
		"default":        "950000/1000000 µs: the default",
		"500000/1000000": "500000/1000000 µs: realtime threads may run 500000 µs of every 1000000 µs on a CPU (50%)",
		"-1/500000":      "off (-1; period 500000 µs)",
	} {
		ex, err := k.Explain(in, ExplainOptions{})
		if err != nil || len(ex.Text) != 1 || !strings.HasPrefix(ex.Text[0], want) {
			t.Errorf("explain %s: %v %v, want %q", in, ex, err, want)
		}
	}
	for in, want := range map[string]string{
		"0/1000000":         "runtime 0: it stops every realtime thread",
		"1100000/1000000":   "runtime 1100000 µs: accepted 1 to the period (1000000 µs), or -1 (off)",
		"-2/1000":           "runtime -2 µs",
		"1/0":               "period 0 µs: accepted 1 to 2147483647",
		"5/2147483648":      "period 2147483648 µs",
		"950000":            "accepted off (or -1), default (950000/1000000), or RUNTIME/PERIOD",
		"950ms/1s":          "accepted off (or -1)",
		"":                  "", // the general explanation
		"9999999999999/1/2": "accepted off",
	} {
		ex, err := k.Explain(in, ExplainOptions{})
		if want == "" {
			if err != nil || len(ex.Text) < 3 {
				t.Errorf("general explanation: %v %v", ex, err)
			}
			continue
		}
		sysctlBadInput(t, "explain "+in, err, want)
	}
}

func TestRTThrottlingGet(t *testing.T) {
	for _, c := range []struct {
		files          map[string]string
		value, meaning string
		warn           bool
	}{
		{rtDefaultFiles, "950000/1000000 µs", "the default: realtime threads may run 0.95 s of every second", false},
		{rtFiles("-1\n", "1000000\n"), "off (-1; period 1000000 µs)", "throttling off: realtime threads may take a CPU whole", true},
		{rtFiles("250000\n", "1000000\n"), "250000/1000000 µs", "(25%)", false},
		{rtFiles("", ""), "absent", "kernel.sched_rt_runtime_us does not exist: this kernel has no realtime bandwidth control", false},
		{rtFiles("950000\n", ""), "absent", "kernel.sched_rt_period_us does not exist", false},
	} {
		env, _ := sysctlEnv(t, c.files)
		r, err := rtThrottling{}.Get(env, Selector{})
		if err != nil || len(r.Items) != 1 || r.Items[0].Value != c.value || !strings.Contains(r.Items[0].Meaning, c.meaning) || (len(r.Items[0].Warnings) > 0) != c.warn {
			t.Errorf("get %v: %+v %v, want %q: %q", c.files, r, err, c.value, c.meaning)
		}
	}
	env, _ := sysctlEnv(t, rtFiles("lots\n", "1000000\n"))
	if _, err := (rtThrottling{}).Get(env, Selector{}); err == nil || !strings.Contains(err.Error(), "not an integer") {
		t.Errorf("get over a non-number: %v", err)
	}
}

// The writes go in the order that never passes through a pair the kernel
// refuses (runtime above period).
func TestRTThrottlingPlanOrder(t *testing.T) {
	rt, per := "proc/sys/kernel/sched_rt_runtime_us", "proc/sys/kernel/sched_rt_period_us"
	for _, c := range []struct {
		files map[string]string
		value string
		want  []string
	}{
		{rtDefaultFiles, "default", nil},
		{rtDefaultFiles, "off", []string{rt + "=-1"}},
		{rtDefaultFiles, "100000/200000", []string{rt + "=100000", per + "=200000"}},
		{rtDefaultFiles, "1900000/2000000", []string{per + "=2000000", rt + "=1900000"}},
		{rtDefaultFiles, "950000/960000", []string{per + "=960000"}},
		{rtDefaultFiles, "-1/500000", []string{rt + "=-1", per + "=500000"}},
		{rtFiles("-1\n", "1000000\n"), "-1/500000", []string{per + "=500000"}},
		{rtFiles("-1\n", "1000000\n"), "default", []string{rt + "=950000"}},
		{rtFiles("-1\n", "1000000\n"), "100/200", []string{per + "=200", rt + "=100"}},
		{rtFiles("100\n", "200\n"), "default", []string{per + "=1000000", rt + "=950000"}},
	} {
		env, _ := sysctlEnv(t, c.files)
		p, err := rtThrottling{}.Plan(env, Selector{}, c.value)
		if err != nil {
			t.Errorf("plan %s over %v: %v", c.value, c.files, err)
			continue
		}
		if got := sysctlChanges(p); !slices.Equal(got, c.want) {
			t.Errorf("plan %s over %v: %q, want %q", c.value, c.files, got, c.want)
		}
	}
	env, _ := sysctlEnv(t, rtDefaultFiles)
	p, _ := rtThrottling{}.Plan(env, Selector{}, "off")
	if len(p.Warnings) != 1 || !strings.Contains(p.Warnings[0], "runaway SCHED_FIFO") {
		t.Errorf("off warns %q", p.Warnings)
	}
	env, _ = sysctlEnv(t, rtFiles("", ""))
	if _, err := (rtThrottling{}).Plan(env, Selector{}, "off"); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("plan without the files: %v", err)
	}
}

// rtKernel refuses a write that leaves runtime above period, as
// sched_rt_handler does (EINVAL), and counts the refusals.
type rtKernel struct {
	backend.Files
	refused int
}

func (k *rtKernel) Write(l backend.Loc, v backend.Value) error {
	read := func(l backend.Loc) int64 {
		b, _ := k.Files.Read(l)
		n, _ := strconv.ParseInt(strings.TrimSpace(string(b.Data)), 10, 64)
		return n
	}
	r, p := read(rtRuntimeLoc), read(rtPeriodLoc)
	n, err := strconv.ParseInt(strings.TrimSpace(string(v.Data)), 10, 64)
	if err != nil {
		return err
	}
	if l == rtRuntimeLoc {
		r = n
	} else {
		p = n
	}
	if p < 1 || (r != -1 && r > p) {
		k.refused++
		return errors.New("invalid argument")
	}
	return k.Files.Write(l, v)
}

// Every change between these pairs is made and reverted without the
// kernel refusing a write on the way.
func TestRTThrottlingNeverRefused(t *testing.T) {
	pairs := []string{"950000/1000000", "100000/200000", "-1/1000000", "-1/200", "1900000/2000000", "200/200", "1/2147483647", "2147483647/2147483647"}
	for _, from := range pairs {
		for _, to := range pairs {
			r, p, _ := strings.Cut(from, "/")
			env, root := sysctlEnv(t, rtFiles(r+"\n", p+"\n"))
			k := &rtKernel{Files: backend.Files{Root: root}}
			env.Backends[backend.BackendFile] = k
			before := snapshotTree(t, root)
			dir := testutil.TempDir(t)
			applySteps(t, env, dir, []setStep{{rtThrottlingName, Selector{}, to}})
			r2, p2, _ := strings.Cut(to, "/")
			if got := snapshotTree(t, root); strings.TrimSpace(got["proc/sys/kernel/sched_rt_runtime_us"]) != r2 || strings.TrimSpace(got["proc/sys/kernel/sched_rt_period_us"]) != p2 {
				t.Errorf("%s -> %s: %v", from, to, got)
			}
			revertAll(t, env, dir)
			if d := mapDiff(before, snapshotTree(t, root)); d != "" {
				t.Errorf("%s -> %s, revert: %s", from, to, d)
			}
			if k.refused > 0 {
				t.Errorf("%s -> %s: the kernel refused %d writes", from, to, k.refused)
			}
		}
	}
}

// When the kernel refuses the second write (a realtime group's runtime
// no longer fits), the first is undone and nothing stays open.
func TestRTThrottlingSecondWriteRefused(t *testing.T) {
	env, root := sysctlEnv(t, rtDefaultFiles)
	before := snapshotTree(t, root)
	env.Backends[backend.BackendFile] = &sysctlFailWrite{Files: backend.Files{Root: root}, n: 2}
	p, err := rtThrottling{}.Plan(env, Selector{}, "100000/200000")
	if err != nil || len(p.Changes) != 2 {
		t.Fatalf("plan %+v %v", p, err)
	}
	dir := testutil.TempDir(t)
	j, err := journal.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	err = Apply(env, j, p)
	if err == nil || !strings.Contains(err.Error(), "nothing was changed") || !strings.Contains(err.Error(), "invalid argument") {
		t.Fatalf("apply: %v", err)
	}
	if d := mapDiff(before, snapshotTree(t, root)); d != "" {
		t.Fatalf("the first write was not undone: %s", d)
	}
	for _, e := range j.Entries {
		if e.Open() {
			t.Errorf("entry %d (%s) left %s", e.ID, e.Loc, e.State)
		}
	}
}

// A crash after any write of a set leaves what revert undoes (the
// conformance suite, linknob_rt_throttling_conform_test.go, sets and
// reverts without one).
func TestRTThrottlingCrashEverywhere(t *testing.T) {
	crashEverywhere(t, []setStep{{rtThrottlingName, Selector{}, "100000/200000"}, {rtThrottlingName, Selector{}, "off"}, {rtThrottlingName, Selector{}, "1900000/2000000"}},
		func(t *testing.T) (*Env, func() map[string]string) {
			env, root := sysctlEnv(t, rtDefaultFiles)
			return env, func() map[string]string { return snapshotTree(t, root) }
		})
}

// The conformance suite vets what its plans write and find; these are
// further originals the kernel can hold, which Revert may put back.
func TestRTThrottlingVetOriginals(t *testing.T) {
	k := rtThrottling{}
	for _, c := range []struct {
		l backend.Loc
		v string
	}{{rtRuntimeLoc, "-1\n"}, {rtRuntimeLoc, "950000\n"}, {rtRuntimeLoc, "0\n"}, {rtPeriodLoc, "1\n"}, {rtPeriodLoc, "2147483647\n"}} {
		if err := k.Vet("", c.l, backend.FileValue(c.v)); err != nil {
			t.Errorf("%s %q: %v", c.l, c.v, err)
		}
	}
}

// Whatever parseRT accepts is a pair the kernel takes: a period of 1 to
// INT_MAX and a runtime of -1 or 1 to the period.
func FuzzParseRT(f *testing.F) {
	for _, s := range []string{"off", "default", "950000/1000000", "-1/5", "0/1", "3/2", " 1 / 1 ", "1/2147483648"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b, periodSet, err := parseRT(s)
		if err != nil {
			return
		}
		if periodSet && (b.Period < 1 || b.Period > sysctlIntMax) {
			t.Fatalf("%q: period %d", s, b.Period)
		}
		if b.Runtime != -1 && (b.Runtime < 1 || b.Runtime > b.Period) {
			t.Fatalf("%q: runtime %d, period %d", s, b.Runtime, b.Period)
		}
	})
}
