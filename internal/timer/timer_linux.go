package timer

import (
	"bufio"
	"compress/gzip"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/latlab/latlab/internal/rootfs"
	"golang.org/x/sys/unix"
)

const (
	what       = "slack"
	minRequest = time.Nanosecond // PR_SET_TIMERSLACK 0 means "reset to default", not "none"
	maxRequest = time.Second
)

func query() (Status, error) { return queryFrom("/") }

func queryRoot(root string) (Status, error) { return queryFrom(root) }

func queryFrom(root string) (Status, error) {
	var st Status
	var ts unix.Timespec
	if err := unix.ClockGetres(unix.CLOCK_MONOTONIC, &ts); err != nil {
		return st, fmt.Errorf("clock_getres: %w", err)
	}
	st.ClockResNs = ts.Nano()
	slack, err := unix.PrctlRetInt(unix.PR_GET_TIMERSLACK, 0, 0, 0, 0)
	if err != nil {
		return st, fmt.Errorf("prctl(PR_GET_TIMERSLACK): %w", err)
	}
	st.TimerSlackNs = int64(slack)
	st.DefaultTimerSlackNs = 50_000
	if b, err := rootfs.ReadFile(root, "proc/self/timerslack_ns"); err == nil {
		// The process's (main thread's) value; the default slack is inherited from it.
		if v, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64); err == nil && v > 0 {
			st.DefaultTimerSlackNs = v
		}
	}
	const cs = "sys/devices/system/clocksource/clocksource0/"
	if b, err := rootfs.ReadFile(root, cs+"current_clocksource"); err == nil {
		st.Clocksource = strings.TrimSpace(string(b))
	}
	if b, err := rootfs.ReadFile(root, cs+"available_clocksource"); err == nil {
		st.AvailableClocksources = strings.Fields(string(b))
	}
	if b, err := rootfs.ReadFile(root, "sys/devices/system/cpu/nohz_full"); err == nil {
		if s := strings.TrimSpace(string(b)); s != "" && s != "(null)" {
			st.NohzFullCPUs = s
		}
	}
	if cfg, _ := KernelConfig(root); cfg != nil {
		st.ConfigHZ, st.Tickless, st.HighResTimers = configTimer(cfg)
	}
	if st.NohzFullCPUs != "" {
		st.Tickless = "full"
	}
	if st.Clocksource != "" && !ClocksourceFast(st.Clocksource) {
		st.Warnings = append(st.Warnings, fmt.Sprintf("clocksource %q is slow to read; timestamps cost more than with tsc", st.Clocksource))
	}
	return st, nil
}

// maxKernelConfig bounds the decompressed configuration read: a distribution
// kernel's is 250-300 KB; a --root tree's may be anyone's.
const maxKernelConfig = 4 << 20

// KernelConfig reads the running kernel's build configuration under root:
// /proc/config.gz, else /boot/config-RELEASE (RELEASE the tree's
// proc/sys/kernel/osrelease, or this machine's uname -r). It returns the
// CONFIG_ options set (name to value: "y", "m", a number, a quoted
// string) and the file read; nil and "" when neither file is there.
func KernelConfig(root string) (map[string]string, string) {
	if f, err := rootfs.Open(root, "proc/config.gz"); err == nil {
		defer f.Close()
		if z, err := gzip.NewReader(f); err == nil {
			return readConfig(z), "/proc/config.gz"
		}
	}
	rel := ""
	if b, err := rootfs.ReadFile(root, "proc/sys/kernel/osrelease"); err == nil {
		rel = strings.TrimSpace(string(b))
	} else if rootfs.IsHost(root) {
		var u unix.Utsname
		if unix.Uname(&u) == nil {
			rel = unix.ByteSliceToString(u.Release[:])
		}
	}
	if rel == "" || strings.ContainsAny(rel, "/\x00") {
		return nil, ""
	}
	f, err := rootfs.Open(root, "boot/config-"+rel)
	if err != nil {
		return nil, ""
	}
	defer f.Close()
	return readConfig(f), "/boot/config-" + rel
}

// readConfig reads CONFIG_NAME=VALUE lines, at most maxKernelConfig bytes
// of them; comments ("# CONFIG_X is not set") and other lines are skipped.
func readConfig(r io.Reader) map[string]string {
	cfg := map[string]string{}
	sc := bufio.NewScanner(io.LimitReader(r, maxKernelConfig))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), "=")
		if ok && strings.HasPrefix(k, "CONFIG_") {
			cfg[k] = v
		}
	}
	return cfg
}

// configTimer extracts CONFIG_HZ, the tick mode and CONFIG_HIGH_RES_TIMERS.
func configTimer(cfg map[string]string) (hz int, tickless string, highRes *bool) {
	hz, _ = strconv.Atoi(cfg["CONFIG_HZ"])
	switch {
	case cfg["CONFIG_NO_HZ_FULL"] == "y":
		tickless = "full (when nohz_full= is set)"
	case cfg["CONFIG_NO_HZ_IDLE"] == "y":
		tickless = "idle"
	case cfg["CONFIG_HZ_PERIODIC"] == "y":
		tickless = "periodic"
	}
	if v, ok := cfg["CONFIG_HIGH_RES_TIMERS"]; ok {
		yes := v == "y"
		highRes = &yes
	} else if hz != 0 {
		no := false
		highRes = &no
	}
	return hz, tickless, highRes
}

func set(d time.Duration) (*Request, error) {
	prev, err := unix.PrctlRetInt(unix.PR_GET_TIMERSLACK, 0, 0, 0, 0)
	if err != nil {
		return nil, fmt.Errorf("prctl(PR_GET_TIMERSLACK): %w", err)
	}
	if err := unix.Prctl(unix.PR_SET_TIMERSLACK, uintptr(d.Nanoseconds()), 0, 0, 0); err != nil {
		return nil, fmt.Errorf("prctl(PR_SET_TIMERSLACK, %d): %w", d.Nanoseconds(), err)
	}
	got, err := unix.PrctlRetInt(unix.PR_GET_TIMERSLACK, 0, 0, 0, 0)
	if err != nil {
		return nil, fmt.Errorf("prctl(PR_GET_TIMERSLACK): %w", err)
	}
	return &Request{
		Requested: d,
		Granted:   time.Duration(got),
		release: func() error {
			return unix.Prctl(unix.PR_SET_TIMERSLACK, uintptr(prev), 0, 0, 0)
		},
	}, nil
}
