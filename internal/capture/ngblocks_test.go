package capture

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"io"
	"runtime"
	"strings"
	"testing"
)

// ngBuf builds pcapng blocks (little-endian) in memory.
type ngBuf struct{ b []byte }

func (w *ngBuf) block(typ uint32, body []byte) {
	n := uint32(12 + len(body) + (4-len(body)%4)%4)
	w.b = binary.LittleEndian.AppendUint32(w.b, typ)
	w.b = binary.LittleEndian.AppendUint32(w.b, n)
	w.b = append(w.b, body...)
	w.b = append(w.b, make([]byte, (4-len(body)%4)%4)...)
	w.b = binary.LittleEndian.AppendUint32(w.b, n)
}

func (w *ngBuf) shb() {
	le := binary.LittleEndian
	w.block(ngTypeSHB, le.AppendUint64(le.AppendUint32(le.AppendUint32(nil, ngBOM), 1), ^uint64(0)))
}

// idb adds an Ethernet interface with the given options (code, value).
func (w *ngBuf) idb(opts ...ngOpt) {
	le := binary.LittleEndian
	w.block(ngTypeIDB, appendOpts(le.AppendUint32(le.AppendUint32(nil, 1), 0), opts))
}

func (w *ngBuf) epb(data []byte, opts ...ngOpt) {
	le := binary.LittleEndian
	b := le.AppendUint32(nil, 0) // interface 0
	b = le.AppendUint64(b, 0)    // time
	b = le.AppendUint32(b, uint32(len(data)))
	b = le.AppendUint32(b, uint32(len(data)))
	b = append(b, data...)
	b = append(b, make([]byte, (4-len(data)%4)%4)...)
	w.block(ngTypeEPB, appendOpts(b, opts))
}

type ngOpt struct {
	code uint16
	v    []byte
}

func appendOpts(b []byte, opts []ngOpt) []byte {
	le := binary.LittleEndian
	for _, o := range opts {
		b = le.AppendUint16(b, o.code)
		b = le.AppendUint16(b, uint16(len(o.v)))
		b = append(b, o.v...)
		b = append(b, make([]byte, (4-len(o.v)%4)%4)...)
	}
	if len(opts) > 0 {
		b = le.AppendUint32(b, 0) // end of options
	}
	return b
}

// readAllMeasured reads every record of a capture and returns the frames
// read, the bytes allocated meanwhile and the error that ended it (nil at
// a clean end).
func readAllMeasured(t *testing.T, r io.Reader) (frames int, alloc uint64, err error) {
	t.Helper()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	rd, err := NewReader(r)
	if err == nil {
		var rec Record
		for err == nil {
			if err = rd.Next(&rec); err == nil {
				frames++
			}
		}
		if err == io.EOF {
			err = nil
		}
	}
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(rd)
	return frames, after.TotalAlloc - before.TotalAlloc, err
}

func wantFormatError(t *testing.T, err error, offset int64, msg string) {
	t.Helper()
	var fe *FormatError
	if !errors.As(err, &fe) {
		t.Fatalf("error %v, want a *FormatError", err)
	}
	if fe.Offset != offset || !strings.Contains(fe.Msg, msg) || fe.Truncated || fe.Read {
		t.Fatalf("%+v: want %q at byte %d", fe, msg, offset)
	}
}

const shbLen, minIDBLen = 28, 20

// 1M interface blocks (20 MB) took 788 MiB: pcapgo keeps every one. A
// section now holds at most maxNgInterfaces, and the block past them is
// a format error. (Twice the bound is as many as the test needs: the
// reader stops at the first block past it, and without the bound the
// error below is missing.)
func TestPcapNGInterfacesPerSectionBounded(t *testing.T) {
	var w ngBuf
	w.shb()
	for range 2 * maxNgInterfaces {
		w.idb()
	}
	w.epb(make([]byte, 60))
	_, alloc, err := readAllMeasured(t, bytes.NewReader(w.b))
	wantFormatError(t, err, shbLen+maxNgInterfaces*minIDBLen, "more than 65536 interfaces in one section")
	// Some 1.2 KiB a kept interface (pcapgo's record and its growth).
	if alloc > 160<<20 {
		t.Errorf("%d MiB allocated reading the interfaces", alloc>>20)
	}

	// A new section starts the count again.
	w = ngBuf{}
	for range 2 {
		w.shb()
		for range maxNgInterfaces {
			w.idb()
		}
		w.epb(make([]byte, 60))
	}
	if n, _, err := readAllMeasured(t, bytes.NewReader(w.b)); err != nil || n != 2 {
		t.Fatalf("two sections of %d interfaces: %d frames, %v", maxNgInterfaces, n, err)
	}
}

// What pcapgo keeps of an interface (its name, description, comment...)
// is bounded in bytes too.
func TestPcapNGInterfaceBytesBounded(t *testing.T) {
	var w ngBuf
	w.shb()
	comment := ngOpt{1, bytes.Repeat([]byte("c"), 65000)}
	for range 300 { // 19.5 MB
		w.idb(comment, ngOpt{2, comment.v}, ngOpt{3, comment.v})
	}
	_, alloc, err := readAllMeasured(t, bytes.NewReader(w.b))
	var fe *FormatError
	if !errors.As(err, &fe) || !strings.Contains(fe.Msg, "interface description block: the interfaces of one section take more than 16 MiB") {
		t.Fatalf("%v: want the interface bytes refused", err)
	}
	if alloc > 64<<20 {
		t.Errorf("%d MiB allocated", alloc>>20)
	}
}

// idbStream is a section header and then interface blocks, n of them,
// made as they are read.
type idbStream struct {
	n, done int
	buf     []byte
}

func (s *idbStream) Read(p []byte) (int, error) {
	if len(s.buf) == 0 {
		if s.done > s.n {
			return 0, io.EOF
		}
		var w ngBuf
		if s.done == 0 {
			w.shb()
		}
		for i := 0; i < 4096 && s.done < s.n; i++ {
			w.idb()
			s.done++
		}
		if s.done == s.n {
			s.done++
		}
		s.buf = w.b
	}
	n := copy(p, s.buf)
	s.buf = s.buf[n:]
	return n, nil
}

// A 2.5 MB gzip of 1.06 GB of interface blocks ended in "fatal error: out
// of memory". The bomb here is made as it is read (2M interfaces, 40 MB
// inflated) and stops at the first block past the limit.
func TestPcapNGInterfaceGzipBomb(t *testing.T) {
	pr, pw := io.Pipe()
	done := make(chan struct{})
	go func() {
		defer close(done)
		zw := gzip.NewWriter(pw)
		_, err := io.Copy(zw, &idbStream{n: 2 << 20})
		if err == nil {
			err = zw.Close()
		}
		pw.CloseWithError(err)
	}()
	_, alloc, err := readAllMeasured(t, pr)
	pr.Close() // ends the writer
	<-done
	wantFormatError(t, err, shbLen+maxNgInterfaces*minIDBLen, "more than 65536 interfaces in one section")
	if alloc > 160<<20 {
		t.Errorf("%d MiB allocated reading the bomb", alloc>>20)
	}
}

// Name resolution and decryption secrets blocks were kept by pcapgo for
// the whole section (a name record of 64K empty names took 1 MiB); custom
// blocks were read. latlab uses none of them: they are skipped unread,
// and the packet after them is read.
func TestPcapNGUnusedBlocksNotKept(t *testing.T) {
	le := binary.LittleEndian
	var w ngBuf
	w.shb()
	w.idb()
	var nrb []byte
	for range 4 { // an IPv4 address and 65528 empty names, 4 times
		nrb = le.AppendUint16(nrb, 1)
		nrb = le.AppendUint16(nrb, 65532)
		nrb = append(nrb, make([]byte, 65532)...)
	}
	nrb = le.AppendUint32(nrb, 0) // end of records
	dsb := le.AppendUint32(le.AppendUint32(nil, 0x544c534b), 256<<10)
	dsb = append(dsb, make([]byte, 256<<10)...)
	for range 32 {
		w.block(4, nrb)
		w.block(10, dsb)
		w.block(0xbad, make([]byte, 64<<10))
	}
	w.epb(make([]byte, 60))
	n, alloc, err := readAllMeasured(t, bytes.NewReader(w.b))
	if err != nil || n != 1 {
		t.Fatalf("%d frames, %v: want the packet after the blocks", n, err)
	}
	if alloc > 8<<20 {
		t.Errorf("%d MiB allocated for %d MiB of blocks nobody reads", alloc>>20, len(w.b)>>20)
	}
}

// A packet block too long to check in place may not hide megabytes of
// options: each comment among them was kept, 24 bytes of memory for 8 of
// file.
func TestPcapNGPacketOptionsBounded(t *testing.T) {
	var w ngBuf
	w.shb()
	w.idb()
	w.epb(make([]byte, 60), ngOpt{1, []byte("a fine comment")})
	at := int64(len(w.b))
	opts := make([]ngOpt, 1<<17) // 1 MiB of one-byte comments
	for i := range opts {
		opts[i] = ngOpt{1, []byte("x")}
	}
	w.epb(make([]byte, 60), opts...)
	n, _, err := readAllMeasured(t, bytes.NewReader(w.b))
	if n != 1 {
		t.Errorf("%d frames read, want the first", n)
	}
	wantFormatError(t, err, at, "bytes of options: more than the")
}
