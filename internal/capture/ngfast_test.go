package capture

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/gopacket/gopacket/layers"
)

// ngRead is what a Reader makes of a file: a copy of each record, Pos
// after each call to Next, the error that ended it (nil at a clean end),
// and the blocks read in place.
type ngRead struct {
	recs []Record
	pos  []int64
	err  error
	fast int
}

// readNg reads src to its end, its packet blocks in place (fast) or all
// through pcapgo; max caps the decompressed bytes (0: no cap but
// infile's).
func readNg(src io.Reader, max int64, fast bool) ngRead {
	var res ngRead
	rd, err := newReader(src, max)
	if err != nil {
		res.err = err
		return res
	}
	defer rd.Close()
	if rd.ngf != nil {
		rd.ngf.off = !fast
	}
	var rec Record
	for range 1 << 20 {
		err := rd.Next(&rec)
		res.pos = append(res.pos, rd.Pos())
		if err != nil {
			if err != io.EOF {
				res.err = err
			}
			break
		}
		c := rec
		// Empty data is empty either way: pcapgo hands out nil before
		// its buffer exists, the fast path an empty slice.
		c.Data = nil
		if len(rec.Data) > 0 {
			c.Data = bytes.Clone(rec.Data)
		}
		c.Comments = slices.Clone(rec.Comments)
		res.recs = append(res.recs, c)
	}
	if rd.ngf != nil {
		res.fast = rd.ngf.read
	}
	return res
}

// diffNg returns how the reading of b with the fast path differs from its
// reading through pcapgo alone ("" if in nothing), src making a reader of
// b each time.
func diffNg(b []byte, max int64, src func([]byte) io.Reader) (string, ngRead) {
	slow, fast := readNg(src(b), max, false), readNg(src(b), max, true)
	if !reflect.DeepEqual(slow.err, fast.err) {
		return fmt.Sprintf("error %v, through pcapgo %v", fast.err, slow.err), fast
	}
	if len(slow.recs) != len(fast.recs) {
		return fmt.Sprintf("%d records, through pcapgo %d", len(fast.recs), len(slow.recs)), fast
	}
	for i := range slow.recs {
		if !reflect.DeepEqual(slow.recs[i], fast.recs[i]) {
			return fmt.Sprintf("record %d:\n%+v\nthrough pcapgo\n%+v", i, fast.recs[i], slow.recs[i]), fast
		}
	}
	if !slices.Equal(slow.pos, fast.pos) {
		return fmt.Sprintf("positions %v, through pcapgo %v", fast.pos, slow.pos), fast
	}
	return "", fast
}

// Sources of a file's bytes: whole, and in the short reads of pipes and
// decompressors, which leave blocks across the read buffer's end.
var ngSources = []struct {
	name string
	src  func([]byte) io.Reader
}{
	{"whole", func(b []byte) io.Reader { return bytes.NewReader(b) }},
	{"halves", func(b []byte) io.Reader { return iotest.HalfReader(bytes.NewReader(b)) }},
	{"4001", func(b []byte) io.Reader { return &chunkReader{r: bytes.NewReader(b), n: 4001} }},
}

// chunkReader reads at most n bytes at a time.
type chunkReader struct {
	r io.Reader
	n int
}

func (c *chunkReader) Read(p []byte) (int, error) {
	if len(p) > c.n {
		p = p[:c.n]
	}
	return c.r.Read(p)
}

// ngBlockEnds returns the offsets at which the blocks of pcapng file b
// end, as far as their lengths are consistent.
func ngBlockEnds(b []byte) []int {
	var ends []int
	order := binary.ByteOrder(binary.LittleEndian)
	for at := 0; at+12 <= len(b); {
		if binary.LittleEndian.Uint32(b[at:]) == ngTypeSHB {
			if binary.BigEndian.Uint32(b[at+8:]) == ngBOM {
				order = binary.BigEndian
			} else {
				order = binary.LittleEndian
			}
		}
		n := int(order.Uint32(b[at+4:]))
		if n < 12 || n%4 != 0 || at+n > len(b) {
			break
		}
		at += n
		ends = append(ends, at)
	}
	return ends
}

// ngVariants returns b cut and corrupted at its blocks (a sample of a
// large file's): cut at the block's start and inside it; its length,
// captured length, interface, first option and type changed.
func ngVariants(b []byte) map[string][]byte {
	out := map[string][]byte{}
	ends := ngBlockEnds(b)
	starts := append([]int{0}, ends...)
	order := binary.ByteOrder(binary.LittleEndian)
	if len(b) >= 12 && binary.BigEndian.Uint32(b[8:]) == ngBOM {
		order = binary.BigEndian // the first section's (enough for a sample)
	}
	for i, at := range starts {
		// Every block of a file of up to 12; of a longer one, the first 6
		// (the section and interface headers and the first packets), the
		// last 2 and 4 between. Each variant is read whole twice, and a
		// reader allocates its 576 KiB of buffers: every block of the 60
		// files took the package's tests from 10 to 26 s (107 s with
		// -race); FuzzNgFast searches further.
		if n := len(starts); n > 12 && i >= 6 && i < n-2 && (i-6)%max(1, (n-8)/4) != 0 {
			continue
		}
		end := len(b)
		if i < len(ends) {
			end = ends[i]
		}
		for _, cut := range []int{at, at + 1, at + 4, at + 8, at + 12, at + 28, (at + end) / 2, end - 4, end - 1} {
			if cut >= 0 && cut < len(b) {
				out[fmt.Sprintf("cut at %d", cut)] = b[:cut]
			}
		}
		if i >= len(ends) {
			continue
		}
		set := func(name string, off int, v uint32) {
			if at+off+4 <= end {
				c := bytes.Clone(b)
				order.PutUint32(c[at+off:], v)
				out[fmt.Sprintf("block at %d: %s", at, name)] = c
			}
		}
		add := func(name string, off int, d uint32) {
			if at+off+4 <= end {
				set(name, off, order.Uint32(b[at+off:])+d)
			}
		}
		for _, d := range []uint32{4, 8, ^uint32(3), ^uint32(0)} {
			add(fmt.Sprintf("length %+d", int32(d)), 4, d)
			add(fmt.Sprintf("trailing length %+d", int32(d)), end-at-4, d)
			add(fmt.Sprintf("captured length %+d", int32(d)), 20, d)
			add(fmt.Sprintf("interface %+d", int32(d)), 8, d)
		}
		for _, v := range []uint32{0, 12, 28, 32, 1 << 20, ^uint32(0)} {
			set(fmt.Sprintf("length %d", v), 4, v)
		}
		for _, v := range []uint32{ngTypePB, ngTypeSPB, ngTypeISB, ngTypeIDB, 4, ngTypeSHB} {
			set(fmt.Sprintf("type %d", v), 0, v)
		}
		set("captured length huge", 20, 1<<30)
		set("original length 0", 24, 0)
		if order.Uint32(b[at:]) == ngTypeEPB && end-at >= 32 {
			// The first option: after the packet, padded.
			o := 28 + int(order.Uint32(b[at+20:])+3)&^3
			if at+o+8 <= end {
				for _, v := range []uint32{0x00000004, 0x0001ffff, 0x00010003, 0x00050004, 0x00000000} {
					c := bytes.Clone(b)
					if order == binary.LittleEndian {
						binary.LittleEndian.PutUint32(c[at+o:], v)
					} else {
						binary.BigEndian.PutUint16(c[at+o:], uint16(v))
						binary.BigEndian.PutUint16(c[at+o+2:], uint16(v>>16))
					}
					out[fmt.Sprintf("block at %d: first option %08x", at, v)] = c
				}
			}
		}
	}
	return out
}

// ngDiffFiles are the pcapng files read both ways: those of gopacket's
// own tests (written by pcapng-test-generator: sections, interfaces,
// options, time stamp resolutions, both byte orders), a pktmon log, a
// capture of zeek's corpus, and any in $LATLAB_PCAP_CORPUS.
func ngDiffFiles(t *testing.T) []string {
	var files []string
	for _, pat := range []string{"testdata/pcapng-tests/*.pcapng", "testdata/pcapng-tests/*/*.pcapng", "testdata/*.pcapng",
		"../tcpflow/testdata/corpus/*/*/*.pcapng"} {
		m, err := filepath.Glob(pat)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	if len(files) < 57 {
		t.Fatalf("%d pcapng files in testdata, want at least 57", len(files))
	}
	dir := os.Getenv("LATLAB_PCAP_CORPUS")
	if dir == "" {
		dir = "../../../shared/fixtures/pcap-corpus"
	}
	m, _ := filepath.Glob(filepath.Join(dir, "*.pcapng"))
	return append(files, m...)
}

// Every record, position and error of every file, and of its cut and
// corrupted variants, is the same read in place as read through pcapgo.
func TestNgFastSameAsPcapgo(t *testing.T) {
	total := 0
	for _, name := range ngDiffFiles(t) {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(name, func(t *testing.T) {
			for _, s := range ngSources {
				d, fast := diffNg(b, 0, s.src)
				if d != "" {
					t.Fatalf("read %s: %s", s.name, d)
				}
				t.Logf("read %s: %d records, %d of them in place", s.name, len(fast.recs), fast.fast)
				total += fast.fast
			}
			if testing.Short() && len(b) > 1<<16 {
				return
			}
			for v, c := range ngVariants(b) {
				if d, _ := diffNg(c, 0, ngSources[0].src); d != "" {
					t.Fatalf("%s: %s", v, d)
				}
				// a cut in halves: the end met in the middle of a read
				if !strings.HasPrefix(v, "cut at") {
					continue
				}
				if d, _ := diffNg(c, 0, ngSources[1].src); d != "" {
					t.Fatalf("%s, read in halves: %s", v, d)
				}
			}
		})
	}
	if total == 0 {
		t.Error("no block read in place")
	}
}

// ngW writes pcapng blocks in either byte order, options given as raw
// bytes so that they can be malformed.
type ngW struct {
	o binary.AppendByteOrder
	b []byte
}

func (w *ngW) block(typ uint32, body []byte) {
	body = append(body, make([]byte, (4-len(body)%4)%4)...)
	n := uint32(12 + len(body))
	w.b = w.o.AppendUint32(w.o.AppendUint32(w.b, typ), n)
	w.b = w.o.AppendUint32(append(w.b, body...), n)
}

func (w *ngW) shb(major uint16) {
	w.block(ngTypeSHB, w.o.AppendUint64(w.o.AppendUint16(w.o.AppendUint16(w.o.AppendUint32(nil, ngBOM), major), 0), ^uint64(0)))
}

func (w *ngW) idb(lt layers.LinkType, opts []byte) {
	w.block(ngTypeIDB, append(w.o.AppendUint32(w.o.AppendUint32(nil, uint32(lt)), 0), opts...))
}

func (w *ngW) epb(iface uint32, ts uint64, data []byte, orig uint32, opts []byte) {
	b := w.o.AppendUint32(w.o.AppendUint32(w.o.AppendUint32(nil, iface), uint32(ts>>32)), uint32(ts))
	b = w.o.AppendUint32(w.o.AppendUint32(b, uint32(len(data))), orig)
	b = append(b, data...)
	b = append(b, make([]byte, (4-len(data)%4)%4)...)
	w.block(ngTypeEPB, append(b, opts...))
}

// opt encodes one option, padded.
func (w *ngW) opt(code uint16, v []byte) []byte {
	b := w.o.AppendUint16(w.o.AppendUint16(nil, code), uint16(len(v)))
	return append(append(b, v...), make([]byte, (4-len(v)%4)%4)...)
}

// raw encodes an option header and the bytes that follow it, as given.
func (w *ngW) raw(code, n uint16, b ...byte) []byte {
	return append(w.o.AppendUint16(w.o.AppendUint16(nil, code), n), b...)
}

var ngEnd = []byte{0, 0, 0, 0}

// ngSynthetic returns pcapng files of what pcapgo reads in its own way:
// time stamp resolutions and offsets (wrapping ones too), options of
// every kind, well- and ill-formed, sections that change the
// interfaces, blocks other than packets between packets.
func ngSynthetic() map[string][]byte {
	files := map[string][]byte{}
	le := binary.LittleEndian
	id := func(v uint64) []byte { return le.AppendUint64(nil, v) }
	for _, o := range []binary.AppendByteOrder{binary.LittleEndian, binary.BigEndian} {
		// Resolutions: the default, 10^-9, 10^-1, 1 s, 2^-20, 2^-30 (beyond 1e9
		// ticks a second), 2^-63, 10^-19, 10^-20 and 10^-63 (wrapping), 0
		// (the default), an empty option; offsets, a wrapping one.
		for _, res := range [][]byte{nil, {9}, {1}, {0x80}, {0x80 | 20}, {0x80 | 30}, {0x80 | 63}, {19}, {20}, {63}, {0}, {}} {
			for _, off := range []uint64{0, 1700000000, 1 << 63, ^uint64(0)} {
				w := &ngW{o: o}
				w.shb(1)
				var opts []byte
				if res != nil {
					opts = append(opts, w.opt(9, res)...)
				}
				if off != 0 {
					opts = append(opts, w.opt(14, w.o.AppendUint64(nil, off))...)
				}
				if opts != nil {
					opts = append(opts, ngEnd...)
				}
				w.idb(layers.LinkTypeEthernet, opts)
				for _, ts := range []uint64{0, 1, 999999, 1e6, 1700000000123456, 1<<32 - 1, 1 << 32, 1<<63 + 12345, ^uint64(0)} {
					w.epb(0, ts, []byte{1, 2, 3}, 3, nil)
				}
				files[fmt.Sprintf("%v tsresol %v tsoffset %d", o, res, off)] = w.b
			}
		}
		w := &ngW{o: o}
		w.shb(1)
		w.idb(layers.LinkTypeEthernet, nil)
		w.idb(layers.LinkTypeRaw, append(w.opt(9, []byte{9}), ngEnd...))
		data := []byte{0x45, 0, 0, 20, 1, 2, 3}
		for _, opts := range [][]byte{
			nil,
			ngEnd,
			w.opt(1, []byte("hello")), // no end of options
			append(w.opt(1, []byte("hello")), ngEnd...),                // odd length
			append(w.opt(1, nil), ngEnd...),                            // empty comment
			append(w.opt(1, []byte("abcd")), w.opt(1, []byte("x"))...), // two
			append(w.opt(5, id(0x0102030405060708)), ngEnd...),
			append(w.opt(5, []byte{1, 2, 3, 4}), ngEnd...),                // short: skipped
			append(w.opt(5, append(id(7), 9, 9, 9, 9)), ngEnd...),         // long
			append(append(w.opt(5, id(1)), w.opt(5, id(2))...), ngEnd...), // the last
			append(append(w.opt(2, []byte{1, 0, 0, 0}), w.opt(3, []byte{2, 1, 2})...), w.opt(4, id(3))...),
			append(append(w.opt(6, []byte{1}), w.opt(7, []byte{0, 1})...), w.opt(0x1234, []byte{1, 2, 3})...),
			append(w.opt(2988, []byte{0, 0, 0x7e, 0x9f, 1}), w.opt(1, []byte("after custom"))...),
			append(append(ngEnd, w.opt(1, []byte("after end"))...), 0xff, 0xff, 0xff, 0xff),
			w.raw(1, 4, 'a', 'b', 'c', 'd'), // up to the trailer
			w.raw(1, 3, 'a', 'b', 'c', 0),   // the same, padded
		} {
			w.epb(0, 1e15, data, 60, opts)
			w.epb(1, 1e18, data[:0], 0, opts)
		}
		// Options pcapgo refuses: each in a file of its own, as the
		// first refusal ends the reading.
		for i, opts := range [][]byte{
			w.raw(0, 4, 1, 2, 3, 4),                               // end of options of length 4
			w.raw(1, 5, 1, 2, 3, 4),                               // into the trailer
			w.raw(1, 0xffff, 1, 2, 3, 4),                          // beyond the block
			append(w.raw(1, 5, 1, 2, 3, 4, 5, 6, 7, 8), ngEnd...), // 5 bytes, padded with 3 others
		} {
			bad := &ngW{o: o, b: slices.Clone(w.b)}
			bad.epb(0, 1, data, 7, opts)
			bad.epb(0, 2, data, 7, nil)
			files[fmt.Sprintf("%v bad option %d", o, i)] = bad.b
		}
		// An interface added between packets; a packet of an
		// interface not (yet) there; statistics, name resolution,
		// custom, simple and obsolete packet blocks between packets.
		w.idb(layers.LinkTypeLinuxSLL, nil)
		w.epb(2, 5, data, 7, nil)
		w.block(ngTypeISB, w.o.AppendUint64(w.o.AppendUint32(nil, 0), 0))
		w.epb(2, 6, data, 7, nil)
		w.block(4, ngEnd)
		w.block(0xbad, []byte{1, 2, 3})
		w.block(ngTypeSPB, w.o.AppendUint32(nil, 3))
		w.block(ngTypePB, append(w.o.AppendUint32(w.o.AppendUint32(w.o.AppendUint32(w.o.AppendUint32(w.o.AppendUint32(nil, 1), 0), 0), 3), 3), 1, 2, 3, 0))
		w.epb(1, 7, data, 7, nil)
		// A new section: the interfaces of the last are gone, and
		// interface 0 is another; a section of a version pcapgo
		// skips, with packets; then a section with its packets.
		w.shb(1)
		w.idb(layers.LinkTypeRaw, append(w.opt(9, []byte{3}), ngEnd...))
		w.epb(0, 1234567, data, 7, nil)
		w.shb(2)
		w.idb(layers.LinkTypeEthernet, nil)
		w.epb(0, 1, data, 7, nil)
		w.shb(1)
		w.idb(layers.LinkTypeIPv4, append(w.opt(9, []byte{0x80 | 10}), ngEnd...))
		w.epb(0, 1<<40, data, 7, nil)
		w.epb(0, 1<<41, data, 7, append(w.opt(1, []byte("last")), ngEnd...))
		files[fmt.Sprintf("%v options and sections", o)] = w.b
		// A packet longer than the read buffer, between short ones.
		w = &ngW{o: o}
		w.shb(1)
		w.idb(layers.LinkTypeEthernet, nil)
		w.epb(0, 1, data, 7, nil)
		w.epb(0, 2, make([]byte, bufSize), bufSize, nil)
		w.epb(0, 3, make([]byte, bufSize-40), bufSize, nil)
		for i := range 4 {
			w.epb(0, uint64(4+i), data, 7, nil)
		}
		files[fmt.Sprintf("%v long packets", o)] = w.b
	}
	return files
}

func TestNgFastSynthetic(t *testing.T) {
	for name, b := range ngSynthetic() {
		t.Run(name, func(t *testing.T) {
			fast := 0
			for _, s := range ngSources {
				d, r := diffNg(b, 0, s.src)
				if d != "" {
					t.Fatalf("read %s: %s", s.name, d)
				}
				fast = max(fast, r.fast)
			}
			if fast == 0 {
				t.Error("no block read in place")
			}
			// Cut and corrupted: the files of one layout once, the time
			// stamps' arithmetic being the same in all.
			if len(b) > 1<<16 || strings.Contains(name, "tsresol") && !strings.HasSuffix(name, "tsresol [9] tsoffset 1700000000") {
				return
			}
			for v, c := range ngVariants(b) {
				if d, _ := diffNg(c, 0, ngSources[0].src); d != "" {
					t.Fatalf("%s: %s", v, d)
				}
			}
		})
	}
}

// Failures of the reading itself: an I/O error, the cap on decompressed
// bytes, a damaged compressed stream, at points all over a file (odd
// steps: the points fall at every alignment within the blocks, whose
// lengths are multiples of 4).
func TestNgFastReadFailures(t *testing.T) {
	b := ngFile(t, true)
	ioErr := errors.New("input/output error")
	for cut := 0; cut < len(b); cut += 293 {
		if d, _ := diffNg(b, 0, func(b []byte) io.Reader { return &failReader{b: b[:cut], err: ioErr} }); d != "" {
			t.Fatalf("I/O error at %d: %s", cut, d)
		}
	}
	for _, kind := range compressions {
		z := compress(t, kind, b)
		for max := int64(1); max < int64(len(b)); max += 3001 {
			if d, _ := diffNg(z, max, ngSources[0].src); d != "" {
				t.Fatalf("%s capped at %d: %s", kind, max, d)
			}
		}
		for cut := 10; cut < len(z); cut += 631 {
			if d, _ := diffNg(z[:cut], 0, ngSources[0].src); d != "" {
				t.Fatalf("%s cut at %d: %s", kind, cut, d)
			}
			c := bytes.Clone(z)
			c[cut] ^= 0x55
			if d, _ := diffNg(c, 0, ngSources[0].src); d != "" {
				t.Fatalf("%s damaged at %d: %s", kind, cut, d)
			}
		}
	}
}

// nextNgFast fills the record field by field: into a record filled with
// non-zero values it reads what it reads into a zero one.
func TestNextNgFastSetsEveryField(t *testing.T) {
	w := &ngW{o: binary.LittleEndian}
	w.shb(1)
	w.idb(layers.LinkTypeEthernet, nil)
	w.epb(0, 1, []byte{1, 2, 3, 4}, 4, nil)
	w.epb(0, 2, []byte{5, 6, 7}, 4, nil)
	read := func(rec *Record) {
		t.Helper()
		r, err := NewReader(bytes.NewReader(w.b))
		if err != nil {
			t.Fatal(err)
		}
		// The first packet comes with the interface, through pcapgo.
		var first Record
		if err := r.Next(&first); err != nil {
			t.Fatal(err)
		}
		if err := r.Next(rec); err != nil {
			t.Fatal(err)
		}
		if r.ngf.read != 1 {
			t.Fatal("the packet block is not read by nextNgFast")
		}
	}
	setsEveryField(t, "nextNgFast", read)
}

// FuzzNgFast: any input reads the same with the packet blocks read in
// place as through pcapgo alone, whole or in short reads.
func FuzzNgFast(f *testing.F) {
	for _, pat := range []string{"testdata/pcapng-tests/*/test00*.pcapng", "testdata/pcapng-tests/*/test10*.pcapng", "testdata/pcapng-tests/epb.pcapng"} {
		m, _ := filepath.Glob(pat)
		for _, name := range m {
			if b, err := os.ReadFile(name); err == nil {
				f.Add(b)
			}
		}
	}
	for _, b := range ngSynthetic() {
		if len(b) < 1<<16 {
			f.Add(b)
		}
	}
	f.Add(ngFile(f, true)[:3000])
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, s := range ngSources {
			if d, _ := diffNg(b, 1<<20, s.src); d != "" {
				t.Fatalf("read %s: %s", s.name, d)
			}
		}
	})
}

// A packet or statistics block naming interface 2^31 or above is
// refused as pcapgo refuses it on a 64-bit platform, where no section
// holds that interface; on a 32-bit one pcapgo made the id negative and
// indexed its interfaces with it (scripts/test runs this test with
// GOARCH=386 as well).
func TestNgHugeInterfaceIDRefused(t *testing.T) {
	for _, o := range []binary.AppendByteOrder{binary.LittleEndian, binary.BigEndian} {
		for _, id := range []uint32{1 << 31, ^uint32(0)} {
			for _, kind := range []string{"packet", "statistics"} {
				w := &ngW{o: o}
				w.shb(1)
				w.idb(layers.LinkTypeEthernet, nil)
				w.epb(0, 1, []byte{1, 2, 3, 4}, 4, nil)
				at := len(w.b)
				if kind == "packet" {
					w.epb(id, 2, []byte{5, 6, 7, 8}, 4, nil)
				} else {
					w.block(ngTypeISB, o.AppendUint64(o.AppendUint32(nil, id), 0))
				}
				for _, fast := range []bool{true, false} {
					r, err := NewReader(bytes.NewReader(w.b))
					if err != nil {
						t.Fatal(err)
					}
					r.ngf.off = !fast
					var rec Record
					if err := r.Next(&rec); err != nil {
						t.Fatal(err)
					}
					err = r.Next(&rec)
					var fe *FormatError
					want := fmt.Sprintf("corrupt block: Interface id %d not present in section (have only 1 interfaces)", id)
					if !errors.As(err, &fe) || fe.Offset != int64(at) || fe.Msg != want {
						t.Errorf("%v, %s block of interface %d, in place %v: %v, want %q at %d", o, kind, id, fast, err, want, at)
					}
				}
			}
		}
	}
}
