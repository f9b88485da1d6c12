package prisep

import (
	"encoding/csv"
	"os"
	"strconv"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// TestMeasuredTable checks every row of the table measured on a live
// kernel (testdata/win32prisep-measured-0-271.csv, see its PROVENANCE).
func TestMeasuredTable(t *testing.T) {
	f, err := os.Open("testdata/win32prisep-measured-0-271.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 273 || rows[0][0] != "DecVal" {
		t.Fatalf("unexpected table shape: %d rows, header %v", len(rows), rows[0])
	}
	seen := map[uint64]bool{}
	for i, r := range rows[1:] {
		line := i + 2
		v, err := strconv.ParseUint(r[0], 10, 32)
		if err != nil {
			t.Fatalf("line %d: %v", line, err)
		}
		hv, err := strconv.ParseUint(strings.TrimPrefix(r[1], "0x"), 16, 32)
		if err != nil || hv != v {
			t.Fatalf("line %d: hex %q does not match %d", line, r[1], v)
		}
		seen[v] = true
		d := Decode(uint32(v), Options{})
		want := map[string]string{"Shorter": "short", "Longer": "long"}[r[2]]
		if d.Interval != want {
			t.Errorf("line %d: %s interval %s, measured %s", line, r[1], d.Interval, r[2])
		}
		if d.Length != strings.ToLower(r[3]) {
			t.Errorf("line %d: %s length %s, measured %s", line, r[1], d.Length, r[3])
		}
		if strconv.Itoa(d.ForegroundUnits) != r[4] || strconv.Itoa(d.BackgroundUnits) != r[5] {
			t.Errorf("line %d: %s units %d/%d, measured %s/%s", line, r[1], d.ForegroundUnits, d.BackgroundUnits, r[4], r[5])
		}
		// The table shows PsPrioritySeparation only through variable
		// quanta (foreground = (index+1) x background); the boost is
		// that same index.
		if d.Length == "variable" && d.ForegroundUnits != (d.ForegroundBoost+1)*d.BackgroundUnits {
			t.Errorf("line %d: %s boost +%d, measured quanta %s/%s", line, r[1], d.ForegroundBoost, r[4], r[5])
		}
	}
	if len(seen) != 272 {
		t.Errorf("table covers %d distinct values, want 272", len(seen))
	}
}

// measuredRow is a row of the measured table.
type measuredRow struct {
	interval, length string
	fg, bg           int
}

// measuredTable reads testdata/win32prisep-measured-0-271.csv by value.
func measuredTable(t *testing.T) map[uint32]measuredRow {
	t.Helper()
	f, err := os.Open("testdata/win32prisep-measured-0-271.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil || len(rows) != 273 {
		t.Fatalf("%d rows, %v", len(rows), err)
	}
	out := map[uint32]measuredRow{}
	for _, r := range rows[1:] {
		v, err1 := strconv.ParseUint(r[0], 10, 32)
		fg, err2 := strconv.Atoi(r[4])
		bg, err3 := strconv.Atoi(r[5])
		if err1 != nil || err2 != nil || err3 != nil || bg == 0 {
			t.Fatalf("row %v", r)
		}
		out[uint32(v)] = measuredRow{r[2], r[3], fg, bg}
	}
	return out
}

func TestSeedExamples(t *testing.T) {
	tests := []struct {
		v              uint32
		server         bool
		interval, len  string
		fg, bg         int
		fgMs, bgMs     float64
		ratio          string
		psSep, boost   int
		effective      uint32
		intervalDefalt bool
	}{
		{0x26, false, "short", "variable", 18, 6, 93.75, 31.25, "3:1", 2, 2, 0x26, false},
		{0x18, false, "long", "fixed", 36, 36, 187.5, 187.5, "1:1", 0, 0, 0x18, false},
		{0x2, false, "short", "variable", 18, 6, 93.75, 31.25, "3:1", 2, 2, 0x2, true},
		{0x2, true, "long", "fixed", 36, 36, 187.5, 187.5, "1:1", 2, 2, 0x2, true},
		{0x28, false, "short", "fixed", 18, 18, 93.75, 93.75, "1:1", 0, 0, 0x28, false},
		{0x14, false, "long", "variable", 12, 12, 62.5, 62.5, "1:1", 0, 0, 0x14, false},
		{0x15, false, "long", "variable", 24, 12, 125, 62.5, "2:1", 1, 1, 0x15, false},
		{0x3F, false, "short", "variable", 18, 6, 93.75, 31.25, "3:1", 2, 2, 0x3F, true},
		{0xFFFFFFE6, false, "short", "variable", 18, 6, 93.75, 31.25, "3:1", 2, 2, 0x26, false},
		// Fixed quanta are equal, but PsPrioritySeparation still boosts
		// the foreground thread that completes a wait.
		{0x1A, false, "long", "fixed", 36, 36, 187.5, 187.5, "1:1", 2, 2, 0x1A, false},
		{0x1B, false, "long", "fixed", 36, 36, 187.5, 187.5, "1:1", 2, 2, 0x1B, false},
		{0x2A, false, "short", "fixed", 18, 18, 93.75, 93.75, "1:1", 2, 2, 0x2A, false},
		{0x29, false, "short", "fixed", 18, 18, 93.75, 93.75, "1:1", 1, 1, 0x29, false},
	}
	for _, tc := range tests {
		d := Decode(tc.v, Options{Server: tc.server})
		if d.Interval != tc.interval || d.Length != tc.len || d.ForegroundUnits != tc.fg || d.BackgroundUnits != tc.bg ||
			d.ForegroundMs != tc.fgMs || d.BackgroundMs != tc.bgMs || d.QuantumRatio != tc.ratio || d.ForegroundBoost != tc.boost ||
			d.PsPrioritySeparation != tc.psSep || d.Effective != tc.effective || d.IntervalDefault != tc.intervalDefalt {
			t.Errorf("Decode(%#x, server=%v) = %+v", tc.v, tc.server, d)
		}
	}
}

// The foreground boost of every value, client and server, is the
// PsPrioritySeparation the measured table shows: a variable-quanta row
// gives foreground = (PsPrioritySeparation + 1) x background, so the
// value with the same low 2 bits and variable quanta (BB = 01) measures
// it for a fixed-quanta value too. The boost does not depend on the
// quantum type or the edition (Windows Internals, in the package doc).
func TestBoostEveryClass(t *testing.T) {
	measured := measuredTable(t)
	for _, server := range []bool{false, true} {
		for v := range uint32(272) {
			m := measured[v&^0xC|0x4]
			if m.length != "Variable" || m.fg%m.bg != 0 {
				t.Fatalf("%#x: the measured row of its variable sibling is %+v", v, m)
			}
			want := m.fg/m.bg - 1
			d := Decode(v, Options{Server: server})
			if d.ForegroundBoost != want || d.PsPrioritySeparation != want {
				t.Errorf("%s (server=%v): boost %d, PsPrioritySeparation %d; the measured table says %d", d.Hex, server, d.ForegroundBoost, d.PsPrioritySeparation, want)
			}
		}
	}
	if s := Decode(0x1A, Options{}).Summary(); s != "0x1A (26): long, fixed quanta, equal: 36 units (187.5 ms) foreground and background; foreground wait boost +2" {
		t.Errorf("0x1A summary: %s", s)
	}
	if s := Decode(0x26, Options{}).Summary(); s != "0x26 (38): short, variable quanta, 3:1: foreground 18 units (93.75 ms), background 6 units (31.25 ms); foreground wait boost +2" {
		t.Errorf("0x26 summary: %s", s)
	}
}

func TestTickScalesMs(t *testing.T) {
	d := Decode(0x26, Options{TickMs: 1})
	if d.ForegroundMs != 6 || d.BackgroundMs != 2 {
		t.Errorf("at a 1 ms tick: %v / %v ms, want 6 / 2", d.ForegroundMs, d.BackgroundMs)
	}
}

func TestFind(t *testing.T) {
	q, err := ParseQuery("short,variable,3:1")
	if err != nil {
		t.Fatal(err)
	}
	got := Find(q, Options{})
	if len(got) == 0 || got[0].Effective != 0x26 {
		t.Fatalf("first match %v, want 0x26", got)
	}
	for _, d := range got {
		if d.Interval != "short" || d.Length != "variable" || d.QuantumRatio != "3:1" || d.ForegroundBoost != 2 {
			t.Errorf("%s does not match", d.Summary())
		}
	}
	q, _ = ParseQuery("fixed long")
	if got := Find(q, Options{}); got[0].Effective != 0x18 {
		t.Errorf("long fixed: first %s, want 0x18", got[0].Hex)
	}
	// A fixed 3:1 class exists: equal quanta, boost 2.
	q, _ = ParseQuery("long,fixed,3:1")
	var hs []uint32
	for _, d := range Find(q, Options{}) {
		hs = append(hs, d.Effective)
		if d.ForegroundBoost != 2 || d.ForegroundUnits != d.BackgroundUnits {
			t.Errorf("long,fixed,3:1 matched %s", d.Summary())
		}
	}
	if len(hs) != 2 || hs[0] != 0x1A || hs[1] != 0x1B {
		t.Errorf("long,fixed,3:1 = %#x, want 0x1a 0x1b", hs)
	}
	// Every class is found by its own description, and every description
	// of three terms finds something.
	for _, server := range []bool{false, true} {
		for _, d := range Table(Options{Server: server}) {
			q, err := ParseQuery(d.Class())
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, m := range Find(q, Options{Server: server}) {
				found = found || m.Effective == d.Effective
			}
			if !found {
				t.Errorf("%s not found by its own description %s", d.Hex, d.Class())
			}
		}
		for _, iv := range []string{"short", "long"} {
			for _, ln := range []string{"fixed", "variable"} {
				for _, r := range []string{"1:1", "2:1", "3:1"} {
					if len(Find(Query{iv, ln, r}, Options{Server: server})) == 0 {
						t.Errorf("no value is %s,%s,%s (server=%v)", iv, ln, r, server)
					}
				}
			}
		}
	}
	for _, bad := range []string{"", "medium", "short,4:1"} {
		if _, err := ParseQuery(bad); err == nil {
			t.Errorf("ParseQuery(%q) accepted", bad)
		}
	}
}

// Only the low 6 bits count: any 32-bit value decodes like its low 6 bits.
func TestHighBitsIgnored(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		v := rapid.Uint32().Draw(t, "v")
		server := rapid.Bool().Draw(t, "server")
		a, b := Decode(v, Options{Server: server}), Decode(v&0x3F, Options{Server: server})
		a.Value, a.Hex, b.Value, b.Hex = 0, "", 0, ""
		if a != b {
			t.Fatalf("%#x decodes unlike %#x: %+v vs %+v", v, v&0x3F, a, b)
		}
		if a.ForegroundUnits < a.BackgroundUnits || a.ForegroundUnits%a.BackgroundUnits != 0 {
			t.Fatalf("%#x: foreground %d < background %d", v, a.ForegroundUnits, a.BackgroundUnits)
		}
	})
}

func FuzzParseQuery(f *testing.F) {
	for _, s := range []string{"short,variable,3:1", "long fixed", "x", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if q, err := ParseQuery(s); err == nil {
			_ = Find(q, Options{})
		}
	})
}
