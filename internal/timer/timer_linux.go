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
	if cfg := readKernelConfig(root); cfg != nil {
		st.ConfigHZ, st.Tickless, st.HighResTimers = parseKernelConfig(cfg)
		cfg.Close()
	}
	if st.NohzFullCPUs != "" {
		st.Tickless = "full"
	}
	if st.Clocksource != "" && !ClocksourceFast(st.Clocksource) {
		st.Warnings = append(st.Warnings, fmt.Sprintf("clocksource %q is slow to read; timestamps cost more than with tsc", st.Clocksource))
	}
	return st, nil
}

// readKernelConfig opens the running kernel's config from /proc/config.gz or
// /boot/config-$(uname -r), whichever exists.
func readKernelConfig(root string) io.ReadCloser {
	if f, err := rootfs.Open(root, "proc/config.gz"); err == nil {
		if z, err := gzip.NewReader(f); err == nil {
			return struct {
				io.Reader
				io.Closer
			}{z, f}
		}
		f.Close()
	}
	var u unix.Utsname
	if unix.Uname(&u) != nil {
		return nil
	}
	rel := unix.ByteSliceToString(u.Release[:])
	if f, err := rootfs.Open(root, "boot/config-"+rel); err == nil {
		return f
	}
	return nil
}

// parseKernelConfig extracts CONFIG_HZ, the tick mode and CONFIG_HIGH_RES_TIMERS.
func parseKernelConfig(r io.Reader) (hz int, tickless string, highRes *bool) {
	sc := bufio.NewScanner(r)
	no := false
	for sc.Scan() {
		line := sc.Text()
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		switch k {
		case "CONFIG_HZ":
			hz, _ = strconv.Atoi(v)
		case "CONFIG_NO_HZ_FULL":
			if v == "y" {
				tickless = "full (when nohz_full= is set)"
			}
		case "CONFIG_NO_HZ_IDLE":
			if v == "y" && tickless == "" {
				tickless = "idle"
			}
		case "CONFIG_HZ_PERIODIC":
			if v == "y" {
				tickless = "periodic"
			}
		case "CONFIG_HIGH_RES_TIMERS":
			yes := v == "y"
			highRes = &yes
		}
	}
	if highRes == nil && hz != 0 {
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
