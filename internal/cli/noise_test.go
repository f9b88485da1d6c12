package cli

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/latlab/latlab/internal/probe"
	"github.com/latlab/latlab/internal/sched"
)

// The flags map to the probe's options; without --cpus the thread spins
// on the last CPU, as wake --explain's does.
func TestNoiseFlagsToOptions(t *testing.T) {
	last := sched.NumCPU() - 1
	for _, c := range []struct {
		args []string
		want probe.NoiseOptions
	}{
		{nil, probe.NoiseOptions{Duration: 10 * time.Second, Threshold: time.Microsecond, CPUs: []int{last}}},
		{[]string{"--cpus", "0", "--duration", "2s", "--threshold", "5us", "--rtprio", "80", "--mlock"},
			probe.NoiseOptions{Duration: 2 * time.Second, Threshold: 5 * time.Microsecond, CPUs: []int{0}, Priority: sched.Realtime, RTPrio: 80, Mlock: true}},
		{[]string{"--cpus", "0", "--explain-above", "50us"},
			probe.NoiseOptions{Duration: 10 * time.Second, Threshold: time.Microsecond, CPUs: []int{0}, Explain: &probe.ExplainOptions{Worst: 10, Above: 50 * time.Microsecond}}},
	} {
		if c.want.Explain != nil && explainRefusal != "" {
			// Windows: refused before anything runs, as wake's is.
			called := false
			runSeamRefused(t, newNoiseCmd(seamIO(), func(*NoiseOptions) error { called = true; return nil }), c.args, &called)
			continue
		}
		var got *NoiseOptions
		called := false
		runSeam(t, newNoiseCmd(seamIO(), func(o *NoiseOptions) error { got, called = o, true; return nil }), c.args, &called)
		p := got.probe
		if p.Duration != c.want.Duration || p.Threshold != c.want.Threshold || !slices.Equal(p.CPUs, c.want.CPUs) ||
			p.Priority != c.want.Priority || p.RTPrio != c.want.RTPrio || p.Mlock != c.want.Mlock || !reflect.DeepEqual(p.Explain, c.want.Explain) {
			t.Errorf("%v:\n got %+v\nwant %+v", c.args, p, c.want)
		}
	}
}

// Bad input: exit 2 and one line naming the flag, before anything runs.
func TestNoiseBadInput(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--cpus", "x"}, "--cpus"},
		{[]string{"--cpus", "99999"}, "--cpus"},
		{[]string{"--cpus", "4000"}, "invalid --cpus"},
		{[]string{"--threshold", "0"}, "--threshold"},
		{[]string{"--threshold", "-1us"}, "--threshold"},
		{[]string{"--threshold", "2s"}, "invalid --threshold"},
		{[]string{"--duration", "25h"}, "invalid --duration"},
		{[]string{"--duration", "0"}, "--duration"},
		{[]string{"--rtprio", "100"}, "--rtprio"},
		{[]string{"--hist-max", "0"}, "--hist-max"},
		{[]string{"--hist-max", "10"}, "--histfile"},
		{[]string{"--explain-above", "-1ms"}, "--explain-above"},
		{[]string{"extra"}, ""},
	} {
		code, out, errOut := runCLI(t, append([]string{"noise"}, c.args...)...)
		lines := strings.Split(strings.TrimSpace(errOut), "\n")
		if code != 2 || out != "" || len(lines) != 1 || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2 and one line with %q", c.args, code, out, errOut, c.want)
		}
	}
}

// A short real run: the document's structure, never its timing.
func TestNoiseRunJSON(t *testing.T) {
	if testing.Short() {
		t.Skip("spins a CPU")
	}
	code, out, errOut := runCLI(t, "noise", "--duration", "200ms", "--cpus", "0", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var doc struct {
		Kind string `json:"kind"`
		Data struct {
			Level   string `json:"level"`
			Verdict string `json:"verdict"`
			CPUs    []struct {
				CPU       int   `json:"cpu"`
				RuntimeNs int64 `json:"runtime_ns"`
			} `json:"cpus"`
		} `json:"data"`
		Settings map[string]string `json:"settings"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	d := doc.Data
	if doc.Kind != "noise" || len(d.CPUs) != 1 || d.CPUs[0].CPU != 0 || d.CPUs[0].RuntimeNs <= 0 || d.Level == "" ||
		!strings.Contains(d.Verdict, "CPU 0: ") || doc.Settings["threshold"] != "1µs" {
		t.Errorf("document %+v", doc)
	}
}
