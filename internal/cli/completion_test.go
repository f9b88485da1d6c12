package cli

import (
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/latlab/latlab/internal/knob"
	"github.com/latlab/latlab/internal/netload"
	"github.com/latlab/latlab/internal/probe"
	"github.com/latlab/latlab/internal/stats"
)

// complete runs cobra's hidden __complete command, as the shell scripts
// do, and returns the offered values (without descriptions) and the
// directive line.
func complete(t *testing.T, args ...string) ([]string, string) {
	t.Helper()
	code, out, errs := runCLI(t, append([]string{"__complete"}, args...)...)
	if code != 0 {
		t.Fatalf("__complete %q: exit %d: %s", args, code, errs)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	var values []string
	for _, l := range lines[:len(lines)-1] {
		v, _, _ := strings.Cut(l, "\t")
		values = append(values, v)
	}
	return values, lines[len(lines)-1]
}

func TestCompleteValues(t *testing.T) {
	var knobs []string
	for _, k := range knob.Native() {
		knobs = append(knobs, k.Name())
	}
	tests := []struct {
		args      []string
		want      []string
		directive string
	}{
		{[]string{"sleep", "--method", ""}, probe.SleepMethods(), ":4"},
		{[]string{"sweep", "--method", ""}, probe.SleepMethods(), ":4"},
		{[]string{"sleep", "--priority", ""}, []string{"normal", "high", "realtime"}, ":4"},
		{[]string{"net", "udp", "--priority", ""}, []string{"normal", "high", "realtime"}, ":4"},
		{[]string{"net", "udp", "--profile", ""}, netload.Profiles(), ":4"},
		{[]string{"knob", "get", ""}, knobs, ":4"},
		{[]string{"knob", "set", ""}, knobs, ":4"},
		{[]string{"knob", "set", "timer-slack", ""}, nil, ":4"},
		{[]string{"knob", "export", "--format", ""}, []string{"reg", "ps1", "sh"}, ":4"},
		{[]string{"sweep", "--plot", ""}, []string{"svg", "png"}, ":8"},
		{[]string{"pcap", "tcp", ""}, []string{"pcap", "pcapng", "cap"}, ":8"},
		{[]string{"compare", "a.json", ""}, []string{"json"}, ":8"},
		{[]string{"knob", "history", "--state-dir", ""}, nil, ":16"},
		{[]string{"slep"}, nil, ":4"},
		{[]string{"sle"}, []string{"sleep"}, ":4"},
	}
	for _, tc := range tests {
		got, dir := complete(t, tc.args...)
		if !slices.Equal(got, tc.want) || dir != tc.directive {
			t.Errorf("%q: %q %s, want %q %s", tc.args, got, dir, tc.want, tc.directive)
		}
	}
	explain, _ := complete(t, "knob", "explain", "")
	if len(explain) != len(knob.All()) {
		t.Errorf("knob explain offers %d knobs, want all %d", len(explain), len(knob.All()))
	}
}

func TestCompleteCPUs(t *testing.T) {
	defer func(f func() int) { cpuCount = f }(cpuCount)
	cpuCount = func() int { return 4 }
	tests := []struct {
		typed string
		want  []string
	}{
		{"", []string{"0-3", "0", "1", "2", "3"}},
		{"0,", []string{"0,1", "0,2", "0,3"}},
		{"0,2-3,", []string{"0,2-3,1"}},
	}
	for _, tc := range tests {
		got, dir := complete(t, "wake", "--cpus", tc.typed)
		if !slices.Equal(got, tc.want) || dir != ":6" {
			t.Errorf("--cpus %q: %q %s, want %q", tc.typed, got, dir, tc.want)
		}
	}
	if got, _ := complete(t, "sleep", "--cpus", ""); !slices.Equal(got, []string{"0-3", "0", "1", "2", "3"}) {
		t.Errorf("sleep --cpus: %q", got)
	}
}

// Every fixed value offered for a flag is one its help names, in every
// command with the flag, so that the lists cannot drift from what the
// commands accept; statistics are ones stats accepts.
func TestCompletedValuesAreAccepted(t *testing.T) {
	n := 0
	walk(NewRoot(&IO{}), func(c *cobra.Command) {
		c.Flags().VisitAll(func(f *pflag.Flag) {
			fn, ok := c.GetFlagCompletionFunc(f.Name)
			if !ok {
				return
			}
			values, dir := fn(c, nil, "")
			if dir&(cobra.ShellCompDirectiveFilterFileExt|cobra.ShellCompDirectiveFilterDirs) != 0 {
				return
			}
			switch f.Name {
			case "iface", "adapter", "cpu", "cpus", "profile":
				return // from the machine, or described by netload
			}
			for _, v := range values {
				v, _, _ = strings.Cut(v, "\t")
				if !strings.Contains(f.Usage, v) {
					t.Errorf("%s --%s offers %q, which its help (%q) does not name", c.CommandPath(), f.Name, v, f.Usage)
				}
				if f.Name == "by" || f.Name == "rank-by" {
					if _, err := stats.ParseStatistic(v); err != nil {
						t.Errorf("--%s %s: %v", f.Name, v, err)
					}
				}
				n++
			}
		})
	})
	if n < 20 {
		t.Errorf("only %d values checked", n)
	}
}

// The completion scripts are generated for the four shells the README
// documents.
func TestCompletionScripts(t *testing.T) {
	for _, sh := range []string{"bash", "zsh", "fish", "powershell"} {
		code, out, errs := runCLI(t, "completion", sh)
		if code != 0 || !strings.Contains(out, "latlab") || len(out) < 1000 {
			t.Errorf("completion %s: exit %d %s", sh, code, errs)
		}
	}
}
