package knob

import (
	"context"
	"maps"
	"path/filepath"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/knob/backend"
	"github.com/latlab/latlab/internal/knob/journal"
	"github.com/latlab/latlab/internal/testutil"
)

// cpuFiles is a 4-CPU Intel machine under intel_pstate (active mode,
// HWP) and intel_idle, as its sysfs shows it: the file names, the
// choices and the state table follow the kernel's intel_pstate and
// intel_idle drivers (Skylake's C-state exit latencies, in µs, from
// intel_idle.c's skl_cstates). CPU 3 has C8 disabled.
func cpuFiles() map[string]string {
	f := map[string]string{
		"sys/devices/system/cpu/online":                      "0-3\n",
		"sys/devices/system/cpu/possible":                    "0-3\n",
		"sys/devices/system/cpu/cpuidle/current_driver":      "intel_idle\n",
		"sys/devices/system/cpu/cpuidle/current_governor":    "menu\n",
		"sys/devices/system/cpu/cpuidle/current_governor_ro": "menu\n",
		"sys/devices/system/cpu/cpuidle/available_governors": "ladder menu teo \n",
	}
	states := []struct{ name, lat string }{{"POLL", "0"}, {"C1", "2"}, {"C1E", "10"}, {"C6", "85"}, {"C8", "200"}}
	for _, c := range []string{"0", "1", "2", "3"} {
		d := "sys/devices/system/cpu/cpu" + c + "/"
		f[d+"cpufreq/scaling_governor"] = "powersave\n"
		f[d+"cpufreq/scaling_driver"] = "intel_pstate\n"
		f[d+"cpufreq/scaling_available_governors"] = "performance powersave\n"
		f[d+"cpufreq/related_cpus"] = c + "\n"
		f[d+"cpufreq/energy_performance_preference"] = "balance_performance\n"
		f[d+"cpufreq/energy_performance_available_preferences"] = "default performance balance_performance balance_power power \n"
		f[d+"power/energy_perf_bias"] = "6\n"
		for i, s := range states {
			sd := d + "cpuidle/state" + string(rune('0'+i)) + "/"
			f[sd+"name"] = s.name + "\n"
			f[sd+"latency"] = s.lat + "\n"
			f[sd+"disable"] = "0\n"
		}
	}
	f["sys/devices/system/cpu/cpu3/cpuidle/state4/disable"] = "1\n"
	return f
}

// vmCPUFiles is this machine's sysfs (a 2-CPU KVM guest,
// Linux 6.18, read 2026-11-27): no cpufreq, no energy_perf_bias, the haltpoll idle
// driver and governor with its two states.
func vmCPUFiles() map[string]string {
	f := map[string]string{
		"sys/devices/system/cpu/online":                      "0-1\n",
		"sys/devices/system/cpu/cpuidle/current_driver":      "haltpoll\n",
		"sys/devices/system/cpu/cpuidle/current_governor":    "haltpoll\n",
		"sys/devices/system/cpu/cpuidle/current_governor_ro": "haltpoll\n",
		"sys/devices/system/cpu/cpuidle/available_governors": "ladder menu haltpoll \n",
	}
	for _, c := range []string{"0", "1"} {
		d := "sys/devices/system/cpu/cpu" + c + "/"
		f[d+"power/pm_qos_resume_latency_us"] = "0\n"
		f[d+"cpuidle/state0/name"] = "POLL\n"
		f[d+"cpuidle/state0/latency"] = "0\n"
		f[d+"cpuidle/state0/disable"] = "0\n"
		f[d+"cpuidle/state1/name"] = "haltpoll idle\n"
		f[d+"cpuidle/state1/latency"] = "1\n"
		f[d+"cpuidle/state1/disable"] = "0\n"
	}
	return f
}

// cpuEnv is an Env over a tree of files, changed by changes ("" deletes).
func cpuEnv(t *testing.T, files map[string]string, changes map[string]string) (*Env, string) {
	t.Helper()
	for p, c := range changes {
		if c == "" {
			delete(files, p)
		} else {
			files[p] = c
		}
	}
	root := testutil.TempDir(t)
	testutil.WriteTree(t, root, files)
	return &Env{Backends: map[string]backend.Backend{backend.BackendFile: backend.Files{Root: root}}}, root
}

func targets(r *Reading) []string {
	var out []string
	for _, it := range r.Items {
		out = append(out, it.Target+"="+it.Value)
	}
	return out
}

func TestCPUGovernorGet(t *testing.T) {
	for _, c := range []struct {
		name    string
		files   map[string]string
		changes map[string]string
		sel     Selector
		want    string // targets=values
		meaning string // of the first item
		note    string
	}{
		{name: "one group", files: cpuFiles(), want: "cpu 0-3=powersave", meaning: "intel_pstate picks, steered by its energy preference", note: "cpu 0-3 available: performance powersave"},
		{name: "grouped", files: cpuFiles(), changes: map[string]string{"sys/devices/system/cpu/cpu2/cpufreq/scaling_governor": "performance\n"},
			want: "cpu 0-1,3=powersave cpu 2=performance"},
		{name: "selected", files: cpuFiles(), sel: Selector{CPU: "1-2"}, want: "cpu 1-2=powersave"},
		{name: "generic driver", files: cpuFiles(), changes: map[string]string{
			"sys/devices/system/cpu/cpu0/cpufreq/scaling_driver": "acpi-cpufreq\n"},
			want: "cpu 0=powersave cpu 1-3=powersave", meaning: "the lowest frequency allowed (scaling_min_freq) (acpi-cpufreq)"},
		{name: "one CPU without", files: cpuFiles(), changes: map[string]string{"sys/devices/system/cpu/cpu3/cpufreq/scaling_governor": ""},
			want: "cpu 0-2=powersave", note: "CPU 3: no cpufreq"},
		{name: "virtual machine", files: vmCPUFiles(), want: "", note: noCpufreq},
		{name: "no /sys/devices/system/cpu", files: map[string]string{"proc/sys/net/ipv4/tcp_dsack": "1\n"}, want: "", note: noCpufreq},
	} {
		t.Run(c.name, func(t *testing.T) {
			env, _ := cpuEnv(t, c.files, c.changes)
			r := get(t, env, cpuGovernorName, c.sel)
			if got := strings.Join(targets(r), " "); got != c.want {
				t.Errorf("items %q, want %q", got, c.want)
			}
			if c.meaning != "" && (len(r.Items) == 0 || !strings.Contains(r.Items[0].Meaning, c.meaning)) {
				t.Errorf("meaning %+v, want %q", r.Items, c.meaning)
			}
			if c.note != "" && !strings.Contains(strings.Join(r.Notes, "\n"), c.note) {
				t.Errorf("notes %q, want %q", r.Notes, c.note)
			}
		})
	}
	// A group's other CPUs' files are exported too.
	env, _ := cpuEnv(t, cpuFiles(), nil)
	r := get(t, env, cpuGovernorName, Selector{})
	if len(r.Items) != 1 || len(r.Items[0].Extra) != 3 || r.Items[0].Extra[2].Loc != cpuLoc(3, govRest) {
		t.Errorf("extra of the group: %+v", r.Items)
	}
}

func TestCPUGovernorPlan(t *testing.T) {
	for _, c := range []struct {
		name    string
		files   map[string]string
		changes map[string]string
		sel     Selector
		value   string
		target  string
		paths   []string // the CPUs written
		note    string
		bad     string // part of the bad-input error
	}{
		{name: "all", files: cpuFiles(), value: "performance", paths: []string{"cpu0", "cpu1", "cpu2", "cpu3"}, note: "costs power and heat"},
		{name: "selected", files: cpuFiles(), sel: Selector{CPU: "2"}, value: "performance", target: "cpu 2", paths: []string{"cpu2"}},
		{name: "shared policy", files: cpuFiles(), value: "performance", sel: Selector{CPU: "0"}, target: "cpu 0", paths: []string{"cpu0"},
			changes: map[string]string{"sys/devices/system/cpu/cpu0/cpufreq/related_cpus": "0-1\n", "sys/devices/system/cpu/cpu1/cpufreq/related_cpus": "0-1\n"},
			note:    "CPU 0 shares its frequency policy with CPUs 1 (related_cpus): the write changes them too"},
		{name: "one write per policy", files: cpuFiles(), value: "performance", paths: []string{"cpu0", "cpu2", "cpu3"},
			changes: map[string]string{"sys/devices/system/cpu/cpu0/cpufreq/related_cpus": "0-1\n", "sys/devices/system/cpu/cpu1/cpufreq/related_cpus": "0-1\n"}},
		{name: "CPU without", files: cpuFiles(), value: "performance", paths: []string{"cpu0", "cpu1", "cpu2"},
			changes: map[string]string{"sys/devices/system/cpu/cpu3/cpufreq/scaling_governor": ""}, note: "CPU 3: no cpufreq"},
		{name: "no such CPU", files: cpuFiles(), sel: Selector{CPU: "7"}, value: "performance", bad: "no CPU 7 under /sys/devices/system/cpu: accepted CPUs 0-3"},
		{name: "bad list", files: cpuFiles(), sel: Selector{CPU: "x"}, value: "performance", bad: `invalid --cpus "x"`},
		{name: "virtual machine", files: vmCPUFiles(), value: "performance", bad: noCpufreq},
	} {
		t.Run(c.name, func(t *testing.T) {
			env, root := cpuEnv(t, c.files, c.changes)
			before := snapshotTree(t, root)
			p, err := plan(env, cpuGovernorName, c.sel, c.value)
			if c.bad != "" {
				if !badinput.Is(err) || !strings.Contains(err.Error(), c.bad) {
					t.Fatalf("error %v, want bad input %q", err, c.bad)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !maps.Equal(before, snapshotTree(t, root)) {
				t.Fatal("planning wrote")
			}
			var got []string
			for _, ch := range p.Changes {
				n, rest, ok := cpuOfLoc(ch.Loc)
				if !ok || rest != govRest || string(ch.New.Data) != c.value+"\n" || string(ch.Old.Data) != "powersave\n" {
					t.Errorf("change %+v", ch)
				}
				got = append(got, "cpu"+string(rune('0'+n)))
			}
			if strings.Join(got, " ") != strings.Join(c.paths, " ") || p.Target != c.target {
				t.Errorf("writes %v target %q, want %v %q", got, p.Target, c.paths, c.target)
			}
			if c.note != "" && !strings.Contains(strings.Join(p.Notes, "\n"), c.note) {
				t.Errorf("notes %q, want %q", p.Notes, c.note)
			}
		})
	}
}

// revert --cpu restores the files of those CPUs only; a bad list is bad
// input before the journal is opened.
func TestRevertCPU(t *testing.T) {
	env, root := cpuEnv(t, cpuFiles(), nil)
	state := testutil.TempDir(t)
	applySteps(t, env, state, []setStep{{cpuGovernorName, Selector{}, "performance"}})
	if _, err := RunRevert(context.Background(), RevertOptions{Knob: cpuGovernorName, CPU: "9-", StateDir: filepath.Join(state, "none")}); !badinput.Is(err) {
		t.Errorf("revert --cpu 9-: %v, want bad input", err)
	}
	match, err := matchCPUs("1,3", MatchKnob(cpuGovernorName, ""))
	if err != nil {
		t.Fatal(err)
	}
	j, err := journal.Open(state)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	steps, err := Revert(env, j, match, false)
	if err != nil || len(steps) != 2 {
		t.Fatalf("revert --cpu 1,3: %v %+v", err, steps)
	}
	snap := snapshotTree(t, root)
	for c, want := range map[string]string{"0": "performance\n", "1": "powersave\n", "2": "performance\n", "3": "powersave\n"} {
		if got := snap["sys/devices/system/cpu/cpu"+c+"/"+govRest]; got != want {
			t.Errorf("cpu%s: %q, want %q", c, got, want)
		}
	}
}

func TestCPUKnobsVet(t *testing.T) {
	fv := backend.FileValue
	for _, c := range []struct {
		knob, target string
		loc          backend.Loc
		v            backend.Value
		ok           bool
	}{
		// A plan's target takes its own CPUs' files (the conformance
		// tests refuse the others').
		{cpuGovernorName, "cpu 1-2", cpuLoc(2, govRest), fv("schedutil\n"), true},
		{energyPreferenceName, "cpu 3", cpuLoc(3, epbRest), fv("15\n"), true},
		{cpuIdleStatesName, "cpu 0-1", cpuLoc(1, idleRest(12)), fv("0\n"), true},
	} {
		k, _ := Lookup(c.knob)
		if err := k.Vet(c.target, c.loc, c.v); (err == nil) != c.ok {
			t.Errorf("%s vet %q %s %q: %v, want ok %v", c.knob, c.target, c.loc, c.v.Data, err, c.ok)
		}
	}
}

func TestCPUGovernorExplain(t *testing.T) {
	k, _ := Lookup(cpuGovernorName)
	ex, err := k.Explain("", ExplainOptions{})
	if err != nil || !strings.Contains(strings.Join(ex.Text, "\n"), "latency-performance (and the network-latency") {
		t.Fatalf("%v %q", err, ex)
	}
	ex, err = k.Explain("powersave", ExplainOptions{})
	if err != nil || len(ex.Text) != 2 || !strings.Contains(ex.Text[1], "the driver picks, steered by its energy preference (energy_performance_preference)") {
		t.Fatalf("%v %q", err, ex.Text)
	}
	if _, err := k.Explain("a/b", ExplainOptions{}); !badinput.Is(err) {
		t.Errorf("explain a/b: %v", err)
	}
}

func TestEnergyPreferenceGet(t *testing.T) {
	for _, c := range []struct {
		name    string
		files   map[string]string
		changes map[string]string
		sel     Selector
		want    string
		note    string
	}{
		{name: "both hints", files: cpuFiles(), want: "cpu 0-3 epp=balance_performance cpu 0-3 epb=6 (normal)",
			note: "cpu 0-3 epp available: default performance balance_performance balance_power power"},
		{name: "grouped", files: cpuFiles(), changes: map[string]string{
			"sys/devices/system/cpu/cpu1/" + eppRest: "performance\n", "sys/devices/system/cpu/cpu2/" + epbRest: "15\n"},
			want: "cpu 0,2-3 epp=balance_performance cpu 1 epp=performance cpu 0-1,3 epb=6 (normal) cpu 2 epb=15 (power)"},
		{name: "between levels", files: cpuFiles(), sel: Selector{CPU: "0"}, changes: map[string]string{"sys/devices/system/cpu/cpu0/" + epbRest: "5\n"},
			want: "cpu 0 epp=balance_performance cpu 0 epb=5 (between balance-performance and the next level)"},
		{name: "EPB only", files: cpuFiles(), changes: map[string]string{
			"sys/devices/system/cpu/cpu0/" + eppRest: "", "sys/devices/system/cpu/cpu1/" + eppRest: "",
			"sys/devices/system/cpu/cpu2/" + eppRest: "", "sys/devices/system/cpu/cpu3/" + eppRest: ""},
			want: "cpu 0-3 epb=6 (normal)", note: "CPU 0-3: no energy_performance_preference"},
		{name: "virtual machine", files: vmCPUFiles(), want: "", note: noEnergyHints},
	} {
		t.Run(c.name, func(t *testing.T) {
			env, _ := cpuEnv(t, c.files, c.changes)
			r := get(t, env, energyPreferenceName, c.sel)
			if got := strings.Join(targets(r), " "); got != c.want {
				t.Errorf("items %q, want %q", got, c.want)
			}
			if c.note != "" && !strings.Contains(strings.Join(r.Notes, "\n"), c.note) {
				t.Errorf("notes %q, want %q", r.Notes, c.note)
			}
		})
	}
}

func TestEnergyPreferencePlan(t *testing.T) {
	noEPP := map[string]string{}
	for _, c := range []string{"0", "1", "2", "3"} {
		noEPP["sys/devices/system/cpu/cpu"+c+"/"+eppRest] = ""
	}
	for _, c := range []struct {
		name    string
		files   map[string]string
		changes map[string]string
		sel     Selector
		value   string
		writes  string // loc=value, space separated
		note    string
		bad     string
	}{
		{name: "a level sets both", files: cpuFiles(), sel: Selector{CPU: "1"}, value: "performance",
			writes: "cpu1/" + eppRest + "=performance cpu1/" + epbRest + "=0", note: "costs power and heat"},
		{name: "epb alone by name", files: cpuFiles(), sel: Selector{CPU: "2"}, value: "epb=balance-power", writes: "cpu2/" + epbRest + "=8"},
		{name: "epp and epb", files: cpuFiles(), sel: Selector{CPU: "0"}, value: "epp=power,epb=0", writes: "cpu0/" + eppRest + "=power cpu0/" + epbRest + "=0"},
		{name: "normal is default", files: cpuFiles(), sel: Selector{CPU: "3"}, value: "Normal", writes: "cpu3/" + eppRest + "=default"},
		{name: "EPB only machine", files: cpuFiles(), changes: noEPP, sel: Selector{CPU: "0"}, value: "performance",
			writes: "cpu0/" + epbRest + "=0", note: "only energy_perf_bias changes"},
		{name: "epp on an EPB-only machine", files: cpuFiles(), changes: noEPP, value: "epp=performance", bad: "has no energy_performance_preference"},
		{name: "EBUSY under performance", files: cpuFiles(), sel: Selector{CPU: "1"}, value: "power",
			changes: map[string]string{"sys/devices/system/cpu/cpu1/" + govRest: "performance\n"}, bad: "set cpu-governor powersave first"},
		{name: "virtual machine", files: vmCPUFiles(), value: "performance", bad: noEnergyHints},
		{name: "virtual machine epb", files: vmCPUFiles(), value: "epb=0", bad: "has no energy_perf_bias"},
	} {
		t.Run(c.name, func(t *testing.T) {
			env, _ := cpuEnv(t, c.files, c.changes)
			p, err := plan(env, energyPreferenceName, c.sel, c.value)
			if c.bad != "" {
				if !badinput.Is(err) || !strings.Contains(err.Error(), c.bad) {
					t.Fatalf("error %v, want bad input %q", err, c.bad)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, ch := range p.Changes {
				got = append(got, strings.TrimPrefix(ch.Loc.Path, sysCPUDir+"/")+"="+strings.TrimSpace(string(ch.New.Data)))
			}
			if strings.Join(got, " ") != c.writes {
				t.Errorf("writes %q, want %q", got, c.writes)
			}
			if c.note != "" && !strings.Contains(strings.Join(p.Notes, "\n"), c.note) {
				t.Errorf("notes %q, want %q", p.Notes, c.note)
			}
		})
	}
}

func TestEnergyPreferenceExplain(t *testing.T) {
	k, _ := Lookup(energyPreferenceName)
	for v, want := range map[string]string{
		"":                  "none of its profiles sets energy_performance_preference",
		"performance":       "EPP performance: clock up at once, whatever the power\nEPB 0 (performance): favours performance over energy",
		"epb=7":             "EPB 7 (normal on Alder Lake-L/N and Raptor Lake-P)",
		"epp=balance_power": "EPP balance_power: leans to saving power",
	} {
		ex, err := k.Explain(v, ExplainOptions{})
		if err != nil || !strings.Contains(strings.Join(ex.Text, "\n"), want) {
			t.Errorf("explain %q: %v %q, want %q", v, err, ex, want)
		}
	}
	if _, err := k.Explain("epp=", ExplainOptions{}); !badinput.Is(err) {
		t.Errorf("explain epp=: %v", err)
	}
}

func TestCPUIdleStatesGet(t *testing.T) {
	for _, c := range []struct {
		name    string
		files   map[string]string
		changes map[string]string
		sel     Selector
		want    string
		meaning string // of the last item
		note    string
	}{
		{name: "intel grouped", files: cpuFiles(),
			want: "cpu 0-2 state0=enabled cpu 0-2 state1=enabled cpu 0-2 state2=enabled cpu 0-2 state3=enabled cpu 0-2 state4=enabled " +
				"cpu 3 state0=enabled cpu 3 state1=enabled cpu 3 state2=enabled cpu 3 state3=enabled cpu 3 state4=disabled",
			meaning: "C8, exit latency 200µs", note: "driver intel_idle, governor menu: the CPU model's C-state table"},
		{name: "selected", files: cpuFiles(), sel: Selector{CPU: "3"}, changes: map[string]string{"sys/devices/system/cpu/cpu3/cpuidle/state4/latency": "x\n"},
			want:    "cpu 3 state0=enabled cpu 3 state1=enabled cpu 3 state2=enabled cpu 3 state3=enabled cpu 3 state4=disabled",
			meaning: "C8, exit latency unknown"},
		{name: "haltpoll", files: vmCPUFiles(), want: "cpu 0-1 state0=enabled cpu 0-1 state1=enabled",
			meaning: "haltpoll idle, exit latency 1µs", note: "driver haltpoll, governor haltpoll: a KVM guest: polls, then halts"},
		{name: "governor_ro only", files: vmCPUFiles(), changes: map[string]string{"sys/devices/system/cpu/cpuidle/current_governor": ""},
			want: "cpu 0-1 state0=enabled cpu 0-1 state1=enabled", note: "driver haltpoll, governor haltpoll"},
		{name: "no cpuidle", files: map[string]string{"sys/devices/system/cpu/cpu0/online": "1\n", "sys/devices/system/cpu/cpu1/online": "1\n"}, want: "", note: noCpuidle},
	} {
		t.Run(c.name, func(t *testing.T) {
			env, _ := cpuEnv(t, c.files, c.changes)
			r := get(t, env, cpuIdleStatesName, c.sel)
			if got := strings.Join(targets(r), " "); got != c.want {
				t.Errorf("items %q, want %q", got, c.want)
			}
			if c.meaning != "" && (len(r.Items) == 0 || r.Items[len(r.Items)-1].Meaning != c.meaning) {
				t.Errorf("meaning %+v, want %q", r.Items, c.meaning)
			}
			if c.note != "" && !strings.Contains(strings.Join(r.Notes, "\n"), c.note) {
				t.Errorf("notes %q, want %q", r.Notes, c.note)
			}
		})
	}
}

func TestCPUIdleStatesPlan(t *testing.T) {
	for _, c := range []struct {
		name    string
		files   map[string]string
		changes map[string]string
		sel     Selector
		value   string
		writes  string // cpuN/stateK=v, space separated
		note    string
		bad     string
	}{
		{name: "10us", files: cpuFiles(), value: "10us",
			writes: "cpu0/state3=1 cpu0/state4=1 cpu1/state3=1 cpu1/state4=1 cpu2/state3=1 cpu2/state4=1 cpu3/state3=1",
			note:   "above 10µs: C6 (85µs), C8 (200µs); the cost is power and heat"},
		{name: "the bound itself stays", files: cpuFiles(), sel: Selector{CPU: "0"}, value: "85µs", writes: "cpu0/state4=1"},
		{name: "fractions round down", files: cpuFiles(), sel: Selector{CPU: "0"}, value: "1.9us", writes: "cpu0/state1=1 cpu0/state2=1 cpu0/state3=1 cpu0/state4=1"},
		{name: "all", files: cpuFiles(), value: "all", writes: "cpu3/state4=0"},
		{name: "a bound re-enables", files: cpuFiles(), sel: Selector{CPU: "3"}, value: "1ms", writes: "cpu3/state4=0"},
		{name: "haltpoll 0", files: vmCPUFiles(), value: "0", writes: "cpu0/state1=1 cpu1/state1=1", note: "haltpoll idle (1µs)"},
		{name: "every state off", files: vmCPUFiles(), sel: Selector{CPU: "1"}, value: "0", writes: "cpu1/state0=1 cpu1/state1=1",
			changes: map[string]string{"sys/devices/system/cpu/cpu1/cpuidle/state0/latency": "1\n"}, note: "CPU 1: every state is disabled"},
		{name: "unreadable latency", files: cpuFiles(), value: "10us", changes: map[string]string{"sys/devices/system/cpu/cpu2/cpuidle/state1/latency": "?\n"},
			bad: "CPU 2 state1 (C1): its exit latency cannot be read"},
		{name: "no cpuidle", files: map[string]string{"sys/devices/system/cpu/cpu0/online": "1\n"}, value: "all", bad: noCpuidle},
	} {
		t.Run(c.name, func(t *testing.T) {
			env, _ := cpuEnv(t, c.files, c.changes)
			p, err := plan(env, cpuIdleStatesName, c.sel, c.value)
			if c.bad != "" {
				if !badinput.Is(err) || !strings.Contains(err.Error(), c.bad) {
					t.Fatalf("error %v, want bad input %q", err, c.bad)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, ch := range p.Changes {
				s := strings.TrimPrefix(ch.Loc.Path, sysCPUDir+"/")
				s = strings.Replace(strings.TrimSuffix(s, "/disable"), "/cpuidle/", "/", 1)
				got = append(got, s+"="+strings.TrimSpace(string(ch.New.Data)))
			}
			if strings.Join(got, " ") != c.writes {
				t.Errorf("writes %q, want %q", got, c.writes)
			}
			if c.note != "" && !strings.Contains(strings.Join(p.Notes, "\n"), c.note) {
				t.Errorf("notes %q, want %q", p.Notes, c.note)
			}
		})
	}
}

func TestCPUIdleStatesExplain(t *testing.T) {
	k, _ := Lookup(cpuIdleStatesName)
	for v, want := range map[string]string{
		"":     "force_latency=cstate.id_no_zero:1|3: the exit latency of state1",
		"20us": "20µs: states whose exit latency is above 20µs are disabled",
		"ALL":  "every idle state enabled",
	} {
		ex, err := k.Explain(v, ExplainOptions{})
		if err != nil || !strings.Contains(strings.Join(ex.Text, "\n"), want) {
			t.Errorf("explain %q: %v %q, want %q", v, err, ex, want)
		}
	}
	if _, err := k.Explain("2s", ExplainOptions{}); !badinput.Is(err) {
		t.Errorf("explain 2s: %v", err)
	}
}

// The set values of the per-CPU knobs: any input is a value or one
// bad-input line, never a panic; what parses stays in range.
func FuzzCPUKnobValues(f *testing.F) {
	for _, s := range []string{"10us", "0", "all", "1.5ms", "10", "-1us", "performance", "epp=power,epb=0", "epb=balance-power", "epb=16", "epp=,", "=,=", "1e9h"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if us, all, err := parseIdleBound(s); err != nil {
			if !badinput.Is(err) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("%q: %v", s, err)
			}
		} else if !all && (us < 0 || us > 1_000_000) {
			t.Fatalf("%q: bound %dµs", s, us)
		}
		r, err := parseEnergyRequest(s)
		if err != nil {
			if !badinput.Is(err) {
				t.Fatalf("%q: %v", s, err)
			}
			return
		}
		if r.epb > 15 || r.epb < -1 || (r.epp == "" && r.epb < 0) {
			t.Fatalf("%q: %+v", s, r)
		}
		if r.epp != "" {
			if _, err := sysfsWord(backend.FileValue(r.epp)); err != nil {
				t.Fatalf("%q: epp %q: %v", s, r.epp, err)
			}
		}
	})
}
