package tracefs

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// testdata/real holds format files, header pages and ring-buffer pages
// of other kernels than the one testdata's own come from (see its
// PROVENANCE files), and golden.json their reading by an independent
// reader: every field's name, type, offset, size, signedness and
// __data_loc; each header page's commit size and data offset; each page
// file's records (time stamp, type, length and the fields latlab reads)
// as a count, the types and a SHA-256 of one line per record.

type realField struct {
	Name     string `json:"name"`
	Type     string `json:"type"`
	Offset   int    `json:"offset"`
	Size     int    `json:"size"`
	Signed   bool   `json:"signed"`
	ArrayLen any    `json:"array_len"`
	DataLoc  bool   `json:"data_loc"`
}

type realFormat struct {
	Name   string      `json:"name"`
	ID     uint16      `json:"id"`
	Fields []realField `json:"fields"`
}

func (f realFormat) field(t *testing.T, name string) realField {
	t.Helper()
	for _, fl := range f.Fields {
		if fl.Name == name {
			return fl
		}
	}
	t.Fatalf("%s: no field %s in the golden reading", f.Name, name)
	return realField{}
}

type realLayout struct {
	CommitSize int `json:"commit_size"`
	DataOffset int `json:"data_offset"`
	PageSize   int `json:"page_size"`
}

type realGolden struct {
	Formats     map[string]realFormat `json:"formats"`
	HeaderPages map[string]realLayout `json:"header_pages"`
	Pages       map[string]struct {
		Records int            `json:"records"`
		Types   map[string]int `json:"types"`
		SHA256  string         `json:"sha256"`
		First   []string       `json:"first"`
		Last    []string       `json:"last"`
		Layout  realLayout     `json:"layout"`
	} `json:"pages"`
}

func readGolden(t testing.TB) realGolden {
	t.Helper()
	b, err := os.ReadFile("testdata/real/golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var g realGolden
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	if len(g.Formats) == 0 || len(g.HeaderPages) == 0 || len(g.Pages) == 0 {
		t.Fatal("empty golden readings")
	}
	return g
}

// readReal reads a file of testdata/real: "DIR/FILE", or
// "DIR/ARCHIVE.tar.gz:MEMBER" for a member of a kept archive.
func readReal(t testing.TB, name string) []byte {
	t.Helper()
	file, member, inTar := strings.Cut(name, ":")
	b, err := os.ReadFile(filepath.Join("testdata", "real", filepath.FromSlash(file)))
	if err != nil {
		t.Fatal(err)
	}
	if !inTar {
		return b
	}
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if h.Name == member {
			b, err := io.ReadAll(tr)
			if err != nil {
				t.Fatal(err)
			}
			return b
		}
	}
}

// systemOf is the event group of a kept format, from its path
// (.../events/SYSTEM/NAME/format or formats/SYSTEM/NAME/format).
func systemOf(name string) string {
	return path.Base(path.Dir(path.Dir(name)))
}

// Every field of every kept format reads as the independent reading has
// it, and the events latlab reads have the fields it reads (CheckFields).
func TestRealFormats(t *testing.T) {
	g := readGolden(t)
	names := make([]string, 0, len(g.Formats))
	for n := range g.Formats {
		names = append(names, n)
	}
	sort.Strings(names)
	fields := 0
	for _, n := range names {
		want := g.Formats[n]
		f, err := ParseFormat(bytes.NewReader(readReal(t, n)))
		if err != nil {
			t.Errorf("%s: %v", n, err)
			continue
		}
		if f.Name != want.Name || f.ID != want.ID || len(f.Fields) != len(want.Fields) {
			t.Errorf("%s: %s ID %d, %d fields; want %s ID %d, %d fields", n, f.Name, f.ID, len(f.Fields), want.Name, want.ID, len(want.Fields))
			continue
		}
		for i, w := range want.Fields {
			fields++
			wf := Field{Name: w.Name, Type: w.Type, Offset: w.Offset, Size: w.Size, Signed: w.Signed, DataLoc: w.DataLoc}
			if f.Fields[i] != wf {
				t.Errorf("%s: field %d is %+v, want %+v", n, i, f.Fields[i], wf)
			}
		}
		f.System = systemOf(n)
		if err := CheckFields(f); err != nil {
			t.Errorf("%s: %v", n, err)
		}
	}
	if len(names) < 40 || fields < 290 {
		t.Errorf("%d formats, %d fields read: fewer than kept", len(names), fields)
	}
}

// Each kept header_page gives the layout of ring_buffer.c's struct
// buffer_data_page on its kernel: 32-bit ARM's commit of 4 bytes and data
// at 12 included.
func TestRealHeaderPages(t *testing.T) {
	g := readGolden(t)
	four := 0
	for n, want := range g.HeaderPages {
		l, err := ParseHeaderPage(bytes.NewReader(readReal(t, n)))
		if err != nil {
			t.Errorf("%s: %v", n, err)
			continue
		}
		if l != (PageLayout{CommitSize: want.CommitSize, DataOffset: want.DataOffset, Size: want.PageSize}) {
			t.Errorf("%s: %+v, want %+v", n, l, want)
		}
		if l.CommitSize == 4 {
			four++
		}
	}
	if four == 0 {
		t.Error("no header_page of a 32-bit kernel was read")
	}
}

// The fields latlab reads of the sched events (explain's), one line per
// record: what the golden SHA-256 covers.
var pageFields = map[string][]string{
	"sched_switch":       {"prev_pid", "next_pid", "next_prio", "next_comm"},
	"sched_wakeup":       {"pid", "prio", "comm"},
	"sched_wakeup_new":   {"pid"},
	"sched_migrate_task": {"pid", "dest_cpu"},
}

// Real ring-buffer pages, as trace_pipe_raw handed them out, decode to
// the records, time stamps and field values the independent reader found:
// 404 pages of an x86_64 kernel, and a page of a 32-bit one.
func TestRealPages(t *testing.T) {
	g := readGolden(t)
	formats := map[uint16]*Format{}
	for n := range g.Formats {
		if !strings.HasPrefix(n, "schedviz/") {
			continue
		}
		f, err := ParseFormat(bytes.NewReader(readReal(t, n)))
		if err != nil {
			t.Fatal(err)
		}
		formats[f.ID] = f
	}
	for n, want := range g.Pages {
		b := readReal(t, n)
		l := PageLayout{CommitSize: want.Layout.CommitSize, DataOffset: want.Layout.DataOffset, Size: want.Layout.PageSize}
		h := sha256.New()
		w := bufio.NewWriter(h)
		var lines []string
		types := map[string]int{}
		for off := 0; off+l.Size <= len(b); off += l.Size {
			lost, err := ParsePage(b[off:off+l.Size], l, func(r Record) {
				line := fmt.Sprintf("%d %d %d", r.TS, Type(r.Data), len(r.Data))
				if f := formats[Type(r.Data)]; f != nil && !strings.Contains(n, "cpu0-32") {
					for _, name := range pageFields[f.Name] {
						fl, _ := f.Field(name)
						if strings.Contains(fl.Type, "[") {
							line += " " + fl.String(r.Data)
						} else {
							line += " " + strconv.FormatInt(fl.Int(r.Data), 10)
						}
					}
				}
				lines = append(lines, line)
				types[strconv.Itoa(int(Type(r.Data)))]++
				_, _ = w.WriteString(line + "\n")
			})
			if err != nil || lost != 0 {
				t.Fatalf("%s, page at %d: lost %d, %v", n, off, lost, err)
			}
		}
		_ = w.Flush()
		if len(lines) != want.Records {
			t.Fatalf("%s: %d records, want %d", n, len(lines), want.Records)
		}
		for i, l := range want.First {
			if lines[i] != l {
				t.Errorf("%s: record %d is %q, want %q", n, i, lines[i], l)
			}
		}
		for i, l := range want.Last {
			if j := len(lines) - len(want.Last) + i; lines[j] != l {
				t.Errorf("%s: record %d is %q, want %q", n, j, lines[j], l)
			}
		}
		if fmt.Sprint(types) != fmt.Sprint(want.Types) {
			t.Errorf("%s: types %v, want %v", n, types, want.Types)
		}
		if got := hex.EncodeToString(h.Sum(nil)); got != want.SHA256 {
			t.Errorf("%s: records hash %s, want %s", n, got, want.SHA256)
		}
	}
}

// realKernels are the kept kernels whose irq and sched formats the
// field-picking test runs on.
func realKernels(g realGolden) map[string]map[string]string {
	k := map[string]map[string]string{}
	for n := range g.Formats {
		dir, _, _ := strings.Cut(n, "/events/")
		if strings.HasPrefix(n, "schedviz/") {
			dir, _, _ = strings.Cut(n, ":")
		}
		if k[dir] == nil {
			k[dir] = map[string]string{}
		}
		k[dir][systemOf(n)+"/"+path.Base(path.Dir(n))] = n
	}
	return k
}

// recordAt writes a record of format f (golden reading) with common_type
// set and each value at its field's golden offset and size, as the kernel
// lays it out: independent of Field.Int and Field.String.
func recordAt(t *testing.T, f realFormat, vals map[string]any) []byte {
	t.Helper()
	n := 0
	for _, fl := range f.Fields {
		n = max(n, fl.Offset+fl.Size)
	}
	b := make([]byte, n, n+64)
	binary.LittleEndian.PutUint16(b, f.ID)
	names := make([]string, 0, len(vals))
	for k := range vals {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, name := range names {
		fl := f.field(t, name)
		switch v := vals[name].(type) {
		case int64:
			switch fl.Size {
			case 1:
				b[fl.Offset] = byte(v)
			case 2:
				binary.LittleEndian.PutUint16(b[fl.Offset:], uint16(v))
			case 4:
				binary.LittleEndian.PutUint32(b[fl.Offset:], uint32(v))
			case 8:
				binary.LittleEndian.PutUint64(b[fl.Offset:], uint64(v))
			}
		case string:
			if fl.DataLoc { // the string after the fields, its locator in the field
				binary.LittleEndian.PutUint32(b[fl.Offset:], uint32(len(v)+1)<<16|uint32(len(b)))
				b = append(append(b, v...), 0)
			} else {
				copy(b[fl.Offset:fl.Offset+fl.Size-1], v)
			}
		}
	}
	return b
}

// On each kept kernel's layout, the IRQTracker pairs interrupt entries
// and exits with the right line, name and vector, and the sched fields
// explain reads give the values written at their real offsets.
func TestRealFieldPicking(t *testing.T) {
	g := readGolden(t)
	kernels := realKernels(g)
	if len(kernels) < 6 {
		t.Fatalf("%d kernels", len(kernels))
	}
	for dir, evs := range kernels {
		formats := map[string]*Format{}
		golden := map[string]realFormat{}
		for ev, n := range evs {
			f, err := ParseFormat(bytes.NewReader(readReal(t, n)))
			if err != nil {
				t.Fatal(err)
			}
			f.System = systemOf(n)
			formats[ev], golden[ev] = f, g.Formats[n]
		}
		if sw, ok := formats["sched/sched_switch"]; ok {
			d := recordAt(t, golden["sched/sched_switch"], map[string]any{"next_pid": int64(123456), "next_prio": int64(-51), "next_comm": "irq/36-virtio1", "prev_pid": int64(7)})
			pid, _ := sw.Field("next_pid")
			prio, _ := sw.Field("next_prio")
			comm, _ := sw.Field("next_comm")
			if pid.Int(d) != 123456 || prio.Int(d) != -51 || comm.String(d) != "irq/36-virtio1" {
				t.Errorf("%s sched_switch: pid %d prio %d comm %q", dir, pid.Int(d), prio.Int(d), comm.String(d))
			}
		}
		if wk, ok := formats["sched/sched_wakeup"]; ok {
			d := recordAt(t, golden["sched/sched_wakeup"], map[string]any{"pid": int64(4194304), "comm": "latlab"})
			if pid, _ := wk.Field("pid"); pid.Int(d) != 4194304 {
				t.Errorf("%s sched_wakeup: pid %d", dir, pid.Int(d))
			}
		}
		hin, hout := formats["irq/irq_handler_entry"], formats["irq/irq_handler_exit"]
		sin, sout := formats["irq/softirq_entry"], formats["irq/softirq_exit"]
		if hin == nil || hout == nil || sin == nil || sout == nil {
			if !strings.HasPrefix(dir, "schedviz") {
				t.Errorf("%s: irq formats missing", dir)
			}
			continue
		}
		tr := NewIRQTracker()
		var got []Exec
		add := func(ts int64, ev string, vals map[string]any) {
			tr.Add(Event{CPU: 1, TS: ts, Format: formats[ev], Data: recordAt(t, golden[ev], vals)}, func(x Exec) { got = append(got, x) })
		}
		add(100, "irq/softirq_entry", map[string]any{"vec": int64(3)})
		add(110, "irq/irq_handler_entry", map[string]any{"irq": int64(36), "name": "dwc3"})
		add(130, "irq/irq_handler_exit", map[string]any{"irq": int64(36), "ret": int64(1)})
		add(190, "irq/softirq_exit", map[string]any{"vec": int64(3)})
		want := []Exec{
			{KindIRQ, "dwc3 (IRQ 36)", 36, 1, 110, 130},
			{KindSoftIRQ, "NET_RX", 3, 1, 100, 190},
		}
		if fmt.Sprint(got) != fmt.Sprint(want) || tr.Unmatched != 0 || tr.Open() != 0 {
			t.Errorf("%s: %+v (unmatched %d, open %d), want %+v", dir, got, tr.Unmatched, tr.Open(), want)
		}
	}
}

// The interrupt events a session must find are on every kept kernel's
// list of events; irq_vectors, x86's own, is on none of the ARM ones and
// is asked for as optional.
func TestRealEventsAvailable(t *testing.T) {
	lists, err := filepath.Glob("testdata/real/perfetto/*/available_events")
	if err != nil || len(lists) < 5 {
		t.Fatalf("%d lists, %v", len(lists), err)
	}
	for _, l := range lists {
		b, err := os.ReadFile(l)
		if err != nil {
			t.Fatal(err)
		}
		evs := strings.Fields(strings.ReplaceAll(string(b), ":", "/"))
		match := func(pat string) bool {
			for _, e := range evs {
				if m, _ := path.Match(pat, e); m {
					return true
				}
			}
			return false
		}
		for _, pat := range IRQEvents {
			if !match(pat) {
				t.Errorf("%s: no event %s, which a session must find", l, pat)
			}
		}
		for _, pat := range VectorEvents {
			if match(pat) {
				t.Errorf("%s lists %s: an ARM kernel with irq_vectors?", l, pat)
			}
		}
	}
}

// A format lacking a field latlab reads, or laying it out otherwise,
// is refused with the event and the field named, never read as 0.
func TestCheckFieldsErrors(t *testing.T) {
	g := readGolden(t)
	entry := string(readReal(t, "perfetto/android_hammerhead_MRA59G_3.4.0/events/irq/irq_handler_entry/format"))
	sw := string(readReal(t, "perfetto/android_seed_N2F62_3.10.49/events/sched/sched_switch/format"))
	if g.Formats["perfetto/android_hammerhead_MRA59G_3.4.0/events/irq/irq_handler_entry/format"].ID == 0 {
		t.Fatal("golden reading missing")
	}
	drop := func(s, field string) string {
		var out []string
		for _, l := range strings.Split(s, "\n") {
			if !strings.Contains(l, " "+field+";") {
				out = append(out, l)
			}
		}
		return strings.Join(out, "\n")
	}
	tests := []struct {
		system, text string
		want         []string
	}{
		{"irq", drop(entry, "irq"), []string{"irq/irq_handler_entry", "no field irq"}},
		{"irq", drop(entry, "name"), []string{"irq/irq_handler_entry", "no field name"}},
		{"irq", strings.Replace(entry, "__data_loc char[] name;\toffset:16;\tsize:4", "int name;\toffset:16;\tsize:4", 1), []string{"irq/irq_handler_entry", "field name", "not a char array"}},
		{"sched", strings.Replace(sw, "char next_comm[16];\toffset:36;\tsize:16", "char next_comm[16];\toffset:36;\tsize:0", 1), []string{"sched/sched_switch", "field next_comm"}},
		{"sched", strings.Replace(sw, "int next_prio;\toffset:56;\tsize:4", "int next_prio;\toffset:56;\tsize:3", 1), []string{"sched/sched_switch", "field next_prio", "not an integer"}},
		{"sched", drop(sw, "next_pid"), []string{"sched/sched_switch", "no field next_pid"}},
	}
	for _, tt := range tests {
		f, err := ParseFormat(strings.NewReader(tt.text))
		if err != nil {
			t.Fatal(err)
		}
		f.System = tt.system
		err = CheckFields(f)
		for _, w := range tt.want {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("%s/%s: %v, want %q", tt.system, f.Name, err, w)
			}
		}
	}
}
