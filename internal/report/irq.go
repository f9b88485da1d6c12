package report

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/latlab/latlab/internal/irq"
	"github.com/latlab/latlab/internal/units"
)

// IRQLine prints one reading of `irq watch`: network work per CPU.
func IRQLine(w io.Writer, at time.Duration, iv *irq.Interval) {
	work, role := iv.NetWork()
	what := "network IRQs + NET_RX/NET_TX"
	if role == irq.RoleDPC {
		what = "DPCs queued"
	}
	var parts []string
	for i, c := range iv.CPUs {
		parts = append(parts, fmt.Sprintf("cpu%d %s", c, irqCount(work[i])))
	}
	fmt.Fprintf(w, "[%7.1fs] %s per CPU: %s\n", at.Seconds(), what, strings.Join(parts, "  "))
}

func irqCount(v float64) string {
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
// rows; all shows everything with a non-zero total.
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

// IRQWatch prints `irq watch`: with during (--during's command) the
// command and how long it ran, then the per-CPU table of the whole watch
// (all: every row) and the network devices' interrupts.
func IRQWatch(w io.Writer, r *irq.Result, during []string, all bool) {
	if len(during) > 0 {
		fmt.Fprintf(w, "latlab irq watch: %s ran %s\n", strings.Join(during, " "), units.Ns(r.Total.EndNs-r.Total.StartNs))
	}
	IRQTotal(w, r.Total, all)
	NetInfo(w, r.Network)
}

// IRQTotal prints a per-CPU table of an interval; all shows every row with
// a non-zero total, not only the network rows and the main counters.
func IRQTotal(w io.Writer, iv *irq.Interval, all bool) {
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
			row = append(row, irqCount(v))
		}
		if r.Unit == irq.UnitPercent {
			row = append(row, strconv.FormatFloat(r.Total, 'f', 2, 64)+"%", "")
		} else {
			rate := ""
			if secs > 0 {
				rate = strconv.FormatFloat(r.Total/secs, 'f', 0, 64)
			}
			row = append(row, irqCount(r.Total), rate)
		}
		rows = append(rows, row)
	}
	if haveIRQ {
		row := []string{"all interrupts"}
		for _, v := range allIRQ {
			row = append(row, irqCount(v))
		}
		row = append(row, irqCount(allTotal), strconv.FormatFloat(allTotal/math.Max(secs, 1e-9), 'f', 0, 64))
		rows = append(rows, row)
	}
	fmt.Fprintf(w, "\nper CPU over %s (* = network work):\n", units.Duration(time.Duration(iv.EndNs-iv.StartNs)))
	Table(w, hdr, rows)
}

// NetInfo prints the queue -> IRQ -> CPU mapping of hardware NICs.
func NetInfo(w io.Writer, n *irq.NetInfo) {
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
		writeNote(w, note)
	}
}

// IRQPlot draws the network work and all interrupts per CPU of an
// interval, as SVG or PNG bytes.
func IRQPlot(iv *irq.Interval, format string) ([]byte, error) {
	var groups []BarGroup
	work, role := iv.NetWork()
	name := "network IRQs + NET_RX/NET_TX"
	if role == irq.RoleDPC {
		name = "DPCs queued"
	}
	groups = append(groups, BarGroup{Name: name, Values: work})
	if all, _, have := iv.SumPerCPU(irq.IsInterrupt); have {
		groups = append(groups, BarGroup{Name: "all interrupts", Values: all})
	}
	return CPUBarsPlot(fmt.Sprintf("per-CPU activity over %s", units.Duration(time.Duration(iv.EndNs-iv.StartNs))), "count", iv.CPUs, groups, format)
}
