// Package tracefs reads Linux kernel trace events (irq, irq_vectors,
// sched, timer) as pure parsers over bytes plus a session that owns a
// private tracefs instance for its run.
//
// Events are read from per_cpu/cpuN/trace_pipe_raw, the ring buffer's own
// pages, not from the trace_pipe text: the text prints time stamps of the
// nanosecond clocks in microseconds (" %5lu.%06lu: "), too coarse for
// interrupt handlers that run for a microsecond or less, and every event
// would be formatted by the kernel and parsed again here. The pages carry
// nanosecond time stamps and the fields at the offsets events/*/format
// gives, so a field costs a load.
package tracefs

import (
	"bufio"
	"fmt"
	"io"
	"path"
	"strconv"
	"strings"
)

// MaxFormat bounds a format file read: the largest in a 6.x kernel is a
// few KiB (its print fmt line included).
const MaxFormat = 64 << 10

// MaxPage bounds the ring-buffer page a header_page may describe, since
// a session allocates one of that size: the kernel's sub-buffers are at
// most 1 MiB (ring_buffer_subbuf_order_set refuses one larger than its
// write counter, RB_WRITE_MASK + 1).
const MaxPage = 1 << 20

// Field is one field of an event's record.
type Field struct {
	Name   string
	Type   string // as declared, e.g. "int", "char[16]", "__data_loc char[]"
	Offset int
	Size   int
	Signed bool
	// DataLoc: the field holds a 32-bit locator (offset in the low 16
	// bits, length in the high 16) of variable data in the record.
	DataLoc bool
}

// Format is an event's layout, from events/SYSTEM/NAME/format.
type Format struct {
	System string
	Name   string
	ID     uint16
	Fields []Field
}

// Field returns the field called name.
func (f *Format) Field(name string) (Field, bool) {
	for _, fl := range f.Fields {
		if fl.Name == name {
			return fl, true
		}
	}
	return Field{}, false
}

// FieldKind is how latlab reads a field.
type FieldKind uint8

// Field kinds.
const (
	IntField  FieldKind = iota + 1 // an integer of 1, 2, 4 or 8 bytes (Field.Int)
	TextField                      // a char array or a __data_loc string (Field.String)
)

// Need is a field latlab reads of an event, and how.
type Need struct {
	Name string
	Kind FieldKind
}

// Needed are the fields latlab reads of the events it enables, by
// SYSTEM/NAME pattern (path.Match): the IRQTracker's, and explain's of
// sched_switch and sched_wakeup. A session refuses a format without one
// of them, or with one it cannot read so, where reading would give 0 or
// "" for every event.
var Needed = []struct {
	Pattern string
	Fields  []Need
}{
	{"irq/irq_handler_entry", []Need{{"irq", IntField}, {"name", TextField}}},
	{"irq/irq_handler_exit", []Need{{"irq", IntField}}},
	{"irq/softirq_entry", []Need{{"vec", IntField}}},
	{"irq/softirq_exit", []Need{{"vec", IntField}}},
	{"irq_vectors/*_entry", []Need{{"vector", IntField}}},
	{"irq_vectors/*_exit", []Need{{"vector", IntField}}},
	{"sched/sched_switch", []Need{{"next_pid", IntField}, {"next_prio", IntField}, {"next_comm", TextField}}},
	{"sched/sched_wakeup", []Need{{"pid", IntField}}},
}

// CheckFields says which field of Needed f lacks or lays out otherwise
// than latlab reads it, naming the event (f.System/f.Name) and the field;
// nil when f has them all.
func CheckFields(f *Format) error {
	ev := f.System + "/" + f.Name
	for _, n := range Needed {
		if m, _ := path.Match(n.Pattern, ev); !m {
			continue
		}
		for _, nd := range n.Fields {
			fl, ok := f.Field(nd.Name)
			if !ok {
				return fmt.Errorf("event %s has no field %s, which latlab reads", ev, nd.Name)
			}
			array := strings.Contains(fl.Type, "[")
			switch {
			case nd.Kind == IntField && (fl.DataLoc || array || (fl.Size != 1 && fl.Size != 2 && fl.Size != 4 && fl.Size != 8)):
				return fmt.Errorf("event %s: field %s is %q of %d bytes, not an integer of 1, 2, 4 or 8 bytes", ev, nd.Name, fl.Type, fl.Size)
			case nd.Kind == TextField && !fl.DataLoc && (!array || fl.Size == 0):
				return fmt.Errorf("event %s: field %s is %q of %d bytes, not a char array or __data_loc string", ev, nd.Name, fl.Type, fl.Size)
			}
		}
	}
	return nil
}

// FormatError says what was wrong in a format file.
type FormatError struct {
	Line int
	Msg  string
}

func (e *FormatError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("event format line %d: %s", e.Line, e.Msg)
	}
	return "event format: " + e.Msg
}

// ParseFormat reads a format file (name, ID, the fields with offset, size
// and signedness). Fields whose record layout it cannot use (out of the
// 16-bit range a record has) are errors, not guesses.
func ParseFormat(r io.Reader) (*Format, error) {
	sc := bufio.NewScanner(io.LimitReader(r, MaxFormat))
	sc.Buffer(make([]byte, 0, 4096), MaxFormat)
	f := &Format{}
	haveID := false
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		switch {
		case strings.HasPrefix(line, "name:"):
			f.Name = strings.TrimSpace(strings.TrimPrefix(line, "name:"))
		case strings.HasPrefix(line, "ID:"):
			v, err := strconv.ParseUint(strings.TrimSpace(strings.TrimPrefix(line, "ID:")), 10, 16)
			if err != nil {
				return nil, &FormatError{n, "ID is not a number from 0 to 65535"}
			}
			f.ID, haveID = uint16(v), true
		case strings.HasPrefix(line, "field:"):
			// An event record's fields are in its 16-bit range.
			fl, err := parseField(line, 0xffff)
			if err != nil {
				return nil, &FormatError{n, err.Error()}
			}
			if len(f.Fields) >= 256 {
				return nil, &FormatError{n, "more than 256 fields"}
			}
			f.Fields = append(f.Fields, fl)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, &FormatError{n, err.Error()}
	}
	if f.Name == "" || !haveID {
		return nil, &FormatError{0, "no name or no ID line"}
	}
	return f, nil
}

// parseField reads "field:TYPE NAME;\toffset:N;\tsize:N;\tsigned:N;",
// refusing an offset over 65535 or a size over maxSize.
func parseField(line string, maxSize int) (Field, error) {
	var fl Field
	parts := strings.Split(line, ";")
	decl := strings.TrimSpace(strings.TrimPrefix(parts[0], "field:"))
	// An array is "TYPE NAME[LEN]", and LEN is the kernel's expression
	// as written, spaces and all: "char ssid[32 + 1]", "u8
	// ht_capa[(int)sizeof(struct ieee80211_ht_cap)]" (Android kernels
	// 3.10 to 5.10). The name ends where that last bracket opens.
	arr := ""
	if strings.HasSuffix(decl, "]") {
		if j := openingBracket(decl); j > 0 {
			decl, arr = strings.TrimSpace(decl[:j]), decl[j:]
		}
	}
	i := strings.LastIndexAny(decl, " \t")
	if i < 0 {
		return fl, fmt.Errorf("field %q has no type", decl)
	}
	fl.Type, fl.Name = strings.TrimSpace(decl[:i])+arr, decl[i+1:]
	if fl.Name == "" {
		return fl, fmt.Errorf("field %q has no name", decl)
	}
	fl.DataLoc = strings.HasPrefix(fl.Type, "__data_loc") || strings.HasPrefix(fl.Type, "__rel_loc")
	have := 0
	for _, p := range parts[1:] {
		k, v, ok := strings.Cut(strings.TrimSpace(p), ":")
		if !ok {
			continue
		}
		x, err := strconv.Atoi(strings.TrimSpace(v))
		switch k {
		case "offset", "size":
			max := 0xffff
			if k == "size" {
				max = maxSize
			}
			if err != nil || x < 0 || x > max {
				return fl, fmt.Errorf("field %s: %s %q is not 0 to %d", fl.Name, k, v, max)
			}
			if k == "offset" {
				fl.Offset = x
			} else {
				fl.Size = x
			}
			have++
		case "signed":
			fl.Signed = err == nil && x != 0
		}
	}
	if have != 2 {
		return fl, fmt.Errorf("field %s has no offset or size", fl.Name)
	}
	if fl.DataLoc && fl.Size != 4 {
		return fl, fmt.Errorf("field %s: a data locator of %d bytes, want 4", fl.Name, fl.Size)
	}
	return fl, nil
}

// openingBracket is the index of the '[' that the ']' ending s closes,
// -1 when there is none.
func openingBracket(s string) int {
	depth := 0
	for i := len(s) - 1; i >= 0; i-- {
		switch s[i] {
		case ']':
			depth++
		case '[':
			if depth--; depth == 0 {
				return i
			}
		}
	}
	return -1
}

// PageLayout is where a ring-buffer page keeps its time stamp, its commit
// (the bytes of events in it, and the flags of lost events) and its data,
// from events/header_page.
type PageLayout struct {
	CommitSize int // 8 on 64-bit kernels, 4 on 32-bit
	DataOffset int
	Size       int // the whole page: DataOffset + data
}

// DefaultLayout is the 64-bit kernel's page of 4096 bytes.
var DefaultLayout = PageLayout{CommitSize: 8, DataOffset: 16, Size: 4096}

// ParseHeaderPage reads events/header_page.
func ParseHeaderPage(r io.Reader) (PageLayout, error) {
	sc := bufio.NewScanner(io.LimitReader(r, MaxFormat))
	sc.Buffer(make([]byte, 0, 4096), MaxFormat)
	l := PageLayout{}
	dataSize := -1
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if !strings.HasPrefix(line, "field:") {
			continue
		}
		// The data field is the whole sub-buffer but its header, which
		// buffer_subbuf_size_kb sets (kernel 6.8 and later) up to 1 MiB.
		fl, err := parseField(line, MaxPage)
		if err != nil {
			return l, &FormatError{0, "header_page: " + err.Error()}
		}
		switch fl.Name {
		case "commit":
			l.CommitSize = fl.Size
		case "data":
			l.DataOffset, dataSize = fl.Offset, fl.Size
		}
	}
	if err := sc.Err(); err != nil {
		return l, &FormatError{0, "header_page: " + err.Error()}
	}
	if l.CommitSize != 4 && l.CommitSize != 8 {
		return l, &FormatError{0, fmt.Sprintf("header_page: commit of %d bytes, want 4 or 8", l.CommitSize)}
	}
	if l.DataOffset != 8+l.CommitSize || dataSize <= 0 {
		return l, &FormatError{0, fmt.Sprintf("header_page: data at %d (%d bytes), want at %d", l.DataOffset, dataSize, 8+l.CommitSize)}
	}
	if dataSize > MaxPage-l.DataOffset {
		return l, &FormatError{0, fmt.Sprintf("header_page: data of %d bytes, want at most %d", dataSize, MaxPage-l.DataOffset)}
	}
	l.Size = l.DataOffset + dataSize
	return l, nil
}
