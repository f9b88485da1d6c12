package irq

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func parseFile(t *testing.T, name string, parse func(r interface{ Read([]byte) (int, error) }) (*Counters, error)) *Counters {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	c, err := parse(f)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return c
}

func intr(t *testing.T, name string) *Counters {
	return parseFile(t, name, func(r interface{ Read([]byte) (int, error) }) (*Counters, error) { return ParseInterrupts(r) })
}

func soft(t *testing.T, name string) *Counters {
	return parseFile(t, name, func(r interface{ Read([]byte) (int, error) }) (*Counters, error) { return ParseSoftirqs(r) })
}

func TestParseInterruptsFixtures(t *testing.T) {
	cases := []struct {
		file    string
		cpus    []int
		rows    int
		irq     string
		perCPU  []uint64
		chip    string
		actions []string
	}{
		{"interrupts-kvm-2cpu.txt", []int{0, 1}, 0, "38", nil, "PCI-MSIX-0000:00:03.0 1-edge", []string{"virtio2-input.0"}},
		{"interrupts-16cpu-multiqueue.txt", seq(16), 17, "132", nil, "PCI-MSI-edge", []string{"eth0-TxRx-3"}},
		{"interrupts-16cpu-multiqueue.txt", seq(16), 17, "18", nil, "IO-APIC-fasteoi", []string{"ehci_hcd:usb1", "uhci_hcd:usb7"}},
		{"interrupts-16cpu-multiqueue.txt", seq(16), 17, "3", nil, "IO-APIC-edge", nil},
		{"interrupts-16cpu-multiqueue.txt", seq(16), 17, "140", []uint64{4294967295, 12345678901, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7}, "IR-PCI-MSI 524288-edge", []string{"nvme0q3"}},
		{"interrupts-arm64-gic.txt", seq(4), 9, "11", []uint64{1234567, 2345678, 3456789, 4567890}, "GICv3 27 Level", []string{"arch_timer"}},
		{"interrupts-arm64-gic.txt", seq(4), 9, "47", nil, "ITS-MSI 524290 Edge", []string{"iwlwifi: default queue"}},
		{"interrupts-wrapped-8cpu.txt", seq(8), 3, "24", []uint64{10, 20, 30, 40, 50, 60, 70, 80}, "PCI-MSI 524288-edge", []string{"enp3s0-rx-0"}},
		{"interrupts-offline-cpus.txt", []int{0, 2}, 2, "38", []uint64{100, 200}, "PCI-MSIX-0000:00:03.0 1-edge", []string{"virtio2-input.0"}},
	}
	for _, c := range cases {
		t.Run(c.file+"/"+c.irq, func(t *testing.T) {
			got := intr(t, c.file)
			if !reflect.DeepEqual(got.CPUs, c.cpus) {
				t.Fatalf("CPUs %v, want %v", got.CPUs, c.cpus)
			}
			if c.rows > 0 && len(got.Rows) != c.rows {
				t.Fatalf("%d rows, want %d", len(got.Rows), c.rows)
			}
			r := rowNamed(got, c.irq)
			if r == nil {
				t.Fatalf("no row %s", c.irq)
			}
			if r.Kind != KindIRQ || r.Chip != c.chip || !reflect.DeepEqual(r.Actions, c.actions) {
				t.Fatalf("row %s: kind %s chip %q actions %q, want chip %q actions %q", c.irq, r.Kind, r.Chip, r.Actions, c.chip, c.actions)
			}
			if c.perCPU != nil && !reflect.DeepEqual(r.PerCPU, c.perCPU) {
				t.Fatalf("row %s: %v, want %v", c.irq, r.PerCPU, c.perCPU)
			}
			if len(r.PerCPU) != len(c.cpus) {
				t.Fatalf("row %s has %d counts for %d CPUs", c.irq, len(r.PerCPU), len(c.cpus))
			}
		})
	}
}

// rowNamed returns the row with the given name, or nil.
func rowNamed(c *Counters, name string) *CounterRow {
	for i := range c.Rows {
		if c.Rows[i].Name == name {
			return &c.Rows[i]
		}
	}
	return nil
}

func seq(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

func TestArchRowsWithSingleTotal(t *testing.T) {
	c := intr(t, "interrupts-16cpu-multiqueue.txt")
	for name, want := range map[string]uint64{"ERR": 15, "MIS": 0} {
		r := rowNamed(c, name)
		if r == nil || r.Kind != KindArch || r.PerCPU != nil || r.Total != want {
			t.Fatalf("%s: %+v, want a single total %d", name, r, want)
		}
	}
	loc := rowNamed(c, "LOC")
	if loc == nil || loc.Desc != "Local timer interrupts" || len(loc.PerCPU) != 16 || loc.PerCPU[15] != 444822015 {
		t.Fatalf("LOC: %+v", loc)
	}
	arm := intr(t, "interrupts-arm64-gic.txt")
	if r := rowNamed(arm, "Err"); r == nil || r.PerCPU != nil || r.Total != 0 {
		t.Fatalf("arm Err: %+v", r)
	}
	if r := rowNamed(arm, "IPI0"); r == nil || r.Kind != KindArch || r.Total != 26000 || r.Desc != "Rescheduling interrupts" {
		t.Fatalf("IPI0: %+v", r)
	}
	real := intr(t, "interrupts-kvm-2cpu.txt")
	for _, name := range []string{"ERR", "MIS"} {
		if r := rowNamed(real, name); r == nil || r.PerCPU != nil {
			t.Fatalf("real %s: %+v", name, r)
		}
	}
}

func TestSoftirqsHotplug(t *testing.T) {
	s := soft(t, "softirqs-hotplug-4cpu.txt")
	if !reflect.DeepEqual(s.CPUs, []int{0, 1, 2, 3}) {
		t.Fatalf("CPUs %v", s.CPUs)
	}
	i := intr(t, "interrupts-offline-cpus.txt")
	// Deltas over the union of CPUs: the offline CPUs 1 and 3 have no
	// interrupt columns (NaN), but softirq counts.
	iv := BuildInterval(nil, i, nil, s, map[int]bool{38: true})
	if !reflect.DeepEqual(iv.CPUs, []int{0, 1, 2, 3}) {
		t.Fatalf("union CPUs %v", iv.CPUs)
	}
	for _, r := range iv.Rows {
		switch {
		case r.Source == "interrupts" && r.Name == "38":
			if r.Role != RoleNet || r.PerCPU[0] != 100 || !math.IsNaN(r.PerCPU[1]) || r.PerCPU[2] != 200 || !math.IsNaN(r.PerCPU[3]) {
				t.Fatalf("IRQ 38: %+v", r)
			}
		case r.Source == "softirqs" && r.Name == "TIMER":
			if r.PerCPU[1] != 500 || r.PerCPU[3] != 7 {
				t.Fatalf("TIMER: %+v", r)
			}
		case r.Source == "softirqs" && r.Name == "NET_RX":
			if r.Role != RoleNet {
				t.Fatalf("NET_RX role %q", r.Role)
			}
		}
	}
	work, role := iv.NetWork()
	if role != RoleNet || work[0] != 100+9629+4 || work[2] != 200+11432 {
		t.Fatalf("net work %v (%s)", work, role)
	}
	if got := BusyCPUs(iv.CPUs, work, 0.05); !reflect.DeepEqual(got, []int{0, 2}) {
		t.Fatalf("busy %v", got)
	}
}

func TestDeltaWrapsAt32Bits(t *testing.T) {
	prev, _ := ParseInterrupts(strings.NewReader("CPU0 CPU1\n 5: 4294967290 10 PCI-MSI 1-edge eth0-rx-0\nERR: 3\n"))
	cur, _ := ParseInterrupts(strings.NewReader("CPU0 CPU1\n 5: 4 15 PCI-MSI 1-edge eth0-rx-0\nERR: 5\n"))
	rows := DeltaRows("interrupts", prev, cur, []int{0, 1}, nil)
	if rows[0].PerCPU[0] != 10 || rows[0].PerCPU[1] != 5 || rows[0].Total != 15 {
		t.Fatalf("wrapped delta %+v", rows[0])
	}
	if rows[0].Device != "eth0" || rows[0].Queue != "rx-0" {
		t.Fatalf("device/queue %q %q", rows[0].Device, rows[0].Queue)
	}
	if rows[1].Total != 2 || !math.IsNaN(rows[1].PerCPU[0]) {
		t.Fatalf("ERR delta %+v", rows[1])
	}
}

func TestParseErrorsNameTheLine(t *testing.T) {
	cases := map[string]string{
		"":                                  "no CPU header",
		"CPU0 CPU1\n 5: 1\n":                "line 2",
		"CPU0 CPUx\n":                       "line 1",
		"CPU1 CPU0\n":                       "must increase",
		"CPU0\ngarbage\n":                   "line 2",
		"CPU0 CPU1\n 5: 1 2 3 x\n 6: 1 2\n": "",
	}
	for in, want := range cases {
		_, err := ParseInterrupts(strings.NewReader(in))
		if want == "" {
			if err != nil {
				t.Errorf("%q: %v", in, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: err %v, want %q", in, err, want)
		}
	}
	if _, err := ParseSoftirqs(strings.NewReader("CPU0\nNET_RX: 1 extra\n")); err == nil {
		t.Error("softirq row with text accepted")
	}
}

// Rows as real kernels print them that the parser once misread (the
// machines are named in testdata/PROVENANCE; the counts here are made
// up): arm64's "IPI0:" glued to a count as wide as its column (read as a
// continuation of the row before, the IPI row lost); 32-bit ARM's "FIQ:"
// with a handler name and no counts (the whole file refused); old 32-bit
// ARM IPI rows with a count for each present CPU under a header of the
// online CPUs only (the extra counts read as the description); s390's
// "I/O:" (read as the end of the row before).
func TestRowsOfRealKernels(t *testing.T) {
	arm64 := " 65:          0 1574978449   ITS-MSI 81928 Edge      eth0-Tx-Rx-7\n" +
		"IPI0:2768808080 2154252810       Rescheduling interrupts\n" +
		"IPI1: 357815098  120728639       Function call interrupts\n"
	c, err := ParseInterrupts(strings.NewReader("           CPU0       CPU1\n" + arm64))
	if err != nil {
		t.Fatal(err)
	}
	if r := rowNamed(c, "65"); r == nil || !reflect.DeepEqual(r.Actions, []string{"eth0-Tx-Rx-7"}) {
		t.Fatalf("IRQ 65: %+v", r)
	}
	if r := rowNamed(c, "IPI0"); r == nil || !reflect.DeepEqual(r.PerCPU, []uint64{2768808080, 2154252810}) || r.Desc != "Rescheduling interrupts" {
		t.Fatalf("IPI0: %+v", r)
	}
	if len(c.Rows) != 3 {
		t.Fatalf("%d rows, want 3", len(c.Rows))
	}

	arm32 := "           CPU0\n" +
		" 29:      85682         -  timer\n" +
		"FIQ:              fiq_glue\n" +
		"IPI1:       1000        200         30          4  Rescheduling interrupts\n" +
		"Err:          0\n"
	c, err = ParseInterrupts(strings.NewReader(arm32))
	if err != nil {
		t.Fatal(err)
	}
	if r := rowNamed(c, "FIQ"); r == nil || r.Kind != KindArch || r.PerCPU != nil || r.Total != 0 || r.Desc != "fiq_glue" {
		t.Fatalf("FIQ: %+v", r)
	}
	if r := rowNamed(c, "IPI1"); r == nil || r.PerCPU != nil || r.Total != 1234 || r.Desc != "Rescheduling interrupts" {
		t.Fatalf("IPI1: %+v", r)
	}
	if r := rowNamed(c, "29"); r == nil || !reflect.DeepEqual(r.PerCPU, []uint64{85682}) || r.Chip != "-" || !reflect.DeepEqual(r.Actions, []string{"timer"}) {
		t.Fatalf("IRQ 29: %+v", r)
	}
	// s390 names a row "I/O" (the counts are made up; real files of this
	// form are named in testdata/PROVENANCE).
	s390 := "           CPU0       CPU1\n" +
		"EXT:      31000      57000\n" +
		"I/O:       6000      33000\n" +
		"  3:          6          4   PCI-MSI  mlx5_async@pci:0002:00:00.0\n" +
		"CIO:         62         57   [I/O] Common I/O Layer Interrupt\n"
	c, err = ParseInterrupts(strings.NewReader(s390))
	if err != nil {
		t.Fatal(err)
	}
	if r := rowNamed(c, "EXT"); r == nil || r.Total != 88000 || r.Desc != "" {
		t.Fatalf("EXT: %+v", r)
	}
	if r := rowNamed(c, "I/O"); r == nil || r.Kind != KindArch || !reflect.DeepEqual(r.PerCPU, []uint64{6000, 33000}) {
		t.Fatalf("I/O: %+v", r)
	}
	if r := rowNamed(c, "3"); r == nil || r.Chip != "PCI-MSI" || !reflect.DeepEqual(r.Actions, []string{"mlx5_async@pci:0002:00:00.0"}) {
		t.Fatalf("IRQ 3: %+v", r)
	}
	if r := rowNamed(c, "CIO"); r == nil || r.Desc != "[I/O] Common I/O Layer Interrupt" {
		t.Fatalf("CIO: %+v", r)
	}

	// A row with neither counts nor text is still refused, and so is a
	// softirq row without counts.
	if _, err := ParseInterrupts(strings.NewReader("CPU0 CPU1\nLOC:\n")); err == nil {
		t.Error("LOC: with nothing accepted")
	}
	if _, err := ParseSoftirqs(strings.NewReader("CPU0 CPU1\nNET_RX: x\n")); err == nil {
		t.Error("softirq row without counts accepted")
	}
}

// POWER prints two rows named LOC ("Local timer interrupts for timer
// event device" and "... for others"; real files of this form are named
// in testdata/PROVENANCE, the counts here are made up). Each is matched
// with its own row of the earlier reading, and a watch's running total
// keeps them apart.
func TestDuplicateRowNames(t *testing.T) {
	reading := func(loc1, loc2 int) *Counters {
		c, err := ParseInterrupts(strings.NewReader(fmt.Sprintf("           CPU0       CPU1\n"+
			"LOC:      %d        100   Local timer interrupts for timer event device\n"+
			"BCT:          0          0   Broadcast timer interrupts for timer event device\n"+
			"LOC:          %d          0   Local timer interrupts for others\n", loc1, loc2)))
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	soft := &Counters{CPUs: []int{0, 1}}
	first := BuildInterval(reading(10000, 3), reading(10250, 5), soft, soft, nil)
	second := BuildInterval(reading(10250, 5), reading(10300, 5), soft, soft, nil)
	var locs []Row
	for _, r := range first.Rows {
		if r.Name == "LOC" {
			locs = append(locs, r)
		}
	}
	if len(locs) != 2 || locs[0].Total != 250 || locs[0].Label != "Local timer interrupts for timer event device" || locs[1].Total != 2 || locs[1].Label != "Local timer interrupts for others" {
		t.Fatalf("LOC rows %+v", locs)
	}
	var acc Accumulator
	acc.Add(first)
	acc.Add(second)
	locs = nil
	for _, r := range acc.Total().Rows {
		if r.Name == "LOC" {
			locs = append(locs, r)
		}
	}
	if len(locs) != 2 || locs[0].Total != 300 || locs[0].PerCPU[0] != 300 || locs[1].Total != 2 || locs[1].Label != "Local timer interrupts for others" {
		t.Fatalf("LOC rows in the running total %+v", locs)
	}
}

func TestSplitQueue(t *testing.T) {
	for in, want := range map[string][2]string{
		"eth0-TxRx-3":                 {"eth0", "TxRx-3"},
		"virtio0-input.0":             {"virtio0", "input.0"},
		"mlx5_comp3@pci:0000:21:00.0": {"mlx5", "comp3"},
		"nvme0q3":                     {"nvme0", "q3"},
		"iwlwifi: default queue":      {"iwlwifi", "default queue"},
		"eth0":                        {"eth0", ""},
		"timer":                       {"timer", ""},
	} {
		d, q := SplitQueue(in)
		if d != want[0] || q != want[1] {
			t.Errorf("SplitQueue(%q) = %q, %q; want %q, %q", in, d, q, want[0], want[1])
		}
	}
}

func TestAccumulatorWeightsPercentages(t *testing.T) {
	a := &Interval{StartNs: 0, EndNs: 1e9, CPUs: []int{0}, Rows: []Row{
		{Source: "pdh", Name: "% DPC Time", Unit: UnitPercent, PerCPU: Values{10}, Total: 10},
		{Source: "pdh", Name: "DPCs Queued/sec", Unit: UnitCount, Role: RoleDPC, PerCPU: Values{100}, Total: 100}}}
	b := &Interval{StartNs: 1e9, EndNs: 4e9, CPUs: []int{0, 1}, Rows: []Row{
		{Source: "pdh", Name: "% DPC Time", Unit: UnitPercent, PerCPU: Values{2, 4}, Total: 3},
		{Source: "pdh", Name: "DPCs Queued/sec", Unit: UnitCount, Role: RoleDPC, PerCPU: Values{50, 60}, Total: 110}}}
	var acc Accumulator
	if e := acc.Total(); acc.Len() != 0 || len(e.Rows) != 0 || len(e.CPUs) != 0 {
		t.Fatalf("empty accumulator: %+v", e)
	}
	acc.Add(a)
	acc.Add(b)
	s := acc.Total()
	if acc.Len() != 2 || !reflect.DeepEqual(s.CPUs, []int{0, 1}) || s.Seconds() != 4 || len(s.Rows) != 2 {
		t.Fatalf("cpus %v seconds %v", s.CPUs, s.Seconds())
	}
	if s.Rows[0].PerCPU[0] != (10*1+2*3)/4.0 || s.Rows[0].PerCPU[1] != 4 {
		t.Fatalf("percent %v", s.Rows[0].PerCPU)
	}
	if s.Rows[1].PerCPU[0] != 150 || s.Rows[1].PerCPU[1] != 60 || s.Rows[1].Total != 210 || s.Rows[1].Role != RoleDPC {
		t.Fatalf("counts %+v", s.Rows[1])
	}
	if s.Rows[0].Total != (10*1+3*3)/4.0 {
		t.Fatalf("percent total %v", s.Rows[0].Total)
	}
	// A CPU no interval had a value for stays NaN, not 0.
	acc.Add(&Interval{StartNs: 4e9, EndNs: 5e9, CPUs: []int{0, 1, 2}, Rows: []Row{
		{Source: "pdh", Name: "DPCs Queued/sec", Unit: UnitCount, Role: RoleDPC, PerCPU: Values{1, 1, math.NaN()}, Total: 2}}})
	if s := acc.Total(); !reflect.DeepEqual(s.CPUs, []int{0, 1, 2}) || !math.IsNaN(s.Rows[1].PerCPU[2]) || !math.IsNaN(s.Rows[0].PerCPU[2]) || s.Rows[1].PerCPU[1] != 61 || s.EndNs != 5e9 {
		t.Fatalf("after a third interval: %+v", s)
	}
	if w, role := s.NetWork(); role != RoleDPC || w[1] != 60 {
		t.Fatalf("dpc work %v %s", w, role)
	}
	b1, _ := Values{1, math.NaN()}.MarshalJSON()
	if string(b1) != "[1,null]" {
		t.Fatalf("json %s", b1)
	}
	var v Values
	if err := v.UnmarshalJSON(b1); err != nil || v[0] != 1 || !math.IsNaN(v[1]) {
		t.Fatalf("unmarshal %v %v", v, err)
	}
}

// "All interrupts" is every /proc/interrupts count, single totals (ERR)
// included in the total only, or PDH Interrupts/sec; never DPCs or
// softirqs.
func TestSumPerCPUAllInterrupts(t *testing.T) {
	linux := &Interval{CPUs: []int{0, 1}, Rows: []Row{
		{Source: "interrupts", Name: "38", Unit: UnitCount, Role: RoleNet, PerCPU: Values{1, 2}, Total: 3},
		{Source: "interrupts", Name: "LOC", Unit: UnitCount, PerCPU: Values{10, math.NaN()}, Total: 10},
		{Source: "interrupts", Name: "ERR", Unit: UnitCount, PerCPU: Values{math.NaN(), math.NaN()}, Total: 4},
		{Source: "softirqs", Name: "NET_RX", Unit: UnitCount, Role: RoleNet, PerCPU: Values{100, 200}, Total: 300}}}
	w, total, ok := linux.SumPerCPU(IsInterrupt)
	if !ok || !reflect.DeepEqual(w, []float64{11, 2}) || total != 17 {
		t.Fatalf("linux: %v total %v found %v", w, total, ok)
	}
	windows := &Interval{CPUs: []int{0, 1}, Rows: []Row{
		{Source: "pdh", Name: "Interrupts/sec", Unit: UnitCount, PerCPU: Values{5, 6}, Total: 11},
		{Source: "pdh", Name: "DPCs Queued/sec", Unit: UnitCount, Role: RoleDPC, PerCPU: Values{7, 8}, Total: 15},
		{Source: "pdh", Name: "% Interrupt Time", Unit: UnitPercent, PerCPU: Values{1, 1}, Total: 1}}}
	w, total, ok = windows.SumPerCPU(IsInterrupt)
	if !ok || !reflect.DeepEqual(w, []float64{5, 6}) || total != 11 {
		t.Fatalf("windows: %v total %v found %v", w, total, ok)
	}
	if _, _, ok := (&Interval{CPUs: []int{0}}).SumPerCPU(IsInterrupt); ok {
		t.Fatal("an empty interval has interrupts")
	}
}

func FuzzParseInterrupts(f *testing.F) {
	ents, _ := os.ReadDir("testdata")
	for _, e := range ents {
		if b, err := os.ReadFile(filepath.Join("testdata", e.Name())); err == nil && strings.HasSuffix(e.Name(), ".txt") {
			f.Add(string(b))
		}
	}
	for _, p := range realFiles(f) {
		if b, err := os.ReadFile(p); err == nil && strings.HasPrefix(filepath.Base(p), "interrupts") {
			f.Add(string(b))
		}
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := ParseInterrupts(strings.NewReader(s))
		if err != nil {
			return
		}
		for _, r := range c.Rows {
			if r.PerCPU != nil && len(r.PerCPU) != len(c.CPUs) {
				t.Fatalf("row %s: %d counts for %d CPUs", r.Name, len(r.PerCPU), len(c.CPUs))
			}
		}
		_ = BuildInterval(c, c, &Counters{}, &Counters{}, nil)
	})
}

func FuzzParseSoftirqs(f *testing.F) {
	for _, name := range []string{"softirqs-kvm-2cpu.txt", "softirqs-hotplug-4cpu.txt"} {
		b, _ := os.ReadFile(filepath.Join("testdata", name))
		f.Add(string(b))
	}
	for _, p := range realFiles(f) {
		if b, err := os.ReadFile(p); err == nil && strings.HasPrefix(filepath.Base(p), "softirqs") {
			f.Add(string(b))
		}
	}
	f.Fuzz(func(t *testing.T, s string) {
		_, _ = ParseSoftirqs(strings.NewReader(s))
	})
}
