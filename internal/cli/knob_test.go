package cli

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestKnobExplainPrioSepJSON(t *testing.T) {
	code, out, errs := runCLI(t, "knob", "explain", "win32-priority-separation", "0x26", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var doc map[string]any
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"value": 38.0, "effective": 38.0, "interval": "short", "length": "variable", "ps_priority_separation": 2.0,
		"foreground_quantum_units": 18.0, "background_quantum_units": 6.0, "foreground_quantum_ms": 93.75, "background_quantum_ms": 31.25}
	for k, v := range want {
		if doc[k] != v {
			t.Errorf("%s = %v, want %v", k, doc[k], v)
		}
	}
	code, out, _ = runCLI(t, "knob", "explain", "win32-priority-separation", "0x18", "--server")
	if code != 0 || !strings.Contains(out, "long, fixed quanta, foreground 1:1: foreground 36 units (187.5 ms), background 36 units (187.5 ms)") {
		t.Errorf("0x18: %s", out)
	}
	code, out, _ = runCLI(t, "knob", "explain", "win32-priority-separation", "--find", "short,variable,3:1")
	if code != 0 || !strings.Contains(out, "use 0x26") {
		t.Errorf("--find: %s", out)
	}
	code, out, _ = runCLI(t, "knob", "explain", "win32-priority-separation", "--table")
	if code != 0 || strings.Count(out, "\n  0x") != 64 {
		t.Errorf("--table has %d rows", strings.Count(out, "\n  0x"))
	}
	code, out, _ = runCLI(t, "knob", "explain", "win32-priority-separation", "0x26", "--tick", "1ms", "--json")
	if code != 0 || !strings.Contains(out, `"foreground_quantum_ms": 6`) {
		t.Errorf("--tick 1ms: %s", out)
	}
}

// explain works for every knob on every OS.
func TestKnobExplainAnyOS(t *testing.T) {
	for _, args := range [][]string{
		{"tcp-recovery", "5"}, {"rss", "*RSSProfile=4"}, {"network-throttling-index", "10"}, {"tsc-sync-policy", "enhanced"},
		{"display-scaling", "4"}, {"qos-dscp", "46"}, {"interrupt-moderation", "on,rate=minimal"}, {"coalescing", "rx-usecs=50"},
		{"clocksource", "tsc"}, {"irq-affinity", "0-3"}, {"rps", "0x3"}, {"timer-slack", "1us"}, {"tcp-dsack", "0"},
		{"global-timer-resolution-requests", "1"},
	} {
		code, out, errs := runCLI(t, append([]string{"knob", "explain"}, args...)...)
		if code != 0 || out == "" {
			t.Errorf("explain %v: exit %d %s", args, code, errs)
		}
	}
}

func TestKnobBadInput(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"knob", "get", "win32-priority-seperation"}, "did you mean win32-priority-separation?"},
		{[]string{"knob", "explain", "network-throttling-index", "80"}, "accepted 1-70 or off"},
		{[]string{"knob", "explain", "win32-priority-separation", "--find", "medium"}, "unknown term"},
		{[]string{"knob", "explain", "qos-dscp", "64"}, "accepted 0-63"},
		{[]string{"knob", "revert"}, "needs a knob name or --all"},
		{[]string{"knob", "revert", "tcp-dsack", "--all"}, "not both"},
		{[]string{"knob"}, "needs a subcommand"},
		{[]string{"knob", "set", "tcp-dsack", "0", "--format", "sh"}, "--format goes with --dry-run"},
		{[]string{"knob", "set", "win32-priority-separation", "0x26", "--format", "reg"}, "--format goes with --dry-run"},
	} {
		code, _, errs := runCLI(t, c.args...)
		if code != 2 || !strings.Contains(errs, c.want) || strings.Count(errs, "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and one line with %q", c.args, code, errs, c.want)
		}
	}
}

func TestKnobList(t *testing.T) {
	code, out, errs := runCLI(t, "knob", "list", "--all", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var doc struct {
		Knobs []KnobListEntry `json:"knobs"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Knobs) != 15 {
		t.Errorf("%d knobs, want 15", len(doc.Knobs))
	}
}
