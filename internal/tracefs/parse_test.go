package tracefs

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
)

func readFormat(t testing.TB, name string) *Format {
	t.Helper()
	f, err := os.Open("testdata/" + name + ".format")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fm, err := ParseFormat(f)
	if err != nil {
		t.Fatal(err)
	}
	return fm
}

func TestParseFormat(t *testing.T) {
	tests := []struct {
		file, name string
		id         uint16
		field      Field
	}{
		{"irq_irq_handler_entry", "irq_handler_entry", 225, Field{Name: "name", Type: "__data_loc char[]", Offset: 12, Size: 4, DataLoc: true}},
		{"irq_softirq_entry", "softirq_entry", 223, Field{Name: "vec", Type: "unsigned int", Offset: 8, Size: 4}},
		{"sched_sched_switch", "sched_switch", 372, Field{Name: "next_comm", Type: "char[16]", Offset: 40, Size: 16}},
		{"sched_sched_switch", "sched_switch", 372, Field{Name: "next_prio", Type: "int", Offset: 60, Size: 4, Signed: true}},
		{"timer_hrtimer_start", "hrtimer_start", 0, Field{Name: "softexpires", Type: "s64", Offset: 32, Size: 8, Signed: true}},
		{"irq_vectors_local_timer_entry", "local_timer_entry", 165, Field{Name: "vector", Type: "int", Offset: 8, Size: 4, Signed: true}},
	}
	for _, tt := range tests {
		f := readFormat(t, tt.file)
		if f.Name != tt.name || (tt.id != 0 && f.ID != tt.id) {
			t.Errorf("%s: name %q ID %d", tt.file, f.Name, f.ID)
		}
		got, ok := f.Field(tt.field.Name)
		if !ok || got != tt.field {
			t.Errorf("%s: %+v, want %+v", tt.file, got, tt.field)
		}
		if c, _ := f.Field("common_pid"); c.Offset != 4 || !c.Signed {
			t.Errorf("%s: common_pid %+v", tt.file, c)
		}
	}
}

func TestParseFormatErrors(t *testing.T) {
	for _, in := range []string{
		"",
		"name: x\n",
		"ID: 1\n",
		"name: x\nID: 70000\n",
		"name: x\nID: 1\n\tfield:int a;\toffset:99999;\tsize:4;\tsigned:1;\n",
		"name: x\nID: 1\n\tfield:int a;\tsize:4;\n",
		"name: x\nID: 1\n\tfield:__data_loc char[] s;\toffset:8;\tsize:8;\tsigned:0;\n",
		"name: x\nID: 1\n\tfield:a;\toffset:8;\tsize:8;\tsigned:0;\n",
	} {
		if _, err := ParseFormat(strings.NewReader(in)); err == nil {
			t.Errorf("%q: no error", in)
		}
	}
}

func TestParseHeaderPage(t *testing.T) {
	f, err := os.Open("testdata/header_page")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	l, err := ParseHeaderPage(f)
	if err != nil || l != DefaultLayout {
		t.Errorf("%+v %v", l, err)
	}
	if _, err := ParseHeaderPage(strings.NewReader("\tfield: local_t commit;\toffset:8;\tsize:2;\tsigned:1;\n")); err == nil {
		t.Error("a commit of 2 bytes was accepted")
	}
	// A session allocates a page of the size the file gives: one beyond
	// the kernel's largest sub-buffer (1 MiB) is refused, one at it read.
	page := func(data int) string {
		return "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n" +
			"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n" +
			"\tfield: char data;\toffset:16;\tsize:" + strconv.Itoa(data) + ";\tsigned:0;\n"
	}
	if l, err := ParseHeaderPage(strings.NewReader(page(1<<20 - 16))); err != nil || l.Size != 1<<20 {
		t.Errorf("a 1 MiB page: %+v %v", l, err)
	}
	if _, err := ParseHeaderPage(strings.NewReader(page(1 << 30))); err == nil {
		t.Error("a 1 GiB page was accepted")
	}
	// A read error is an error, not the end of the file.
	if _, err := ParseHeaderPage(io.MultiReader(strings.NewReader(page(4080)), iotest.ErrReader(errors.New("EIO")))); err == nil {
		t.Error("a read error was not reported")
	}
}

// pageBuilder writes a ring-buffer page as the kernel does
// (include/linux/ring_buffer.h), so the parser is tested against the
// documented layout, not against itself.
type pageBuilder struct {
	b    bytes.Buffer
	base uint64
}

func (p *pageBuilder) u32(v uint32) { _ = binary.Write(&p.b, binary.LittleEndian, v) }

func (p *pageBuilder) data(delta uint32, rec []byte) {
	n := (len(rec) + 3) &^ 3
	if n <= 28*4 && len(rec) > 0 {
		p.u32(delta<<5 | uint32(n/4))
	} else {
		p.u32(delta << 5)
		p.u32(uint32(len(rec) + 4))
	}
	p.b.Write(rec)
	p.b.Write(make([]byte, n-len(rec)))
}

func (p *pageBuilder) extend(delta uint64) {
	p.u32(uint32(delta&(1<<27-1))<<5 | typeTimeExtend)
	p.u32(uint32(delta >> 27))
}

func (p *pageBuilder) abs(ts uint64) {
	p.u32(uint32(ts&(1<<27-1))<<5 | typeTimeStamp)
	p.u32(uint32(ts >> 27))
}

func (p *pageBuilder) pad(n int) {
	p.u32(1<<5 | typePadding)
	p.u32(uint32(n))
	p.b.Write(make([]byte, n-4))
}

func (p *pageBuilder) page(flags uint64, missed uint64) []byte {
	out := make([]byte, 4096)
	binary.LittleEndian.PutUint64(out, p.base)
	binary.LittleEndian.PutUint64(out[8:], uint64(p.b.Len())|flags)
	copy(out[16:], p.b.Bytes())
	if flags&missedStored != 0 {
		binary.LittleEndian.PutUint64(out[16+p.b.Len():], missed)
	}
	return out
}

func rec(id uint16, payload ...byte) []byte {
	b := make([]byte, 8, 8+len(payload))
	binary.LittleEndian.PutUint16(b, id)
	return append(b, payload...)
}

func TestParsePage(t *testing.T) {
	p := &pageBuilder{base: 1_000_000_000}
	p.data(100, rec(1, 1, 2, 3, 4))         // ts base+100
	p.extend(1 << 30)                       // + 2^30
	p.data(5, rec(2))                       // ts base+100+2^30+5
	p.pad(12)                               // a discarded event: its delta counts
	p.data(0, rec(3, make([]byte, 200)...)) // a long record (type_len 0)
	p.abs(5_000_000_123)
	p.data(7, rec(4))
	page := p.page(missedEvents|missedStored, 42)
	var got []Record
	lost, err := ParsePage(page, DefaultLayout, func(r Record) { got = append(got, r) })
	if err != nil || lost != 42 {
		t.Fatalf("lost %d, %v", lost, err)
	}
	want := []struct {
		ts  int64
		id  uint16
		len int
	}{
		{1_000_000_100, 1, 12},
		{1_000_000_100 + 1<<30 + 5, 2, 8},
		{1_000_000_100 + 1<<30 + 5 + 1, 3, 208},
		{5_000_000_130, 4, 8},
	}
	if len(got) != len(want) {
		t.Fatalf("%d records, want %d", len(got), len(want))
	}
	for i, w := range want {
		if got[i].TS != w.ts || Type(got[i].Data) != w.id || len(got[i].Data) != w.len {
			t.Errorf("record %d: ts %d id %d len %d, want %+v", i, got[i].TS, Type(got[i].Data), len(got[i].Data), w)
		}
	}
	// Without the stored count, the loss is known but not its size.
	if lost, _ := ParsePage(p.page(missedEvents, 0), DefaultLayout, func(Record) {}); lost != -1 {
		t.Errorf("lost %d, want -1", lost)
	}
}

func TestParsePageErrors(t *testing.T) {
	tests := map[string][]byte{
		"short header": make([]byte, 10),
	}
	big := (&pageBuilder{}).page(0, 0)
	binary.LittleEndian.PutUint64(big[8:], 5000)
	tests["commit past the page"] = big
	p := &pageBuilder{}
	p.u32(0) // type_len 0 ...
	p.u32(4000)
	tests["long record past the end"] = p.page(0, 0)
	p = &pageBuilder{}
	p.u32(28) // 112 bytes claimed, 0 present
	tests["record past the commit"] = p.page(0, 0)
	for name, b := range tests {
		if _, err := ParsePage(b, DefaultLayout, func(Record) {}); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestFieldValues(t *testing.T) {
	f := readFormat(t, "irq_irq_handler_entry")
	data := rec(f.ID)
	data = binary.LittleEndian.AppendUint32(data, uint32(0xfffffff6)) // irq -10
	data = binary.LittleEndian.AppendUint32(data, uint32(5)<<16|16)   // name at 16, 5 bytes
	data = append(data, "eth0\x00"...)
	irq, _ := f.Field("irq")
	name, _ := f.Field("name")
	if irq.Int(data) != -10 || name.String(data) != "eth0" {
		t.Errorf("irq %d name %q", irq.Int(data), name.String(data))
	}
	// A locator past the record reads as empty, never out of bounds.
	binary.LittleEndian.PutUint32(data[12:], uint32(200)<<16|16)
	if name.String(data) != "" || irq.Int(data[:9]) != 0 {
		t.Error("out-of-record field read")
	}
	sw := readFormat(t, "sched_sched_switch")
	comm, _ := sw.Field("next_comm")
	d := make([]byte, 64)
	copy(d[40:], "hog")
	if comm.String(d) != "hog" {
		t.Errorf("%q", comm.String(d))
	}
}

// A big-endian machine's ring buffer is refused, not read as garbage.
func TestLittleEndianOnly(t *testing.T) {
	if err := littleEndian(binary.BigEndian); err == nil || !strings.Contains(err.Error(), "big-endian") {
		t.Errorf("big-endian: %v", err)
	}
	if err := littleEndian(binary.LittleEndian); err != nil {
		t.Error(err)
	}
}

func TestCPUMask(t *testing.T) {
	for _, tt := range []struct {
		cpus []int
		n    int
		want string
	}{
		{[]int{1}, 2, "00000002"},
		{[]int{0, 33}, 40, "00000002,00000001"},
		{nil, 4, "00000000"},
	} {
		if got := CPUMask(tt.cpus, tt.n); got != tt.want {
			t.Errorf("%v/%d: %s, want %s", tt.cpus, tt.n, got, tt.want)
		}
	}
}
