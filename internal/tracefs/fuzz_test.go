package tracefs

import (
	"bytes"
	"os"
	"testing"
)

// FuzzParsePage: no page, however hostile, makes the parser read outside
// it, panic or hand out a record that is not inside the page.
func FuzzParsePage(f *testing.F) {
	p := &pageBuilder{base: 1}
	p.data(100, rec(1, 1, 2, 3, 4))
	p.extend(1 << 30)
	p.data(0, rec(3, make([]byte, 200)...))
	p.abs(5)
	p.pad(12)
	f.Add(p.page(missedEvents|missedStored, 3)[:256], true)
	f.Add(p.page(0, 0), false)
	f.Add([]byte{}, true)
	// Real pages: a 32-bit kernel's (commit of 4 bytes), and the first of
	// an x86_64 kernel's (testdata/real/schedviz).
	f.Add(readReal(f, "schedviz/cpu0-32"), false)
	f.Add(readReal(f, "schedviz/test.tar.gz:traces/cpu0")[:4096], true)
	f.Fuzz(func(t *testing.T, b []byte, wide bool) {
		l := DefaultLayout
		if !wide {
			l = PageLayout{CommitSize: 4, DataOffset: 12, Size: 4096}
		}
		_, _ = ParsePage(b, l, func(r Record) {
			if len(r.Data) > len(b) {
				t.Fatalf("record of %d bytes from a page of %d", len(r.Data), len(b))
			}
			_ = Type(r.Data)
		})
	})
}

// FuzzParseFormat: format files and the fields they declare are read
// without panics, and a field never reads outside a record.
func FuzzParseFormat(f *testing.F) {
	for _, n := range []string{"irq_irq_handler_entry", "sched_sched_switch", "timer_hrtimer_start"} {
		b, err := os.ReadFile("testdata/" + n + ".format")
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, []byte("\x01\x00\x00\x00\x05\x00\x00\x00\x10\x00\x04\x00abcd"))
	}
	// events/header_page has no name or ID line: ParseHeaderPage is
	// reached whether ParseFormat accepts the bytes or not.
	hp, err := os.ReadFile("testdata/header_page")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(hp, []byte{})
	// Other kernels (testdata/real): 32-bit ARM's header_page and
	// irq_handler_entry (common_padding before the fields), and an array
	// whose length is an expression with spaces.
	for _, n := range []string{
		"perfetto/android_hammerhead_MRA59G_3.4.0/events/header_page",
		"perfetto/android_hammerhead_MRA59G_3.4.0/events/irq/irq_handler_entry/format",
		"perfetto/android_raven_AOSP.MASTER_5.10.43/events/sched/sched_overutilized/format",
	} {
		f.Add(readReal(f, n), []byte("\x24\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x05\x00\x00\x00\x14\x00\x04\x00abcd"))
	}
	f.Fuzz(func(t *testing.T, format, data []byte) {
		if l, err := ParseHeaderPage(bytes.NewReader(format)); err == nil {
			if l.Size > MaxPage || l.Size <= l.DataOffset {
				t.Fatalf("a page of %d bytes (data at %d) was accepted", l.Size, l.DataOffset)
			}
			_, _ = ParsePage(data, l, func(Record) {})
		}
		fm, err := ParseFormat(bytes.NewReader(format))
		if err != nil {
			return
		}
		for _, fl := range fm.Fields {
			_ = fl.Int(data)
			_ = fl.String(data)
		}
		fm.System = "irq"
		_ = CheckFields(fm)
	})
}
