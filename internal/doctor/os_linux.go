package doctor

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"runtime"

	"github.com/latlab/latlab/internal/rootfs"
	"github.com/latlab/latlab/internal/stats"
	"github.com/latlab/latlab/internal/timer"
	"github.com/latlab/latlab/internal/units"
)

func osTimerFacts(st timer.Status, o Options) []Fact {
	return LinuxTimerFacts(st, readDMALatency(o.Root))
}

// readDMALatency reads the CPU latency limit in force. Opening the device
// adds a request at the default value, which constrains nothing; closing
// removes it.
func readDMALatency(root string) string {
	f, err := rootfs.Open(root, "dev/cpu_dma_latency")
	if errors.Is(err, fs.ErrPermission) {
		if os.Geteuid() == 0 {
			// Root refused all the same: a container's device policy.
			return "unknown: refused even to root (" + err.Error() + ")"
		}
		return "unknown (needs root)"
	}
	if errors.Is(err, fs.ErrNotExist) {
		return "unknown: no /dev/cpu_dma_latency"
	}
	if err != nil {
		return "unknown: " + err.Error()
	}
	defer f.Close()
	var b [4]byte
	if _, err := io.ReadFull(f, b[:]); err != nil {
		return "unknown: " + err.Error()
	}
	return DMALatencyMeaning(int32(binary.NativeEndian.Uint32(b[:])))
}

// SleepVerdict explains a Linux sleep overshoot (with enough sleeps for
// its p50, tooFewSleeps): mostly the timer slack of normal threads.
func SleepVerdict(over stats.Summary, st timer.Status) string {
	if s, few := tooFewSleeps(over); few {
		return s
	}
	slack := st.TimerSlackNs
	if slack > 0 && over.P50 >= slack/2 && over.P50 < slack*3 {
		return fmt.Sprintf("most of the overshoot is the %s timer slack of normal threads; `latlab timer set 1us -- CMD` or realtime priority removes it", units.Ns(slack))
	}
	if over.P50 < 20_000 {
		return fmt.Sprintf("sleeps end close to the requested time (overshoot p50 %s)", units.Ns(over.P50))
	}
	// What the rest is, this run does not say: it asserted "the CPU was
	// busy or slow to leave an idle state" of a 23µs overshoot at 1µs of
	// slack, where a zero-length nanosleep took 15µs (the wake-up path's
	// own cost, the tool overhead line).
	const rest = "the wake-up itself (its own cost, see tool overhead; a busy CPU; a slow exit from an idle state)"
	if slack <= 0 { // a realtime thread: none of it is slack
		return fmt.Sprintf("sleeps overshoot by %s (p50) with no timer slack (a realtime thread): %s", units.Ns(over.P50), rest)
	}
	return fmt.Sprintf("sleeps overshoot by more than the %s timer slack explains (p50 %s): the rest is %s", units.Ns(slack), units.Ns(over.P50), rest)
}

// Cmdline is the kernel command line under root, "" when unreadable.
func Cmdline(root string) string {
	b, err := rootfs.ReadFile(root, "proc/cmdline")
	if err != nil {
		return ""
	}
	return string(b)
}

// numCPU is how many CPUs the per-CPU probe uses: those the process may
// run on.
func numCPU() int { return runtime.NumCPU() }
