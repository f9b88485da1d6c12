package knob_test

import "maps"

const cpuDir = "sys/devices/system/cpu/"

// twoCPUs is a 2-CPU machine under a generic cpufreq driver (acpi-cpufreq,
// schedutil) with the energy hints of an Intel CPU and intel_idle's
// Skylake states (exit latencies in µs from intel_idle.c's skl_cstates),
// as sysfs shows them; changes replace files ("" removes one).
func twoCPUs(changes map[string]string) map[string]string {
	f := map[string]string{
		cpuDir + "online":                   "0-1\n",
		cpuDir + "cpuidle/current_driver":   "intel_idle\n",
		cpuDir + "cpuidle/current_governor": "menu\n",
	}
	states := []struct{ name, lat string }{{"POLL", "0"}, {"C1", "2"}, {"C6", "85"}, {"C8", "200"}}
	for _, c := range []string{"0", "1"} {
		d := cpuDir + "cpu" + c + "/"
		f[d+"cpufreq/scaling_governor"] = "schedutil\n"
		f[d+"cpufreq/scaling_driver"] = "acpi-cpufreq\n"
		f[d+"cpufreq/scaling_available_governors"] = "performance powersave schedutil\n"
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
	maps.Copy(f, changes)
	return f
}

// onBothCPUs is rest (below cpuN/) set to content on CPUs 0 and 1.
func onBothCPUs(rest, content string) map[string]string {
	return map[string]string{cpuDir + "cpu0/" + rest: content, cpuDir + "cpu1/" + rest: content}
}

// union merges file changes.
func union(ms ...map[string]string) map[string]string {
	out := map[string]string{}
	for _, m := range ms {
		maps.Copy(out, m)
	}
	return out
}
