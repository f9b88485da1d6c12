package etl

import (
	"encoding/binary"
	"fmt"
	"io"
	"time"

	"github.com/latlab/latlab/internal/badinput"
)

// Packet capture events. Their layouts are the templates of the
// providers' manifests (as etl-parser's generated parsers and Microsoft's
// etl2pcapng read them):
//
//   - Microsoft-Windows-NDIS-PacketCapture (netsh trace capture=yes)
//     event 1001 PacketFragment: MiniportIfIndex, LowerIfIndex,
//     FragmentSize (UInt32 each), Fragment (FragmentSize bytes). A frame
//     larger than one event spans several: the keywords mark the first
//     (0x40000000) and the last (0x80000000) fragment, and say the medium
//     (0x10000 native 802.11, 0x200 wireless WAN: raw IP; else Ethernet).
//   - Microsoft-Windows-PktMon (pktmon start --capture) event 160 Packet:
//     PktGroupId (UInt64), PktNumber, AppearanceCount, DirTag, PacketType,
//     ComponentId, EdgeId, FilterId (UInt16 each), DropReason,
//     DropLocation (UInt32 each), OriginalPayloadSize, LoggedPayloadSize
//     (UInt16 each), Payload. PacketType (PKTMON_PACKET_TYPE): 1 Ethernet,
//     2 Wi-Fi, 3 IP. Event 170 is the same for a dropped packet.
const (
	ndisFragmentID = 1001
	pktmonPacketID = 160
	pktmonDropID   = 170
	kwMediaWWAN    = 0x200
	kwMedia80211   = 0x10000
	kwPacketStart  = 0x40000000
	kwPacketEnd    = 0x80000000
	maxPacket      = 262144 // the largest snap length pcap readers take
	// Unfinished NDIS frames are held per interface until their last
	// fragment: at most one per interface (a new first fragment drops the
	// one before), maxPacket bytes each, and these in all.
	maxPendingIfaces = 256
	maxPendingBytes  = 16 << 20
	linkEthernet     = 1
	linkRaw          = 101
	linkIEEE80211    = 105
	pktmonTypeEther  = 1
	pktmonTypeWiFi   = 2
	pktmonTypeIP     = 3
	pktmonHeaderSize = 8 + 7*2 + 2*4 + 2*2
)

// Packet is one frame of a packet capture event.
type Packet struct {
	Time     time.Time
	LinkType uint16 // pcap link type
	// Iface names where the frame was seen: "ndis if 12" or
	// "pktmon component 7".
	Iface   string
	OrigLen int
	Data    []byte
	// PktMon: the packet's group id (the same at every component it
	// passes) and its metadata in etl2txt's words.
	GroupID  uint64
	HasGroup bool
	Comment  string
}

// PacketCounts says what the packet events held.
type PacketCounts struct {
	NDIS, PktMon int // frames
	Skipped      int // events that held no frame latlab reads (other media, damaged)
	SkipReason   string
	// Notes say what could not be read: packet events skipped, damaged
	// buffers.
	Notes []string
}

// IsPacketEvent reports whether an event carries a packet: NDIS-PacketCapture
// 1001 (a fragment of a frame) or PktMon 160 and 170 (a packet, a dropped
// packet). pktmon's component and configuration events carry none.
func IsPacketEvent(rec *Record) bool {
	return rec.Kind == HeaderEvent &&
		(rec.Provider == NDISPacketCaptureGUID && rec.ID == ndisFragmentID ||
			rec.Provider == PktMonGUID && (rec.ID == pktmonPacketID || rec.ID == pktmonDropID))
}

// Packets calls fn for every frame of the trace's NDIS-PacketCapture and
// PktMon events, in file order. A packet's bytes are valid until fn
// returns.
func Packets(r io.Reader, fn func(*Packet) error) (*Reader, PacketCounts, error) {
	rd := NewReader(r)
	var pc PacketCounts
	var headerTS int64
	haveHeader := false
	pending := map[uint32][]byte{} // NDIS fragments of an unfinished frame, by interface
	pendingBytes := 0
	drop := func(ifx uint32) {
		pendingBytes -= len(pending[ifx])
		delete(pending, ifx)
	}
	skip := func(why string) {
		pc.Skipped++
		if pc.SkipReason == "" {
			pc.SkipReason = why
		}
	}
	wall := func(ts int64) time.Time {
		lf := rd.Logfile
		f := lf.Frequency()
		if f <= 0 {
			return lf.StartTime
		}
		d := ts - headerTS
		return lf.StartTime.Add(time.Duration(d/f)*time.Second + time.Duration(d%f)*time.Second/time.Duration(f))
	}
	providerEvents := 0 // events of the two packet providers, packets or not
	err := rd.Walk(func(rec *Record) error {
		if !haveHeader {
			headerTS, haveHeader = rec.Timestamp, true
		}
		if rec.Kind != HeaderEvent {
			return nil
		}
		if rec.Provider == NDISPacketCaptureGUID || rec.Provider == PktMonGUID {
			providerEvents++
		}
		le := binary.LittleEndian
		switch {
		case rec.Provider == NDISPacketCaptureGUID && rec.ID == ndisFragmentID:
			b := rec.Data
			if len(b) < 12 || int(le.Uint32(b[8:])) > len(b)-12 {
				skip(fmt.Sprintf("NDIS fragment at offset %d is cut short", rec.Offset))
				return nil
			}
			ifx := le.Uint32(b)
			frag := b[12 : 12+int(le.Uint32(b[8:]))]
			kw := rec.Keyword
			if kw&kwPacketStart != 0 {
				drop(ifx)
			}
			if kw&kwPacketEnd == 0 {
				if kw&kwPacketStart != 0 || pending[ifx] != nil {
					if len(pending[ifx])+len(frag) > maxPacket {
						drop(ifx)
						skip(fmt.Sprintf("NDIS frame at offset %d spans more than %d bytes", rec.Offset, maxPacket))
						return nil
					}
					if pending[ifx] == nil && len(pending) >= maxPendingIfaces || pendingBytes+len(frag) > maxPendingBytes {
						skip(fmt.Sprintf("NDIS fragment at offset %d: more than %d interfaces or %d bytes of unfinished frames", rec.Offset, maxPendingIfaces, maxPendingBytes))
						return nil
					}
					pending[ifx] = append(pending[ifx], frag...)
					pendingBytes += len(frag)
					return nil
				}
			} else if p := pending[ifx]; p != nil {
				frag = append(p, frag...)
				drop(ifx)
			}
			lt := uint16(linkEthernet)
			switch {
			case kw&kwMedia80211 != 0:
				lt = linkIEEE80211
			case kw&kwMediaWWAN != 0:
				lt = linkRaw
			}
			pc.NDIS++
			return fn(&Packet{Time: wall(rec.Timestamp), LinkType: lt, Iface: fmt.Sprintf("ndis if %d", ifx), OrigLen: len(frag), Data: frag})
		case rec.Provider == PktMonGUID && (rec.ID == pktmonPacketID || rec.ID == pktmonDropID):
			b := rec.Data
			if len(b) < pktmonHeaderSize {
				skip(fmt.Sprintf("pktmon event at offset %d is cut short", rec.Offset))
				return nil
			}
			group := le.Uint64(b)
			num, app, dir, typ, comp := le.Uint16(b[8:]), le.Uint16(b[10:]), le.Uint16(b[12:]), le.Uint16(b[14:]), le.Uint16(b[16:])
			orig, logged := int(le.Uint16(b[30:])), int(le.Uint16(b[32:]))
			if logged > len(b)-pktmonHeaderSize {
				skip(fmt.Sprintf("pktmon event at offset %d says %d payload bytes, holds %d", rec.Offset, logged, len(b)-pktmonHeaderSize))
				return nil
			}
			var lt uint16
			switch typ {
			case pktmonTypeEther:
				lt = linkEthernet
			case pktmonTypeWiFi:
				lt = linkIEEE80211
			case pktmonTypeIP:
				lt = linkRaw
			default:
				skip(fmt.Sprintf("pktmon packet type %d (not Ethernet, Wi-Fi or IP)", typ))
				return nil
			}
			pc.PktMon++
			comment := fmt.Sprintf("PktGroupId %d, PktNumber %d, Appearance %d, Direction %d, Type %d, Component %d", group, num, app, dir, typ, comp)
			if rec.ID == pktmonDropID {
				comment += ", Drop"
			}
			return fn(&Packet{Time: wall(rec.Timestamp), LinkType: lt, Iface: fmt.Sprintf("pktmon component %d", comp),
				OrigLen: max(orig, logged), Data: b[pktmonHeaderSize : pktmonHeaderSize+logged], GroupID: group, HasGroup: true, Comment: comment})
		}
		return nil
	})
	if len(pending) > 0 {
		skip("an NDIS frame whose last fragment is missing")
	}
	switch {
	case err != nil:
	case pc.Skipped > 0 && pc.NDIS+pc.PktMon == 0:
		// A packet trace none of whose packets could be read is not an
		// empty capture.
		err = badinput.Errorf("none of its %d packet events holds a frame latlab reads; the first: %s", pc.Skipped, pc.SkipReason)
	case providerEvents == 0:
		// Nor is a trace of other providers (a kernel trace): a capture
		// that saw no traffic still holds the providers' other events.
		err = badinput.Errorf("an .etl trace without NDIS-PacketCapture or PktMon events, so no packets: packet traces are those of 'netsh trace start capture=yes' and 'pktmon start --capture' ('latlab etl FILE' lists what this one holds)")
	}
	if pc.Skipped > 0 {
		pc.Notes = append(pc.Notes, fmt.Sprintf("%d packet events hold no frame latlab reads; the first: %s", pc.Skipped, pc.SkipReason))
	}
	if u := rd.Unreadable(); u != "" {
		pc.Notes = append(pc.Notes, "the .etl trace: "+u)
	}
	return rd, pc, err
}

// WritePcapng writes the trace's packets as a pcapng stream (one
// interface per NDIS interface or pktmon component, nanosecond time
// stamps, pktmon's group id as the packet id and its metadata as the
// packet comment, as etl2pcapng converts them), so that the capture
// reader takes them like any capture.
func WritePcapng(r io.Reader, w io.Writer) (PacketCounts, error) {
	pw := &pcapngWriter{w: w, ifaces: map[string]uint32{}}
	_, pc, err := Packets(r, func(p *Packet) error {
		pw.section()
		id := pw.iface(p.Iface, p.LinkType)
		ns := uint64(p.Time.UnixNano())
		pw.block(6, func(b []byte) []byte {
			le := binary.LittleEndian
			b = le.AppendUint32(b, id)
			b = le.AppendUint32(b, uint32(ns>>32))
			b = le.AppendUint32(b, uint32(ns))
			b = le.AppendUint32(b, uint32(len(p.Data)))
			b = le.AppendUint32(b, uint32(p.OrigLen))
			b = append(b, p.Data...)
			b = pad4(b)
			if p.Comment != "" {
				b = option(b, 1, []byte(p.Comment))
			}
			if p.HasGroup {
				b = option(b, 5, le.AppendUint64(nil, p.GroupID)) // epb_packetid
			}
			return option(b, 0, nil)
		})
		return pw.err
	})
	if err == nil {
		pw.section() // a capture of no packets
		err = pw.err
	}
	return pc, err
}

type pcapngWriter struct {
	w       io.Writer
	buf     []byte
	ifaces  map[string]uint32
	err     error
	started bool
}

// section writes the section header block, once. It waits for the first
// packet (or the end of a trace read whole): a trace that fails before
// any packet then fails the stream at its first byte, an unreadable file
// to the capture reader, not a capture that breaks off after its header.
func (pw *pcapngWriter) section() {
	if pw.started {
		return
	}
	pw.started = true
	pw.block(0x0a0d0d0a, func(b []byte) []byte {
		b = binary.LittleEndian.AppendUint32(b, 0x1a2b3c4d)
		b = binary.LittleEndian.AppendUint16(b, 1)
		b = binary.LittleEndian.AppendUint16(b, 0)
		b = binary.LittleEndian.AppendUint64(b, ^uint64(0)) // section length unknown
		b = option(b, 4, []byte("latlab etl"))              // shb_userappl
		return option(b, 0, nil)
	})
}

func (pw *pcapngWriter) iface(name string, lt uint16) uint32 {
	key := fmt.Sprintf("%s/%d", name, lt)
	if id, ok := pw.ifaces[key]; ok {
		return id
	}
	id := uint32(len(pw.ifaces))
	pw.ifaces[key] = id
	pw.block(1, func(b []byte) []byte {
		b = binary.LittleEndian.AppendUint16(b, lt)
		b = binary.LittleEndian.AppendUint16(b, 0)
		b = binary.LittleEndian.AppendUint32(b, 0) // snaplen: none
		b = option(b, 2, []byte(name))             // if_name
		b = option(b, 9, []byte{9})                // if_tsresol: nanoseconds
		return option(b, 0, nil)
	})
	return id
}

// block writes one pcapng block of type typ whose body body appends.
func (pw *pcapngWriter) block(typ uint32, body func([]byte) []byte) {
	if pw.err != nil {
		return
	}
	le := binary.LittleEndian
	b := le.AppendUint32(pw.buf[:0], typ)
	b = le.AppendUint32(b, 0)
	b = body(b)
	n := uint32(len(b) + 4)
	le.PutUint32(b[4:], n)
	b = le.AppendUint32(b, n)
	pw.buf = b
	_, pw.err = pw.w.Write(b)
}

func option(b []byte, code uint16, v []byte) []byte {
	b = binary.LittleEndian.AppendUint16(b, code)
	b = binary.LittleEndian.AppendUint16(b, uint16(len(v)))
	return pad4(append(b, v...))
}

func pad4(b []byte) []byte {
	for len(b)%4 != 0 {
		b = append(b, 0)
	}
	return b
}
