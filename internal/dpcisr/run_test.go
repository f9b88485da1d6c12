package dpcisr

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/host"
	"github.com/latlab/latlab/internal/testutil"
)

// Run reads a report file, text or JSON, and keeps the module asked for.
func TestRun(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		file, module string
		sections     int
		modules      []string // per section, joined
	}{
		{"xperf-dpcisr-keyboard-ps2-vs-usb.txt", "", 2, []string{"kbdhid.sys,kbdhid.sys,i8042prt.sys,i8042prt.sys", "i8042prt.sys"}},
		{"xperf-dpcisr-keyboard-ps2-vs-usb.txt", "KBDHID.SYS", 2, []string{"kbdhid.sys,kbdhid.sys", ""}},
		{"watch-synthetic.json", "usbport.sys", 2, []string{"", "USBPORT.SYS"}},
	} {
		res, err := Run(ctx, Options{File: "testdata/" + c.file, Module: c.module})
		if err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		if res.File != "testdata/"+c.file || res.Module != c.module || len(res.Report.Sections) != c.sections {
			t.Errorf("%s %s: %+v", c.file, c.module, res)
		}
		for i, want := range c.modules {
			var got []string
			for _, m := range res.Report.Sections[i].Modules {
				got = append(got, m.Module)
			}
			if strings.Join(got, ",") != want {
				t.Errorf("%s %s: section %d modules %v, want %s", c.file, c.module, i, got, want)
			}
		}
		v := res.View()
		if doc := res.Document(host.Facts{}); doc.Kind != Kind.Name() || v.File != res.File || v.Module != c.module {
			t.Errorf("%s: document of kind %s, view %s %s", c.file, doc.Kind, v.File, v.Module)
		}
	}
}

// The page of a dpc watch document is that document (its watch summary,
// its host, its settings) holding the filtered report; the page of an
// xperf report is a new document with the settings given.
func TestRunPageDocument(t *testing.T) {
	ctx := context.Background()
	settings := map[string]string{"module": "ndis.sys"}
	for _, c := range []struct {
		file  string
		page  bool
		watch bool
	}{
		{"watch-synthetic.json", true, true},
		{"watch-synthetic.json", false, false}, // not asked: not read again
		{"xperf-dpcisr-im-off.txt", true, false},
	} {
		res, err := Run(ctx, Options{File: "testdata/" + c.file, Module: "ndis.sys", Page: c.page})
		if err != nil {
			t.Fatal(err)
		}
		doc := res.PageDocument(host.Facts{}, settings)
		v, ok := Kind.Of(doc)
		if !ok {
			t.Fatalf("%s: page document of kind %s", c.file, doc.Kind)
		}
		fromWatch := strings.Contains(strings.Join(doc.Notes, " "), "synthetic: the tests' recorder")
		if fromWatch != c.watch || (v.Watch != nil) != c.watch || (doc.Settings["module"] == "ndis.sys") == c.watch {
			t.Errorf("%s page %v: notes %q, watch %v, settings %v", c.file, c.page, doc.Notes, v.Watch != nil, doc.Settings)
		}
		if v.Module != "ndis.sys" || len(v.Sections[0].Modules) != 1 {
			t.Errorf("%s: the page's report is not filtered: %s, %d modules", c.file, v.Module, len(v.Sections[0].Modules))
		}
	}
}

// Bad input is a badinput.Error naming the file, and the line for a text
// report.
func TestRunBadInput(t *testing.T) {
	dir := testutil.TempDir(t)
	write := func(name, s string) string {
		p := dir + "/" + name
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, c := range []struct {
		name   string
		o      Options
		want   string
		parsed bool // the error keeps the parser's own type
	}{
		{"missing", Options{File: dir + "/nope.txt"}, "cannot read " + dir + "/nope.txt: ", false},
		{"folder", Options{File: dir}, "cannot read " + dir, false},
		{"empty", Options{File: write("empty.txt", "")}, "empty.txt: line 1: empty file", true},
		{"not a report", Options{File: write("doc.json", `{"schema":"latlab.result/1","kind":"sleep","data":{}}`)}, "doc.json: ", false},
		{"module", Options{File: "testdata/xperf-dpcisr-keyboard-ps2-vs-usb.txt", Module: "ndis.sys"},
			`no module "ndis.sys"; the report has i8042prt.sys, kbdhid.sys`, false},
	} {
		res, err := Run(context.Background(), c.o)
		if res != nil || !badinput.Is(err) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an input error with %q", c.name, err, c.want)
		}
		var pe *ParseError
		if errors.As(err, &pe) != c.parsed {
			t.Errorf("%s: %T in the chain of %v", c.name, pe, err)
		}
	}
}

// RunCompare labels the reports by file name unless told, and refuses
// labels that do not match the files before reading any.
func TestRunCompare(t *testing.T) {
	ctx := context.Background()
	a, b := "testdata/xperf-dpcisr-im-extreme.txt", "testdata/xperf-dpcisr-im-off.txt"
	c, err := RunCompare(ctx, CompareOptions{Files: []string{a, b}, Module: "ndis.sys"})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(c.Labels, ",") != "xperf-dpcisr-im-extreme.txt,xperf-dpcisr-im-off.txt" || c.Module != "ndis.sys" || len(c.Sections) != 2 {
		t.Errorf("%+v", c)
	}
	c, err = RunCompare(ctx, CompareOptions{Files: []string{a, "testdata/watch-synthetic.json"}, Labels: []string{"xperf", "watch"}})
	if err != nil || strings.Join(c.Labels, ",") != "xperf,watch" {
		t.Errorf("labels: %v %+v", err, c)
	}
	for _, bad := range []struct {
		o    CompareOptions
		want string
	}{
		{CompareOptions{Files: []string{a, "nope.txt"}, Labels: []string{"one"}}, "--labels has 1 names for 2 files"},
		{CompareOptions{Files: []string{a, "nope.txt"}}, "cannot read nope.txt"},
		{CompareOptions{Files: []string{a}}, "compare needs at least 2 reports, have 1"},
		{CompareOptions{Files: []string{a, b}, Module: "nothere.sys"}, "no report has module nothere.sys"},
	} {
		c, err := RunCompare(ctx, bad.o)
		if c != nil || !badinput.Is(err) || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%+v: %v, want an input error with %q", bad.o, err, bad.want)
		}
	}
	if err := (CompareOptions{Files: []string{a}, Labels: []string{"a", "b"}}).Validate(); !badinput.Is(err) {
		t.Errorf("Validate: %v", err)
	}
}

// The busiest column of a usage row and of the interval table: the first
// of equal ones, none for rows without columns.
func TestBusiest(t *testing.T) {
	for _, c := range []struct {
		usec    []int64
		col     int
		usecMax int64
	}{
		{nil, 0, -1},
		{[]int64{0, 0}, 0, 0},
		{[]int64{5, 9, 9, 1}, 1, 9},
	} {
		col, us := ModuleUsage{Usec: c.usec}.Busiest()
		if col != c.col || us != c.usecMax {
			t.Errorf("usage %v: column %d %d µs, want %d %d", c.usec, col, us, c.col, c.usecMax)
		}
	}
	s := Section{Usage: []ModuleUsage{{Module: "a", Usec: []int64{1, 1}}, {Module: "b", Usec: []int64{3}}, {Module: "c", Usec: []int64{2}}}}
	var order []string
	for _, u := range s.UsageByTotal() {
		order = append(order, u.Module)
	}
	if strings.Join(order, ",") != "b,a,c" || s.Usage[0].Module != "a" {
		t.Errorf("by total: %v (the section's own order must stay)", order)
	}

	tab := &IntervalTable{CPUs: []int{4, 6}, Rows: []IntervalRow{
		{StartMs: 0, Usec: []int64{10, 20}}, {StartMs: 1000, Usec: []int64{5, 30}}, {StartMs: 2000, Usec: []int64{30, 0}}}}
	row, col, us, ok := tab.Busiest()
	if !ok || row.StartMs != 1000 || col != 1 || us != 30 || tab.CPU(col) != 6 || tab.CPU(2) != 2 {
		t.Errorf("intervals: %+v column %d %d µs %v", row, col, us, ok)
	}
	if _, _, _, ok := (&IntervalTable{Rows: []IntervalRow{{}}}).Busiest(); ok {
		t.Error("a table without columns has a busiest interval")
	}
}
