package capture

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"time"

	"github.com/gopacket/gopacket/layers"

	"github.com/latlab/latlab/internal/infile"
	"github.com/latlab/latlab/internal/units"
)

// Microsoft Network Monitor capture files (.cap), versions 1.x and 2.x:
// what Network Monitor 2.x and 3.x write (3.x formats 2.1 to 2.3), laid out as
// Network Monitor 3.x's help describes the 2.x format and as Wireshark's
// wiretap/netmon.c reads both.
//
// A file starts with a fixed header (magic, version, media type, the
// capture's start as a local SYSTEMTIME, and the offset and length of a
// frame table); the frame table, at the end of the file, holds the
// 32-bit file offset of every record, in frame order. Each record is a
// header (time since the start, length on the wire, length captured), the
// frame, and from version 2.1 on a trailer with the frame's own media type
// (2.2 adds a process index, 2.3 a UTC FILETIME). Frames are read through
// the table, as Wireshark reads them: records need not follow one another
// and need not be in frame order.

// FormatNetMon is a Network Monitor capture.
const FormatNetMon Format = "netmon"

// The magic numbers: "RTSS" for 1.x, "GMBU" for 2.x.
const (
	netmonMagic1 = "RTSS"
	netmonMagic2 = "GMBU"
)

const (
	netmonHeaderLen = 64 // magic and the header fields (writers pad it to 128 bytes)
	netmonRec1Len   = 8  // 1.x record header: ms since the start (32 bits), lengths (16 bits each)
	netmonRec2Len   = 16 // 2.x: µs since the start (64 bits), lengths (32 bits each)
	netmonATMLen    = 16 // addresses, VPI and VCI before an ATM frame
	// netmonTableChunk is how many frame table entries are read at once:
	// the table is never held whole, whatever its size.
	netmonTableChunk = 4096
	// netmonWindow is the least read ahead when a record is fetched:
	// consecutive small records cost one read.
	netmonWindow = 64 << 10
)

// NetMon media types (the file header's network field and, from 2.1 on,
// each record's trailer), as wiretap maps them.
const (
	netmonNetEthernet0   = 0 // NetMon 3.4 VPN captures write 0 for Ethernet frames
	netmonNetEthernet    = 1
	netmonNetTokenRing   = 2
	netmonNetFDDI        = 3 // bit-swapped addresses
	netmonNetATM         = 4 // "NDIS WAN": ATM PDUs behind a 16-byte header
	netmonNetWLAN        = 6 // 802.11 behind NetMon's own radio header
	netmonNetTunnel      = 7 // tunnelling interfaces: raw IP
	netmonNetWWAN        = 8 // wireless WAN: raw IP
	netmonNetRawIP       = 9
	netmonNetPcapBase    = 0xe000 // 0xe000 | a pcap LINKTYPE: a converted pcap
	netmonNetWiFiMsg     = 0xe080 // Message Analyzer's "WiFi Message": 802.11
	netmonNetWFPFirst    = 0xe083 // Windows Filtering Platform captures (six kinds)
	netmonNetWFPLast     = 0xe088
	netmonNetEvent       = 0xffe0 // an ETW event
	netmonNetInfoEx      = 0xfffb // the adapters captured on
	netmonNetPayloadHdr  = 0xfffc // header of a frame NetMon reassembled: not a frame
	netmonNetInfo        = 0xfffd // the adapters (older form): not a frame
	netmonNetDNSCache    = 0xfffe // resolved addresses: not a frame
	netmonNetFilter      = 0xffff // the capture or display filter
	netmonNetMessageLast = 0xe08a
)

// Link types for NetMon's own encapsulations, which have no pcap
// LINKTYPE. They use the top of the 16-bit range, which no pcap link type
// reaches: NetMon's own values where it has them (0xe083-0xe088 and
// 0xffe0-0xffff), 0xff00 plus the media type for the header-carried ones.
const (
	linkTypeNetMonATM    layers.LinkType = 0xff00 | netmonNetATM
	linkTypeNetMonWLAN   layers.LinkType = 0xff00 | netmonNetWLAN
	linkTypeNetMonEvent  layers.LinkType = netmonNetEvent
	linkTypeNetMonInfoEx layers.LinkType = netmonNetInfoEx
	linkTypeNetMonFilter layers.LinkType = netmonNetFilter
	linkTypeTokenRing    layers.LinkType = 6 // LINKTYPE_IEEE802_5
)

// netmonLinkTypeName names NetMon's own link types ("" for others).
func netmonLinkTypeName(lt layers.LinkType) string {
	switch {
	case lt == linkTypeNetMonATM:
		return "netmon-atm"
	case lt == linkTypeNetMonWLAN:
		return "netmon-802.11"
	case lt == linkTypeNetMonEvent:
		return "netmon-event"
	case lt == linkTypeNetMonInfoEx:
		return "netmon-network-info"
	case lt == linkTypeNetMonFilter:
		return "netmon-filter"
	case lt >= netmonNetWFPFirst && lt <= netmonNetWFPLast:
		return "netmon-wfp"
	case lt == linkTypeTokenRing:
		return "token-ring"
	}
	return ""
}

// netmonLinkType maps a media type to a link type. skip: a record that
// is not a frame (Wireshark does not number it). An error: a media type
// Wireshark refuses, which ends the reading there.
func netmonLinkType(net uint16) (lt layers.LinkType, skip bool, err error) {
	switch net {
	case netmonNetEthernet0, netmonNetEthernet:
		return layers.LinkTypeEthernet, false, nil
	case netmonNetTokenRing:
		return linkTypeTokenRing, false, nil
	case netmonNetFDDI:
		return layers.LinkTypeFDDI, false, nil
	case netmonNetATM:
		return linkTypeNetMonATM, false, nil
	case netmonNetWLAN:
		return linkTypeNetMonWLAN, false, nil
	case netmonNetTunnel, netmonNetWWAN, netmonNetRawIP:
		return layers.LinkTypeRaw, false, nil
	case netmonNetWiFiMsg:
		return layers.LinkTypeIEEE802_11, false, nil
	case netmonNetEvent, netmonNetInfoEx, netmonNetFilter:
		return layers.LinkType(net), false, nil
	case netmonNetPayloadHdr, netmonNetInfo, netmonNetDNSCache:
		return 0, true, nil
	}
	switch {
	case net >= netmonNetWFPFirst && net <= netmonNetWFPLast:
		return layers.LinkType(net), false, nil
	case net >= netmonNetWiFiMsg && net <= netmonNetMessageLast:
		// Message Analyzer's other message types
	case net&0xf000 == netmonNetPcapBase:
		return layers.LinkType(net & 0x0fff), false, nil
	}
	return 0, false, fmt.Errorf("media type %#04x unknown (Ethernet, FDDI, raw IP, 802.11, converted pcap link types and NetMon's own records are read)", net)
}

// netmonReader reads the records of a NetMon file through its frame
// table, from a source read at offsets: the file itself when it can seek,
// else the whole (decompressed) file in memory.
type netmonReader struct {
	src          io.ReaderAt
	size         int64
	major, minor uint8
	fileLT       layers.LinkType // the header's media type (1.x and 2.0: every frame's)
	atm          bool            // 1.x or 2.0 with ATM frames: a header to take off
	startNs      int64           // the header's start time (local time, as tshark reads it)
	tableOff     int64
	entries      int64 // frame table entries
	next         int64 // the next entry to read
	tab          []byte
	tabFirst     int64 // entry index of tab[0]
	win          []byte
	winOff       int64
	winLen       int
	pos          int64 // end of the last record read
	// recBytes is the bytes of the records read so far, readBytes the
	// bytes read from the source: both are kept within a few times the
	// file's size, so that a frame table that names one record many
	// times cannot make the reading cost more than the file is long.
	recBytes, readBytes int64
}

// netmonLocation is the time zone the header's start time is read in:
// the local one, as tshark reads it (the file does not say which zone the
// writer was in). 2.3 files carry UTC times per frame, which win.
var netmonLocation = time.Local

// netmonReadErr is a failed read of the source: the file shrank, or an
// I/O error.
func netmonReadErr(off int64, err error) *FormatError {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		err = fmt.Errorf("the file ended early while it was read (did it shrink?)")
	}
	return &FormatError{Offset: off, Msg: err.Error(), Read: true}
}

// openNetMon reads and checks the file header of a NetMon file of size
// bytes.
func openNetMon(src io.ReaderAt, size int64) (*netmonReader, error) {
	if size < netmonHeaderLen {
		return nil, &FormatError{Offset: 0, Msg: fmt.Sprintf("NetMon file header (%d bytes) incomplete: the file has %d", netmonHeaderLen, size), Truncated: true}
	}
	h := make([]byte, netmonHeaderLen)
	if _, err := src.ReadAt(h, 0); err != nil {
		return nil, netmonReadErr(0, err)
	}
	n := &netmonReader{src: src, size: size, minor: h[4], major: h[5]}
	u16 := func(i int) uint16 { return binary.LittleEndian.Uint16(h[i:]) }
	u32 := func(i int) uint32 { return binary.LittleEndian.Uint32(h[i:]) }
	// The version, not the magic, says how records are laid out, as
	// Wireshark reads them.
	if n.major != 1 && n.major != 2 {
		return nil, &FormatError{Offset: 5, Msg: fmt.Sprintf("NetMon version %d.%d: versions 1.x and 2.x are read", n.major, n.minor)}
	}
	net := u16(6)
	lt, skip, err := netmonLinkType(net)
	if err != nil || skip || net > netmonNetRawIP {
		return nil, &FormatError{Offset: 6, Msg: fmt.Sprintf("NetMon file header: media type %d unknown (0-4, 6-9 are read)", net)}
	}
	n.fileLT, n.atm = lt, net == netmonNetATM && (n.major == 1 || n.minor == 0)
	// SYSTEMTIME: year, month, day of week, day, hour, minute, second,
	// millisecond. Out-of-range fields roll over, as mktime rolls them.
	start := time.Date(int(u16(8)), time.Month(u16(10)), int(u16(14)), int(u16(16)), int(u16(18)), int(u16(20)), 0, netmonLocation)
	n.startNs = start.UnixNano() + int64(u16(22))*int64(time.Millisecond)

	n.tableOff = int64(u32(24))
	tlen := int64(u32(28))
	switch {
	case tlen == 0 || tlen%4 != 0:
		return nil, &FormatError{Offset: 28, Msg: fmt.Sprintf("NetMon frame table length %d: must be a positive multiple of 4", tlen)}
	case n.tableOff+tlen > size:
		return nil, &FormatError{Offset: 24, Msg: fmt.Sprintf("NetMon frame table at byte %d (%d bytes) ends past the end of the file (%d bytes): the file is cut off or damaged",
			n.tableOff, tlen, size)}
	}
	// The table fits in the file, so it has at most size/4 entries; it
	// is read a chunk at a time, never whole.
	n.entries = tlen / 4
	n.pos = netmonHeaderLen
	return n, nil
}

// entry returns the file offset frame table entry i holds.
func (n *netmonReader) entry(i int64) (int64, error) {
	if i < n.tabFirst || i >= n.tabFirst+int64(len(n.tab)/4) {
		k := min(n.entries-i, netmonTableChunk)
		if cap(n.tab) < int(k)*4 {
			n.tab = make([]byte, netmonTableChunk*4)
		}
		n.tab = n.tab[:k*4]
		if _, err := n.src.ReadAt(n.tab, n.tableOff+i*4); err != nil {
			n.tab = n.tab[:0]
			return 0, netmonReadErr(n.tableOff+i*4, err)
		}
		n.tabFirst = i
	}
	j := (i - n.tabFirst) * 4
	return int64(binary.LittleEndian.Uint32(n.tab[j:])), nil
}

// at returns the k bytes at off (which the caller has checked lie in the
// file), valid until the next call.
func (n *netmonReader) at(off int64, k int) ([]byte, error) {
	if off >= n.winOff && off+int64(k) <= n.winOff+int64(n.winLen) {
		s := int(off - n.winOff)
		return n.win[s : s+k], nil
	}
	l := k
	if n.readBytes < 2*n.size { // read ahead while that costs at most twice the file
		l = int(min(int64(max(k, netmonWindow)), n.size-off))
	}
	n.readBytes += int64(l)
	if cap(n.win) < l {
		n.win = make([]byte, max(l, netmonWindow))
	}
	n.win = n.win[:cap(n.win)]
	if _, err := n.src.ReadAt(n.win[:l], off); err != nil {
		n.winLen = 0
		return nil, netmonReadErr(off, err)
	}
	n.winOff, n.winLen = off, l
	return n.win[:k], nil
}

// trailerLen is the length of the trailer after each frame.
func (n *netmonReader) trailerLen() int {
	switch {
	case n.major == 1 || n.minor == 0:
		return 0
	case n.minor == 1:
		return 2 // media type
	case n.minor == 2:
		return 6 // and process index
	}
	return 15 // and a UTC FILETIME and a time zone index
}

// read reads the next frame into rec (all but its number). It returns
// io.EOF after the last entry of the frame table.
func (n *netmonReader) read(rec *Record) error {
	for {
		if n.next >= n.entries {
			n.pos = n.size
			return io.EOF
		}
		ent := n.tableOff + n.next*4
		off, err := n.entry(n.next)
		if err != nil {
			return err
		}
		n.next++
		skip, err := n.record(ent, off, rec)
		if err != nil || !skip {
			return err
		}
	}
}

// record reads the record at off, which frame table entry ent points to.
// skip: a record that is not a frame.
func (n *netmonReader) record(ent, off int64, rec *Record) (skip bool, err error) {
	hl := netmonRec2Len
	if n.major == 1 {
		hl = netmonRec1Len
	}
	if off+int64(hl) > n.size {
		if off >= n.size {
			return false, &FormatError{Offset: ent, Msg: fmt.Sprintf("frame table entry %d points to byte %d, past the end of the file (%d bytes)", n.next, off, n.size)}
		}
		return false, &FormatError{Offset: off, Msg: "record header ends at the end of the file", Truncated: true}
	}
	h, err := n.at(off, hl)
	if err != nil {
		return false, err
	}
	var deltaNs int64
	var orig, incl int
	if n.major == 1 {
		deltaNs = int64(binary.LittleEndian.Uint32(h)) * int64(time.Millisecond)
		orig, incl = int(binary.LittleEndian.Uint16(h[4:])), int(binary.LittleEndian.Uint16(h[6:]))
	} else {
		// Microseconds, unsigned by the documentation, yet Network
		// Monitor reads ten times the value as a signed count of 100 ns
		// (a frame time before the start); so does Wireshark.
		deltaNs = int64(binary.LittleEndian.Uint64(h)*10) * 100
		orig, incl = int(binary.LittleEndian.Uint32(h[8:])), int(binary.LittleEndian.Uint32(h[12:]))
	}
	if uint(incl) > maxPcapRecord {
		return false, &FormatError{Offset: off, Msg: fmt.Sprintf("record of %d bytes captured, more than the largest frame read (%d bytes)", incl, maxPcapRecord)}
	}
	tl := n.trailerLen()
	if end := off + int64(hl+incl+tl); end > n.size {
		return false, &FormatError{Offset: off, Msg: fmt.Sprintf("record of %d bytes (with its %d-byte header and %d-byte trailer) ends past the end of the file", hl+incl+tl, hl, tl), Truncated: true}
	}
	// Records do not overlap in a file Network Monitor wrote, so together
	// they are no longer than the file.
	if n.recBytes += int64(hl + incl + tl); n.recBytes > n.size {
		return false, &FormatError{Offset: ent, Msg: fmt.Sprintf("frame table entry %d points to byte %d, a record read before: together the records the table names are longer than the file (%d bytes)", n.next, off, n.size)}
	}
	b, err := n.at(off, hl+incl+tl)
	if err != nil {
		return false, err
	}
	data, trl := b[hl:hl+incl], b[hl+incl:]
	lt := n.fileLT
	ts := n.startNs + deltaNs
	if tl > 0 {
		var skip bool
		if lt, skip, err = netmonLinkType(binary.LittleEndian.Uint16(trl)); err != nil {
			return false, &FormatError{Offset: off + int64(hl+incl), Msg: "record trailer: " + err.Error()}
		}
		if skip {
			return true, nil
		}
		if tl >= 14 {
			ft := binary.LittleEndian.Uint64(trl[6:])
			var ok bool
			if ts, ok = filetimeNs(ft); !ok {
				return false, &FormatError{Offset: off + int64(hl+incl) + 6, Msg: fmt.Sprintf("record time stamp (FILETIME %d) outside the years 1678 to 2262", ft)}
			}
		}
	}
	if n.atm {
		if incl < netmonATMLen {
			return false, &FormatError{Offset: off, Msg: fmt.Sprintf("ATM record of %d bytes, shorter than its %d-byte ATM header", incl, netmonATMLen)}
		}
		data, orig = data[netmonATMLen:], max(orig-netmonATMLen, 0)
	}
	*rec = Record{Offset: off, TimeNs: ts, CapLen: len(data), OrigLen: orig, LinkType: lt, Data: data}
	n.pos = off + int64(hl+incl+tl)
	return false, nil
}

// filetimeNs converts a FILETIME (100 ns units since 1601) to ns since
// the Unix epoch; ok is false outside int64 nanoseconds.
func filetimeNs(ft uint64) (int64, bool) {
	const epochDiff = 116444736000000000 // 1601 to 1970 in 100 ns units
	const maxUnits = (1<<63 - 1) / 100
	if ft >= epochDiff {
		if u := ft - epochDiff; u <= maxUnits {
			return int64(u) * 100, true
		}
		return 0, false
	}
	if u := epochDiff - ft; u <= maxUnits {
		return -int64(u) * 100, true
	}
	return 0, false
}

// netmonWLAN decodes an 802.11 frame behind NetMon's radio header, whose
// third and second bytes give its length; Wireshark goes to that length
// whatever the header holds.
func (d *Decoder) netmonWLAN(b []byte, rep int, p *Packet) Skip {
	if len(b) < 3 {
		return SkipSnaplenLink
	}
	hl := int(binary.LittleEndian.Uint16(b[1:3]))
	if len(b) < hl {
		return SkipSnaplenLink
	}
	return d.wlan(b[hl:], rep-hl, p)
}

// seekReaderAt reads a seekable file at offsets from base.
type seekReaderAt struct {
	rs   io.ReadSeeker
	base int64
}

func (s *seekReaderAt) ReadAt(p []byte, off int64) (int, error) {
	if _, err := s.rs.Seek(s.base+off, io.SeekStart); err != nil {
		return 0, err
	}
	return io.ReadFull(s.rs, p)
}

// netmonSource returns the file being read as a source of bytes at
// offsets, and its size: the file itself when it is uncompressed and can
// seek (the frame table is at its end), else the file (after
// decompression) copied to a temporary file, up to limit bytes, which
// Close removes. Either way the memory the reading takes does not grow
// with the capture: a 900 MiB capture read whole used to cost 2.1 GB,
// compressed to 30 KB or not.
func (r *Reader) netmonSource(in io.Reader, limit int64) (io.ReaderAt, int64, error) {
	if rs, ok := in.(io.ReadSeeker); ok && r.compression == "" {
		cur, err := rs.Seek(0, io.SeekCurrent)
		if err == nil {
			base := cur - r.file.n // where the capture starts
			end, err2 := rs.Seek(0, io.SeekEnd)
			if err2 == nil && end >= base {
				return &seekReaderAt{rs: rs, base: base}, end - base, nil
			}
		}
	}
	tmp, err := os.CreateTemp("", "latlab-netmon-*.cap")
	if err != nil {
		return nil, 0, fmt.Errorf("a NetMon file that cannot seek (compressed, or a pipe) is copied to a temporary file first: %w", err)
	}
	r.tmp = tmp
	// Gone from the directory at once where the OS allows it (Linux);
	// elsewhere Close removes it.
	if os.Remove(tmp.Name()) == nil {
		r.tmpRemoved = true
	}
	n, err := io.Copy(tmp, io.LimitReader(r.br, limit+1))
	if err != nil {
		if fe := r.failed(n); fe != nil {
			return nil, 0, fe
		}
		var pe *fs.PathError
		if errors.As(err, &pe) && pe.Path == tmp.Name() {
			return nil, 0, fmt.Errorf("copy the NetMon file to %s: %w", tmp.Name(), err)
		}
		return nil, 0, &FormatError{Offset: n, Msg: err.Error(), Read: true}
	}
	if n > limit {
		return nil, 0, &FormatError{Offset: limit, Msg: fmt.Sprintf("a NetMon file that cannot seek (compressed, or a pipe) is copied whole to a temporary file, and this one is more than the %s cap on input files (%s raises it)",
			units.Size(limit), infile.MaxFlag), Read: true}
	}
	return tmp, n, nil
}

// Close releases what the reading holds: the temporary copy of a NetMon
// file that could not be read in place. The Reader reads nothing after.
func (r *Reader) Close() error {
	if r.tmp == nil {
		return nil
	}
	err := r.tmp.Close()
	if !r.tmpRemoved {
		if rerr := os.Remove(r.tmp.Name()); err == nil {
			err = rerr
		}
	}
	r.tmp = nil
	return err
}
