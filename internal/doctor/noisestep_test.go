package doctor

import (
	"slices"
	"strings"
	"testing"
)

// Isolated CPUs (isolcpus, nohz_full) lead to latlab noise on them: how
// much the kernel still interrupts them. It ranks below the cause of late
// wake-ups and above the generic longer probes; a machine without
// isolation, or with parameters that isolate no CPU, gets no such step.
func TestIsolationSuggestsNoise(t *testing.T) {
	const cmdline = "BOOT_IMAGE=/vmlinuz-6.1.0-18-amd64 root=UUID=0f3a ro quiet "
	for _, c := range []struct {
		name  string
		files map[string]string
		rule  string
		want  string // the noise step's command, "" for none
	}{
		{"no isolation", nil, "iso-none", ""},
		{"isolcpus and nohz_full", map[string]string{
			"proc/cmdline":                     cmdline + "isolcpus=managed_irq,domain,1 nohz_full=1 rcu_nocbs=1\n",
			"sys/devices/system/cpu/isolated":  "1\n",
			"sys/devices/system/cpu/nohz_full": "1\n",
		}, "iso-set", "latlab noise --cpus 1 --duration 30s"},
		{"isolcpus alone", map[string]string{
			"proc/cmdline":                    cmdline + "isolcpus=1\n",
			"sys/devices/system/cpu/isolated": "1\n",
		}, "iso-tick-kept", "latlab noise --cpus 1 --duration 30s"},
		{"nohz_full alone", map[string]string{
			"proc/cmdline":                     cmdline + "nohz_full=0-1\n",
			"sys/devices/system/cpu/nohz_full": "0-1\n",
		}, "iso-set", "latlab noise --cpus 0-1 --duration 30s"},
		{"nohz_full ignored by the kernel", map[string]string{
			"proc/cmdline": cmdline + "nohz_full=1\n",
		}, "iso-nohz-ignored", "latlab noise --cpus 1 --duration 30s"},
		{"skew_tick alone", map[string]string{
			"proc/cmdline": cmdline + "skew_tick=1\n",
		}, "iso-set", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			ss := Audit(linuxEnv(linuxTree(t, c.files)), "linux")
			if s := find(t, ss, "isolation", ""); s.Rule != c.rule {
				t.Fatalf("decided by %s, want %s: %+v", s.Rule, c.rule, s)
			}
			r := &Result{OS: "linux", Profile: Standard, Wake: &Probe{Band: "fair"}, Settings: ss}
			steps := NextSteps(r)
			i := slices.IndexFunc(steps, func(s Step) bool { return strings.HasPrefix(s.Command, "latlab noise") })
			if c.want == "" {
				if i >= 0 {
					t.Fatalf("step %+v without isolated CPUs", steps[i])
				}
				return
			}
			if i < 0 {
				t.Fatalf("no noise step in %+v", steps)
			}
			if s := steps[i]; s.Command != c.want || !strings.Contains(s.Why, "isolated CPUs") {
				t.Errorf("step %+v, want %q", s, c.want)
			}
			rank := func(cmd string) int { return slices.IndexFunc(steps, func(s Step) bool { return s.Command == cmd }) }
			if th := rank("latlab doctor --thorough"); th >= 0 && th < i {
				t.Errorf("the noise step comes after --thorough: %+v", steps)
			}
			if ex := rank("sudo latlab wake --explain"); ex < 0 || ex > i {
				t.Errorf("the noise step comes before the cause of late wake-ups: %+v", steps)
			}
		})
	}
}
