package cli

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/latlab/latlab/internal/probe"
	"github.com/latlab/latlab/internal/report"
	"github.com/latlab/latlab/internal/stats"
	"github.com/latlab/latlab/internal/timer"
)

func init() { register(newDoctorCmd) }

// DoctorOptions are the flags of `latlab doctor` (and of bare `latlab`).
type DoctorOptions struct {
	IO *IO
}

func newDoctorCmd(io *IO) *cobra.Command {
	o := &DoctorOptions{IO: io}
	return &cobra.Command{
		Use:   "doctor",
		Short: "quick check-up: timer state, a short sleep probe and a short wake probe (under 10 s)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runDoctor(cmd.Context(), o)
		},
	}
}

// Check-up sizes: about 1 s of sleeps and 3 s of wake-ups, well inside
// the 10 s budget even at Windows' 15.625 ms default interval.
const (
	doctorSleepSamples = 60
	doctorWakeDuration = 3 * time.Second
	doctorWakeInterval = time.Millisecond
)

func runDoctor(ctx context.Context, o *DoctorOptions) error {
	w := o.IO.Out
	fmt.Fprintln(w, "latlab check-up")
	fmt.Fprintln(w)
	st, err := timer.Query()
	if err != nil {
		fmt.Fprintf(w, "timer: cannot read the timer state: %v\n", err)
	} else {
		fmt.Fprintf(w, "timer: %s\n", timerLine(&st))
		for _, warn := range st.Warnings {
			fmt.Fprintf(w, "  warning: %s\n", warn)
		}
	}
	method := probe.SleepMethods()[0]
	sr, err := probe.Sleep(ctx, probe.SleepOptions{
		Duration: time.Millisecond, Samples: doctorSleepSamples, Gap: 2 * time.Millisecond,
		Method: method, Thread: probe.Thread{CPU: -1},
	})
	if err != nil {
		return fmt.Errorf("sleep probe: %w", err)
	}
	over := stats.Summarize(stats.Shift(sr.Slept, int64(time.Millisecond)))
	fmt.Fprintf(w, "\nsleep: asking %s for 1ms, %d times: overshoot p50 %s, p99 %s, max %s\n",
		method, over.Count, fmtNs(over.P50), fmtNs(over.P99), fmtNs(over.Max))
	fmt.Fprintf(w, "  %s\n", sleepVerdict(over, st))
	if ctx.Err() != nil {
		return nil
	}
	wr, err := probe.Wake(ctx, probe.WakeOptions{Interval: doctorWakeInterval, Duration: doctorWakeDuration, CPUs: []int{-1}})
	if err != nil {
		return fmt.Errorf("wake probe: %w", err)
	}
	t := wr.Threads[0]
	ws := stats.Summarize(t.Latencies)
	fmt.Fprintf(w, "\nwake: a 1ms periodic wake-up, %d times: late by p50 %s, p99 %s, max %s; %d missed periods\n",
		ws.Count, fmtNs(ws.P50), fmtNs(ws.P99), fmtNs(ws.Max), t.Overruns)
	fmt.Fprintf(w, "  %s\n", wakeVerdict(ws, t.Overruns, doctorWakeInterval))
	fmt.Fprintf(w, "\ntool overhead: clock read %s, zero-length wait %s (p50)\n", fmtNs(wr.Overhead.ClockReadP50Ns), fmtNs(wr.Overhead.ZeroWaitP50Ns))
	printDoctorNext(w)
	return nil
}

// wakeVerdict puts a wake-up distribution of a periodic loop with the
// given interval in terms of common deadlines: a 1 ms audio buffer, a 4 ms
// (240 Hz) frame.
func wakeVerdict(s stats.Summary, overruns int64, interval time.Duration) string {
	switch {
	case s.Max > int64(4*time.Millisecond):
		return "poor: some wake-ups came later than a 240 Hz frame (4 ms); something on this machine holds the CPU or the timer"
	case overruns > 0:
		return fmt.Sprintf("mediocre: %d missed periods: some wake-ups (up to %s late) came after the next %s deadline had passed, enough to break small audio buffers",
			overruns, fmtNs(s.Max), report.Duration(interval))
	case s.P99 > int64(time.Millisecond):
		return "mediocre: 1 in 100 wake-ups is over 1 ms late, enough to break small audio buffers"
	case s.P99 > int64(200*time.Microsecond):
		return "fair: wake-ups are mostly timely, with a tail over 200 µs; try `latlab wake --rtprio 80 --mlock` to see whether priority fixes it"
	}
	return "good: 99% of wake-ups within 200 µs of their deadline"
}

func printDoctorNext(w io.Writer) {
	fmt.Fprintln(w, "\nnext: `latlab sleep --live`, `latlab wake --duration 60s`, `latlab timer status`")
}
