package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/latlab/latlab/internal/irq"
	"github.com/latlab/latlab/internal/probe"
	"github.com/latlab/latlab/internal/report"
	"github.com/latlab/latlab/internal/result"
)

// IRQWatchOptions are the flags of `latlab irq watch`.
type IRQWatchOptions struct {
	IO       *IO
	Interval time.Duration
	Duration time.Duration
	During   bool
	Command  []string
	All      bool
	Quiet    bool
	Plot     string
	JSON     bool
	Out      string

	settings map[string]string
}

func newIRQWatchCmd(io *IO) *cobra.Command {
	o := &IRQWatchOptions{IO: io}
	cmd := &cobra.Command{
		Use:   "watch [--interval 1s] [--during -- COMMAND ARGS...]",
		Short: "watch which CPUs handle interrupts, softirqs (Linux) or DPCs (Windows)",
		Long: `Reads the per-CPU counters every --interval and reports what each CPU handled:

Linux    /proc/interrupts (network queues grouped by device and queue, e.g.
         eth0-TxRx-3, virtio2-input.0) and /proc/softirqs (NET_RX, NET_TX,
         TIMER, ...), plus each network device's queues, their interrupts'
         allowed and effective CPUs (/proc/irq/N), RPS/XPS masks, and the
         RSS indirection table, channels and coalescing (ethtool ioctls)
         where the driver supports them.
Windows  PDH \Processor Information(*)\Interrupts/sec, DPCs Queued/sec,
         % DPC Time and % Interrupt Time, and the adapters' RSS settings
         from the registry (what Get-NetAdapterRss shows).

With --during, runs COMMAND and reports the distribution while it ran (e.g.
a latlab net udp profile); otherwise prints a line per interval until
--duration or Ctrl-C, then the totals.`,
		Example: `  latlab irq watch
  latlab irq watch --interval 500ms --duration 10s --plot irq.svg
  latlab irq watch --during -- latlab net udp --to 127.0.0.1:7 --profile bulk --duration 5s`,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.settings = settingsOf(cmd.Flags())
			dash := cmd.ArgsLenAtDash()
			switch {
			case dash == -1 && len(args) > 0:
				return Usagef("unexpected argument %q: put a command after --during --, e.g. latlab irq watch --during -- sleep 5", args[0])
			case dash > 0:
				return Usagef("unexpected argument %q before --", args[0])
			case dash == 0:
				o.Command = args
			}
			if o.During && len(o.Command) == 0 {
				return Usagef("--during needs a command after --, e.g. latlab irq watch --during -- sleep 5")
			}
			if !o.During && len(o.Command) > 0 {
				return Usagef("a command after -- needs --during")
			}
			return runIRQWatch(cmd.Context(), o)
		},
	}
	fs := cmd.Flags()
	durationFlag(fs, &o.Interval, "interval", time.Second, "time between readings")
	durationFlagZero(fs, &o.Duration, "duration", 0, "stop after this long (0 = until Ctrl-C, or until the --during command ends)")
	fs.BoolVar(&o.During, "during", false, "run the command after -- and report the distribution while it ran")
	fs.BoolVar(&o.All, "all", false, "show every interrupt and softirq row, not only network rows and the main counters")
	fs.BoolVar(&o.Quiet, "quiet", false, "no line per interval")
	fs.StringVar(&o.Plot, "plot", "", "per-CPU bar plot of the totals to FILE.svg or FILE.png")
	fs.BoolVar(&o.JSON, "json", false, "write the result document (kind irq) to stdout")
	fs.StringVarP(&o.Out, "output", "o", "", "also write the result document to this file")
	return cmd
}

// maxStoredIntervals bounds the intervals a document holds (10 minutes at
// the default 1 s); a longer watch stores only the total. A variable so a
// test can exceed it quickly.
var maxStoredIntervals = 600

func runIRQWatch(ctx context.Context, o *IRQWatchOptions) error {
	if err := checkOutputs("--plot", o.Plot, o.Out); err != nil {
		return err
	}
	var child *exec.Cmd
	if o.During {
		if _, err := exec.LookPath(o.Command[0]); err != nil {
			return Usagef("command %q not found", o.Command[0])
		}
	}
	w, err := irq.NewWatcher(irq.WatchOptions{Root: o.IO.Root})
	if err != nil {
		return fmt.Errorf("irq watch: %w", err)
	}
	defer w.Close()
	human := o.IO.Out
	if o.JSON {
		human = o.IO.Err
	}
	var done <-chan error
	if o.During {
		child = exec.Command(o.Command[0], o.Command[1:]...)
		child.Stdin, child.Stdout, child.Stderr = o.IO.In, o.IO.Err, o.IO.Err
		if err := child.Start(); err != nil {
			return fmt.Errorf("start %s: %w", o.Command[0], err)
		}
		ch := make(chan error, 1)
		go func() { ch <- child.Wait() }()
		done = ch
	}
	var stop <-chan time.Time
	if o.Duration > 0 {
		t := time.NewTimer(o.Duration)
		defer t.Stop()
		stop = t.C
	}
	tick := time.NewTicker(o.Interval)
	defer tick.Stop()
	// The total is a running sum; the intervals themselves are kept only
	// while the document can hold them all.
	var acc irq.Accumulator
	var ivs []*irq.Interval
	var waitErr error
	finished, childDone := false, false
	start := time.Now()
	for !finished {
		select {
		case <-tick.C:
		case waitErr = <-done:
			finished, childDone = true, true
		case <-stop:
			finished = true
		case <-ctx.Done():
			finished = true
		}
		iv, err := w.Next()
		if err != nil {
			return fmt.Errorf("irq watch: %w", err)
		}
		acc.Add(iv)
		if acc.Len() <= maxStoredIntervals {
			ivs = append(ivs, iv)
		} else {
			ivs = nil
		}
		if !o.Quiet && !o.During {
			printIRQLine(human, time.Since(start), iv)
		}
	}
	if child != nil && !childDone {
		// Stopped by --duration or Ctrl-C before the command ended.
		_ = child.Process.Signal(os.Interrupt)
		select {
		case waitErr = <-done:
		case <-time.After(5 * time.Second):
			_ = child.Process.Kill()
			waitErr = <-done
		}
	}
	total := acc.Total()
	data := &irq.WatchData{Method: irq.Method(), IntervalNs: o.Interval.Nanoseconds(), Command: o.Command, Total: total, Network: w.Network(), Intervals: ivs}
	if child != nil {
		code := 0
		var ee *exec.ExitError
		if errors.As(waitErr, &ee) {
			code = ee.ExitCode()
		}
		data.ExitStatus = &code
	}
	doc := irq.KindWatch.New(data)
	doc.Settings = o.settings
	data.Measurement = probe.Measurement{Method: irq.Method(), IntervalNs: o.Interval.Nanoseconds(),
		ElapsedNs: total.EndNs - total.StartNs, ClockSource: doc.Host.ClockSource, PercentileNote: result.PercentileDefinition}
	if acc.Len() > maxStoredIntervals {
		doc.Notes = append(doc.Notes, fmt.Sprintf("%d intervals: only the total is stored", acc.Len()))
	}
	if o.Plot != "" {
		if err := writePlot(o.Plot, func(format string) ([]byte, error) { return irqPlot(total, format) }); err != nil {
			return err
		}
	}
	err = emitResult(o.IO, doc, o.Out, o.JSON, func(out io.Writer) {
		if o.During {
			fmt.Fprintf(out, "latlab irq watch: %s ran %s\n", strings.Join(o.Command, " "), fmtNs(total.EndNs-total.StartNs))
		}
		PrintIRQTotal(out, total, o.All)
		PrintNetInfo(out, w.Network())
	})
	if err != nil {
		return err
	}
	if data.ExitStatus != nil && *data.ExitStatus != 0 {
		return &ExitStatusError{Code: *data.ExitStatus}
	}
	return nil
}

// printIRQLine prints one interval: network work per CPU.
func printIRQLine(w io.Writer, at time.Duration, iv *irq.Interval) {
	work, role := iv.NetWork()
	what := "network IRQs + NET_RX/NET_TX"
	if role == irq.RoleDPC {
		what = "DPCs queued"
	}
	var parts []string
	for i, c := range iv.CPUs {
		parts = append(parts, fmt.Sprintf("cpu%d %s", c, fmtCount(work[i])))
	}
	fmt.Fprintf(w, "[%7.1fs] %s per CPU: %s\n", at.Seconds(), what, strings.Join(parts, "  "))
}

func fmtCount(v float64) string {
	if math.IsNaN(v) {
		return "-"
	}
	if v == math.Trunc(v) {
		return strconv.FormatInt(int64(v), 10)
	}
	return strconv.FormatFloat(v, 'f', 1, 64)
}

// irqRowShown selects the rows of the totals table: network rows, the
// softirqs that matter for latency, local timer, and (Windows) all PDH
// rows; --all shows everything with a non-zero total.
func irqRowShown(r irq.Row, all bool) bool {
	if all {
		return r.Total != 0 || r.Source == "pdh"
	}
	switch {
	case r.Role != "", r.Source == "pdh":
		return true
	case r.Source == "softirqs":
		return r.Name == "TIMER" || r.Name == "NET_RX" || r.Name == "NET_TX" || r.Name == "SCHED"
	case r.Source == "interrupts":
		return r.Name == "LOC" || r.Name == "RES" || r.Name == "CAL"
	}
	return false
}

// PrintIRQTotal prints a per-CPU table of an interval.
func PrintIRQTotal(w io.Writer, iv *irq.Interval, all bool) {
	secs := iv.Seconds()
	hdr := []string{"source"}
	for _, c := range iv.CPUs {
		hdr = append(hdr, fmt.Sprintf("cpu%d", c))
	}
	hdr = append(hdr, "total", "per s")
	var rows [][]string
	allIRQ, allTotal, haveIRQ := iv.SumPerCPU(irq.IsInterrupt)
	label := func(r irq.Row) string {
		switch r.Source {
		case "interrupts":
			if r.Label != "" {
				if _, err := strconv.Atoi(r.Name); err == nil {
					return "IRQ " + r.Name + " " + r.Label
				}
				return r.Name + " (" + r.Label + ")"
			}
			return "IRQ " + r.Name
		case "softirqs":
			return "softirq " + r.Name
		}
		return r.Label
	}
	shown := []irq.Row{}
	for _, r := range iv.Rows {
		if irqRowShown(r, all) {
			shown = append(shown, r)
		}
	}
	sort.SliceStable(shown, func(i, j int) bool { return shown[i].Role == irq.RoleNet && shown[j].Role != irq.RoleNet })
	for _, r := range shown {
		row := []string{label(r)}
		if r.Role == irq.RoleNet {
			row[0] = "* " + row[0]
		}
		for _, v := range r.PerCPU {
			row = append(row, fmtCount(v))
		}
		if r.Unit == irq.UnitPercent {
			row = append(row, strconv.FormatFloat(r.Total, 'f', 2, 64)+"%", "")
		} else {
			rate := ""
			if secs > 0 {
				rate = strconv.FormatFloat(r.Total/secs, 'f', 0, 64)
			}
			row = append(row, fmtCount(r.Total), rate)
		}
		rows = append(rows, row)
	}
	if haveIRQ {
		row := []string{"all interrupts"}
		for _, v := range allIRQ {
			row = append(row, fmtCount(v))
		}
		row = append(row, fmtCount(allTotal), strconv.FormatFloat(allTotal/math.Max(secs, 1e-9), 'f', 0, 64))
		rows = append(rows, row)
	}
	fmt.Fprintf(w, "\nper CPU over %s (* = network work):\n", fmtNs(iv.EndNs-iv.StartNs))
	report.Table(w, hdr, rows)
}

// PrintNetInfo prints the queue -> IRQ -> CPU mapping of hardware NICs.
func PrintNetInfo(w io.Writer, n *irq.NetInfo) {
	if n == nil {
		return
	}
	fmt.Fprintln(w)
	hw := 0
	for _, f := range n.Interfaces {
		if f.Virtual {
			continue
		}
		hw++
		desc := f.Name
		if f.Driver != "" || f.Device != "" {
			desc += fmt.Sprintf(" (%s)", strings.Trim(strings.Join([]string{f.Driver, f.Device}, ", "), ", "))
		}
		fmt.Fprintf(w, "%s: %d rx / %d tx queues\n", desc, f.RxQueues, f.TxQueues)
		for _, q := range f.IRQs {
			eff := ""
			if len(q.Effective) > 0 {
				eff = ", delivered to CPU " + irq.FormatCPUList(q.Effective)
			}
			chip := ""
			if q.Chip != "" {
				chip = " (" + q.Chip + ")"
			}
			fmt.Fprintf(w, "  IRQ %d %s%s: allowed CPUs %s%s\n", q.IRQ, strings.Join(q.Actions, ", "), chip, irq.FormatCPUList(q.Affinity), eff)
		}
		var steer []string
		for _, q := range f.Queues {
			if len(q.SteerCPUs) > 0 {
				kind := "RPS"
				if strings.HasPrefix(q.Name, "tx-") {
					kind = "XPS"
				}
				steer = append(steer, fmt.Sprintf("%s %s -> CPUs %s", kind, q.Name, irq.FormatCPUList(q.SteerCPUs)))
			}
		}
		if len(steer) > 0 {
			fmt.Fprintf(w, "  steering: %s\n", strings.Join(steer, "; "))
		} else if len(f.Queues) > 0 {
			fmt.Fprintln(w, "  steering: RPS/XPS off on every queue")
		}
		if r := f.RSS; r != nil {
			if len(r.Channels) > 0 {
				fmt.Fprintf(w, "  channels: combined %d (max %d), rx %d, tx %d\n", r.Channels["combined"], r.Channels["max_combined"], r.Channels["rx"], r.Channels["tx"])
			}
			if len(r.IndirTable) > 0 {
				used := map[uint32]int{}
				for _, q := range r.IndirTable {
					used[q]++
				}
				fmt.Fprintf(w, "  RSS indirection table: %d entries over %d queues\n", len(r.IndirTable), len(used))
			}
			if len(r.Coalesce) > 0 {
				fmt.Fprintf(w, "  coalescing: rx-usecs %d rx-frames %d tx-usecs %d tx-frames %d adaptive-rx %d\n",
					r.Coalesce["rx-usecs"], r.Coalesce["rx-frames"], r.Coalesce["tx-usecs"], r.Coalesce["tx-frames"], r.Coalesce["adaptive-rx"])
			}
			if len(r.Settings) > 0 {
				keys := make([]string, 0, len(r.Settings))
				for k := range r.Settings {
					keys = append(keys, k)
				}
				sort.Strings(keys)
				var kv []string
				for _, k := range keys {
					kv = append(kv, k+"="+r.Settings[k])
				}
				fmt.Fprintf(w, "  RSS (registry): %s\n", strings.Join(kv, " "))
			}
			for _, e := range r.Errors {
				fmt.Fprintf(w, "  not reported by the driver: %s\n", e)
			}
		}
	}
	if hw == 0 {
		fmt.Fprintln(w, "no hardware network device found (only virtual ones such as lo)")
	}
	for _, note := range n.Notes {
		fmt.Fprintf(w, "note: %s\n", note)
	}
}

// irqPlot draws the network work and all interrupts per CPU.
func irqPlot(iv *irq.Interval, format string) ([]byte, error) {
	var groups []report.BarGroup
	work, role := iv.NetWork()
	name := "network IRQs + NET_RX/NET_TX"
	if role == irq.RoleDPC {
		name = "DPCs queued"
	}
	groups = append(groups, report.BarGroup{Name: name, Values: work})
	if all, _, have := iv.SumPerCPU(irq.IsInterrupt); have {
		groups = append(groups, report.BarGroup{Name: "all interrupts", Values: all})
	}
	return report.CPUBarsPlot(fmt.Sprintf("per-CPU activity over %s", fmtNs(iv.EndNs-iv.StartNs)), "count", iv.CPUs, groups, format)
}
