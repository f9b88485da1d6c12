// Package host gathers facts about the machine a measurement ran on, so a
// result can be interpreted (and compared) later.
package host

import (
	"bufio"
	"io"
	"runtime"
	"strings"
)

// Facts describe the measuring machine. Fields that cannot be read are empty.
type Facts struct {
	OS          string `json:"os"`
	OSVersion   string `json:"os_version"`
	Build       uint32 `json:"build,omitempty"` // Windows build number (e.g. 22631)
	Kernel      string `json:"kernel"`
	Arch        string `json:"arch"`
	CPUModel    string `json:"cpu_model"`
	LogicalCPUs int    `json:"logical_cpus"`
	ClockSource string `json:"clock_source"`
	Hypervisor  bool   `json:"hypervisor"` // running in a virtual machine: wake-ups pass through the hypervisor
	GoVersion   string `json:"go_version"`
}

// Collect reads the facts of this machine.
func Collect() Facts {
	f := collect()
	f.OS = runtime.GOOS
	f.Arch = runtime.GOARCH
	f.LogicalCPUs = runtime.NumCPU()
	f.GoVersion = runtime.Version()
	return f
}

// parseOSRelease returns PRETTY_NAME (or NAME VERSION) from os-release text.
func parseOSRelease(r io.Reader) string {
	vals := map[string]string{}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		k, v, ok := strings.Cut(strings.TrimSpace(sc.Text()), "=")
		if !ok || strings.HasPrefix(k, "#") {
			continue
		}
		vals[k] = strings.Trim(v, `"'`)
	}
	if p := vals["PRETTY_NAME"]; p != "" {
		return p
	}
	return strings.TrimSpace(vals["NAME"] + " " + vals["VERSION"])
}

// parseCPUInfo returns the CPU's name from /proc/cpuinfo text, the first
// line keyed "model name", "Model" (a board's name, Raspberry Pi), "cpu
// model" (MIPS) or "Processor" (32-bit ARM kernels before 3.8, which
// have no "model name": "Processor\t: ARM720T rev 2 (v4l)"; "processor",
// lower case, is a CPU's number), and whether the CPU flags include
// "hypervisor".
func parseCPUInfo(r io.Reader) (model string, hypervisor bool) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		k = strings.TrimSpace(k)
		switch {
		case model == "" && (k == "model name" || k == "Model" || k == "cpu model" || k == "Processor"):
			model = strings.TrimSpace(v)
		case k == "flags" && !hypervisor:
			for _, fl := range strings.Fields(v) {
				if fl == "hypervisor" {
					hypervisor = true
				}
			}
		}
	}
	return model, hypervisor
}
