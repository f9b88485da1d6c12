// Package capture reads packet captures (pcap and pcapng, through gopacket's
// pure-Go pcapgo readers, the records of pcap 2.4 files and the enhanced
// packet blocks of pcapng files in place (pcap24, ngFast), and Network
// Monitor's .cap files), decodes the link, network and transport headers
// that latlab analyses, and keeps per-flow tables. Reading is streaming: a
// Reader holds one record at a time, so memory grows with the flows and the
// data in flight that the analyses keep, never with the file size.
package capture

import (
	"bufio"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"

	"github.com/latlab/latlab/internal/infile"
	"github.com/latlab/latlab/internal/units"
)

// Format is the container format of a capture file.
type Format string

// Container formats.
const (
	FormatPcap   Format = "pcap"
	FormatPcapNG Format = "pcapng"
)

// FormatError is a capture file that cannot be read (further). Offset is
// the byte offset, in the (decompressed) file, of the record or block that
// could not be read. Truncated marks a file that simply ends inside its
// last record (a capture that was cut off), as opposed to a corrupt one.
// Read marks a failure of the reading itself (an I/O error, a size cap),
// not of the file's content.
type FormatError struct {
	Offset    int64  `json:"offset"`
	Msg       string `json:"message"`
	Truncated bool   `json:"truncated"`
	Read      bool   `json:"read_failed,omitempty"`
}

func (e *FormatError) Error() string {
	if e.Truncated {
		return fmt.Sprintf("file truncated: the record at byte %d is incomplete (%s)", e.Offset, e.Msg)
	}
	return fmt.Sprintf("at byte %d: %s", e.Offset, e.Msg)
}

// failed returns the *FormatError for reading that stopped at offset for
// a reason other than the capture's format: the reading failed (an I/O
// error, a size cap) or the compressed stream is damaged. It returns nil
// when neither happened.
func (r *Reader) failed(offset int64) *FormatError {
	switch {
	case r.cr.err != nil:
		return &FormatError{Offset: offset, Msg: r.cr.err.Error(), Read: true}
	case r.cr.bad != nil:
		return &FormatError{Offset: offset, Msg: r.cr.bad.Error()}
	}
	return nil
}

// Record is one captured packet. Data is valid until the next call to Next.
type Record struct {
	Frame    int   // 1-based, as Wireshark numbers frames
	Offset   int64 // byte offset of the record or block in the file
	TimeNs   int64 // capture time, ns since the Unix epoch
	CapLen   int   // bytes captured
	OrigLen  int   // bytes on the wire, as the file says (may be less than CapLen: Stats.LenBelowCap)
	LinkType layers.LinkType
	Iface    int      // pcapng interface index (0 for pcap)
	Comments []string // pcapng per-packet comments
	// PacketID is the pcapng epb_packetid option, when HasPacketID: the
	// pcapng specification gives one packet seen at several points the
	// same id (etl2pcapng writes pktmon's PktGroupId there).
	PacketID    uint64
	HasPacketID bool
	Data        []byte
	// StartNs is the time of the file's first frame, whatever it
	// carries: the zero of Wireshark's frame.time_relative (set by Scan).
	StartNs int64
}

// Reader reads a pcap or pcapng stream record by record.
type Reader struct {
	format      Format
	cr          *countReader
	br          *bufio.Reader
	fast        *pcap24 // a pcap file of version 2.4
	ng          *pcapgo.NgReader
	gate        *ngGate // what pcapgo reads a pcapng file through
	ngf         *ngFast // the packet blocks of a pcapng file read in place
	frame       int
	ngBig       bool         // byte order of the current pcapng section
	file        *countReader // the file as given
	compression string       // "" or a Compression* name
	linkType    layers.LinkType
	long        []byte // a pcap record longer than the read buffer (pcap24)
	nm          *netmonReader
	old         *oldPcap // a pcap format version pcapgo refuses
	tmp         *os.File // a NetMon file's temporary copy (netmonSource)
	tmpRemoved  bool     // tmp's name was removed when it was made
}

// maxPcapRecord is the longest record read past pcapgo (libpcap's and
// Wireshark's largest snap length): allocated before it is read, so a
// length from the file must not exceed it.
const maxPcapRecord = 262144

// bufSize is the read buffer: large enough that pcapng blocks can be
// checked in place (Peek) before pcapgo reads them, and a read of the
// file as long as its copy can be without leaving the core's cache. Each
// read is a system call long enough (tens of µs) that the runtime hands
// the goroutine's P to another thread meanwhile, and waking that thread
// costs more than the call: with 256 KiB reads the scan of a 1.1 GB
// capture made 4,200 of them and as many futex calls. 512 KiB took pcap
// tcp's wall time on it from 0.179 to 0.164 s (median of 11 alternating
// rounds); 1 MiB was as fast there, but made the run over 100,000 short
// connections 6% slower (21 rounds), where 512 KiB measured within the
// spread of 256 (the test machine's L2 is 1 MiB a core).
const bufSize = 512<<10 + 64

// countReader counts the bytes read and keeps the first failure of the
// reading (err: an I/O error, a size cap) apart from damage in a
// compressed stream (bad); the end of the data is neither.
type countReader struct {
	r   io.Reader
	n   int64
	err error
	bad error
}

func (c *countReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	var se *streamError
	switch {
	case err == nil || err == io.EOF || err == io.ErrUnexpectedEOF:
	case errors.As(err, &se):
		if c.bad == nil {
			c.bad = err
		}
	case c.err == nil:
		c.err = err
	}
	return n, err
}

// streamError is a compressed stream the decompressor gave up on
// (damaged, or beyond its limits): the file's content, not its reading,
// is at fault.
type streamError struct {
	kind string
	err  error
}

func (e *streamError) Error() string {
	return fmt.Sprintf("damaged or unsupported %s data: %v", e.kind, e.err)
}

// Compression formats read directly, by their magic numbers: those
// Wireshark 4 reads (wiretap's file_wrappers.c).
const (
	CompressionGzip = "gzip"
	CompressionZstd = "zstd"
	CompressionLZ4  = "lz4"
)

// zstdMaxWindow is the largest zstd window (history) accepted: zstd's own
// default decoder limit (ZSTD_WINDOWLOG_LIMIT_DEFAULT, 2^27), which files
// made without --long stay within.
const zstdMaxWindow = 1 << 27

// decompressor returns a reader of the data compressed in raw, or nil
// when raw starts with no known compression magic.
func decompressor(raw *bufio.Reader) (string, io.Reader, error) {
	m, _ := raw.Peek(4)
	switch {
	case len(m) >= 2 && m[0] == 0x1f && m[1] == 0x8b:
		zr, err := gzip.NewReader(raw)
		return CompressionGzip, zr, err
	case len(m) == 4 && binary.LittleEndian.Uint32(m) == 0xfd2fb528:
		zr, err := zstd.NewReader(raw, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true),
			zstd.WithDecoderMaxWindow(zstdMaxWindow))
		if err != nil {
			return CompressionZstd, nil, err
		}
		return CompressionZstd, zr, nil
	case len(m) == 4 && binary.LittleEndian.Uint32(m) == 0x184d2204:
		lr := lz4.NewReader(raw)
		if err := lr.Apply(lz4.ConcurrencyOption(1)); err != nil {
			return CompressionLZ4, nil, err
		}
		return CompressionLZ4, lr, nil
	}
	return "", nil, nil
}

// inflated reads decompressed data, at most max bytes of it (so that a
// small file cannot make the reading run unbounded: a decompression
// bomb), telling a failure of the file's reading (file) from damage in the
// stream (a *streamError).
type inflated struct {
	kind string
	r    io.Reader
	file *countReader
	n    int64
	max  int64
	over error // set once the cap is passed: every later read returns it
}

func (d *inflated) Read(p []byte) (int, error) {
	if d.over != nil {
		return 0, d.over
	}
	if left := d.max - d.n; int64(len(p)) > left+1 {
		p = p[:left+1] // one byte more than allowed shows there is more
	}
	n, err := d.r.Read(p)
	d.n += int64(n)
	if d.n > d.max {
		d.over = fmt.Errorf("decompressed, the capture is more than the %s cap on input files (%s raises it)",
			units.Size(d.max), infile.MaxFlag)
		return n - int(d.n-d.max), d.over
	}
	switch {
	case err == nil || err == io.EOF || err == io.ErrUnexpectedEOF:
		return n, err
	case d.file.err != nil:
		return n, d.file.err
	}
	return n, &streamError{kind: d.kind, err: err}
}

const (
	magicPcapUs   = 0xa1b2c3d4
	magicPcapNs   = 0xa1b23c4d
	magicNgBlock  = 0x0a0d0d0a
	ngBOM         = 0x1a2b3c4d
	ngTypeIDB     = 1
	ngTypePB      = 2 // obsolete Packet Block
	ngTypeSPB     = 3
	ngTypeEPB     = 6
	ngTypeSHB     = magicNgBlock
	ngMinBlockLen = 12
)

// NewReader detects the format (pcap in either byte order with µs or ns
// timestamps, of format version 2.0 on, pcapng, NetMon 1.x and 2.x, any
// of them compressed with gzip, zstd or lz4) and reads the file header. A compressed capture is read up to infile.Max()
// decompressed bytes.
func NewReader(r io.Reader) (*Reader, error) { return newReader(r, 0) }

// newReader is NewReader with a cap on the decompressed bytes (0:
// infile.Max()).
func newReader(r io.Reader, max int64) (*Reader, error) {
	if max <= 0 {
		max = infile.Max()
	}
	rd := &Reader{file: &countReader{r: r}}
	raw := bufio.NewReaderSize(rd.file, 64<<10)
	kind, dec, err := decompressor(raw)
	switch {
	case rd.file.err != nil:
		return nil, &FormatError{Offset: 0, Msg: rd.file.err.Error(), Read: true}
	case err != nil:
		return nil, &FormatError{Offset: 0, Msg: kind + " header: " + err.Error()}
	case dec != nil:
		rd.compression = kind
		rd.cr = &countReader{r: &inflated{kind: kind, r: dec, file: rd.file, max: max}}
	default:
		rd.cr = &countReader{r: raw}
	}
	rd.br = bufio.NewReaderSize(rd.cr, bufSize)
	head, err := rd.br.Peek(4)
	if err != nil {
		if fe := rd.failed(0); fe != nil {
			return nil, fe
		}
		if rd.compression != "" && err == io.ErrUnexpectedEOF {
			return nil, &FormatError{Offset: 0, Msg: "the " + rd.compression + " data ends before the capture header", Truncated: true}
		}
		if len(head) == 0 {
			return nil, &FormatError{Offset: 0, Msg: "empty file: not a pcap or pcapng capture"}
		}
		return nil, &FormatError{Offset: 0, Msg: "file shorter than a capture header", Truncated: true}
	}
	le, be := binary.LittleEndian.Uint32(head), binary.BigEndian.Uint32(head)
	switch {
	case le == magicPcapUs || be == magicPcapUs || le == magicPcapNs || be == magicPcapNs:
		rd.format = FormatPcap
		if _, err := rd.br.Peek(24); err != nil {
			if fe := rd.failed(0); fe != nil {
				return nil, fe
			}
			return nil, &FormatError{Offset: 0, Msg: "pcap file header (24 bytes) incomplete", Truncated: true}
		}
		hdr, _ := rd.br.Peek(24)
		if o, err := newOldPcap(hdr); err != nil || o != nil {
			if err != nil {
				return nil, err
			}
			rd.old, rd.linkType = o, o.linkType
			_, _ = rd.br.Discard(24)
			break
		}
		fast := newPcap24(hdr) // before pcapgo reads past hdr
		p, err := pcapgo.NewReader(rd.br)
		if err != nil {
			return nil, &FormatError{Offset: 0, Msg: "pcap file header: " + err.Error()}
		}
		rd.linkType = p.LinkType()
		fast.linkType = rd.linkType
		rd.fast = fast
	case le == magicNgBlock:
		rd.format = FormatPcapNG
		rd.gate = newNgGate(rd)
		ng, err := pcapgo.NewNgReader(rd.gate.buf, pcapgo.NgReaderOptions{WantMixedLinkType: true, SkipUnknownVersion: true})
		if err != nil {
			if fe := rd.failed(0); fe != nil {
				return nil, fe
			}
			if rd.gate.err != nil {
				return nil, rd.gate.err
			}
			return nil, &FormatError{Offset: 0, Msg: "pcapng section header: " + err.Error()}
		}
		rd.ng, rd.ngf = ng, &ngFast{}
		if ng.NInterfaces() > 0 {
			rd.linkType = ng.LinkType()
		}
	case string(head) == netmonMagic1 || string(head) == netmonMagic2:
		rd.format = FormatNetMon
		src, size, err := rd.netmonSource(r, max)
		if err != nil {
			rd.Close()
			return nil, err
		}
		if rd.nm, err = openNetMon(src, size); err != nil {
			rd.Close()
			return nil, err
		}
	default:
		return nil, &FormatError{Offset: 0, Msg: fmt.Sprintf("unknown magic number %08x: not a pcap (a1b2c3d4, a1b23c4d), pcapng (0a0d0d0a) or NetMon (RTSS, GMBU) capture, nor an .etl trace", be)}
	}
	return rd, nil
}

// Format reports the container format.
func (r *Reader) Format() Format { return r.format }

// Compression names the compression the file was read through ("" for
// none); offsets then count decompressed bytes.
func (r *Reader) Compression() string { return r.compression }

// Labels returns the text a pcapng file gives about its writer and about
// interface iface: the section header's application, hardware, OS and
// comment, the interface's name, description and comment (none for pcap).
func (r *Reader) Labels(iface int) []string {
	if r.ng == nil {
		return nil
	}
	si := r.ng.SectionInfo()
	l := []string{si.Application, si.Hardware, si.OS, si.Comment}
	if in, err := r.ng.Interface(iface); err == nil {
		l = append(l, in.Name, in.Description, in.Comment)
	}
	return l
}

// Application is the writer a pcapng section header names (shb_userappl),
// "" for pcap and NetMon.
func (r *Reader) Application() string {
	if r.ng == nil {
		return ""
	}
	return r.ng.SectionInfo().Application
}

// Pos is the number of bytes consumed so far.
func (r *Reader) Pos() int64 {
	if r.nm != nil {
		return r.nm.pos
	}
	if r.gate != nil {
		return r.gate.pos - int64(r.gate.buf.Buffered())
	}
	pos := r.cr.n - int64(r.br.Buffered())
	if r.fast != nil {
		pos += int64(r.fast.used) // read from the window, not yet discarded
	}
	return pos
}

// Next reads the next record into rec. It returns io.EOF at the clean end
// of the file and a *FormatError when the file is cut off or corrupt.
func (r *Reader) Next(rec *Record) error {
	start := r.Pos()
	if r.nm != nil {
		if err := r.nm.read(rec); err != nil {
			return err
		}
		r.frame++
		rec.Frame = r.frame
		return nil
	}
	if r.old != nil {
		return r.nextOld(rec, start)
	}
	if r.fast != nil {
		return r.nextPcap24(rec, start)
	}
	return r.nextNg(rec, start)
}

func (r *Reader) nextNg(rec *Record, start int64) error {
	if f := r.ngf; !f.off && !f.broken {
		if r.nextNgFast(rec, start) {
			return nil
		}
		f.flush(r)
	}
	data, ci, opts, err := r.ng.ZeroCopyReadPacketDataWithOptions()
	if err != nil {
		r.ngf.broken = true
		if fe := r.failed(start); fe != nil {
			return fe
		}
		if r.gate.err != nil {
			return r.gate.err
		}
		switch {
		case err == io.EOF: // pcapgo says EOF only at a block boundary
			return io.EOF
		case errors.Is(err, io.ErrUnexpectedEOF):
			return &FormatError{Offset: start, Msg: "block ends early", Truncated: true}
		}
		return &FormatError{Offset: start, Msg: "corrupt block: " + err.Error()}
	}
	r.ngf.refill(r)
	r.frame++
	lt := r.linkType
	if len(ci.AncillaryData) > 0 {
		if l, ok := ci.AncillaryData[0].(layers.LinkType); ok {
			lt = l
		}
	}
	*rec = Record{Frame: r.frame, Offset: start, TimeNs: ci.Timestamp.UnixNano(), CapLen: ci.CaptureLength,
		OrigLen: ci.Length, LinkType: lt, Iface: ci.InterfaceIndex, Comments: opts.Comments, Data: data}
	if opts.PacketID != nil {
		rec.PacketID, rec.HasPacketID = *opts.PacketID, true
	}
	return nil
}
