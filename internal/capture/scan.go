package capture

import (
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gopacket/gopacket/layers"
)

// DedupMode selects duplicate suppression.
type DedupMode string

// Dedup modes. Auto drops copies only in a capture that shows it comes
// from pktmon, which logs one packet once per component it passes
// (pktmonMark); any other capture is read as tshark reads it, copies and
// all, since copies there (SPAN ports, bridges) are part of what was
// captured.
const (
	DedupAuto DedupMode = "auto"
	DedupOn   DedupMode = "on"
	DedupOff  DedupMode = "off"
)

// ParseDedupMode accepts auto, on/true, off/false.
func ParseDedupMode(s string) (DedupMode, error) {
	switch strings.ToLower(s) {
	case "auto", "":
		return DedupAuto, nil
	case "on", "true", "yes", "1":
		return DedupOn, nil
	case "off", "false", "no", "0":
		return DedupOff, nil
	}
	return "", fmt.Errorf("want auto, on or off")
}

// ScanOptions configure Scan.
type ScanOptions struct {
	Dedup DedupMode
	// DedupWindow is how close in time two identical IP packets must be
	// to count as one packet seen twice (default 1ms). pktmon writes the
	// copies of one packet microseconds apart; a real retransmission comes
	// at least a round trip later and differs in the IPv4 ID or the TCP
	// timestamp.
	DedupWindow time.Duration
	// Context, if set, stops the scan when it is done (Ctrl-C): Stats
	// then says Interrupted and covers the frames read until then.
	Context context.Context
	// MaxBytes caps the decompressed bytes of a compressed capture
	// (default infile.Max(), which --max-input-size sets): reading stops
	// there with a ReadError.
	MaxBytes int64
}

// DefaultDedupWindow is the default ScanOptions.DedupWindow.
const DefaultDedupWindow = time.Millisecond

// Stats counts what a scan saw, analysed and skipped.
type Stats struct {
	Format      Format         `json:"format"`
	Gzipped     bool           `json:"gzipped,omitempty"`     // Compression is gzip (kept for earlier readers)
	Compression string         `json:"compression,omitempty"` // gzip, zstd or lz4: the file was read through it
	Frames      int            `json:"frames"`
	FileBytes   int64          `json:"file_bytes"`
	IPPackets   int            `json:"ip_packets"`
	Skipped     map[string]int `json:"skipped,omitempty"`
	LinkTypes   map[string]int `json:"link_types"`
	Fragments   int            `json:"ip_fragments,omitempty"`
	Reassembled int            `json:"ip_reassembled,omitempty"`          // datagrams reassembled from fragments
	Incomplete  int            `json:"ip_fragments_incomplete,omitempty"` // datagrams with fragments missing
	SnaplenCut  int            `json:"snaplen_cut,omitempty"`             // frames captured shorter than on the wire
	LenBelowCap int            `json:"len_below_caplen,omitempty"`        // frames claiming fewer bytes on the wire than captured
	L4Cut       int            `json:"transport_cut,omitempty"`           // transport header not fully captured
	L4Malformed int            `json:"transport_malformed,omitempty"`
	Duplicates  int            `json:"duplicates"` // identical IP packets within the dedup window, looked for only when Dedup (then = Dropped)
	Dedup       bool           `json:"dedup"`      // duplicates were dropped
	DedupReason string         `json:"dedup_reason,omitempty"`
	Dropped     int            `json:"dropped_duplicates"` // copies dropped (Dedup): not analysed
	FirstNs     int64          `json:"first_ns"`
	LastNs      int64          `json:"last_ns"`
	ReadError   *FormatError   `json:"read_error,omitempty"` // where reading stopped early
	Comments    int            `json:"packets_with_comments,omitempty"`
	Interrupted bool           `json:"interrupted,omitempty"` // the scan was stopped (ScanOptions.Context)
	// ETLNotes say what an .etl trace's conversion could not read.
	ETLNotes []string `json:"etl_notes,omitempty"`
}

// Notes turns the counters into sentences for the reader.
func (s *Stats) Notes() []string {
	n := append([]string(nil), s.ETLNotes...)
	if s.Dedup {
		n = append(n, fmt.Sprintf("duplicates dropped: %d copies of packets seen just before were not analysed (%s); --dedup off keeps them", s.Dropped, s.DedupReason))
	}
	keys := make([]string, 0, len(s.Skipped))
	for k := range s.Skipped {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		l := fmt.Sprintf("%d frames skipped: %s", s.Skipped[k], k)
		if k == SkipWiFiAsEthernet.String() {
			l += " (data frames carrying IP, as pktmon etl2pcap writes a Wi-Fi adapter's packets; tshark does not read them as IP either; editcap -T ieee-802-11 relabels a file of only such frames)"
		}
		n = append(n, l)
	}
	if s.Fragments > 0 {
		n = append(n, fmt.Sprintf("%d IP fragments: %d datagrams reassembled, each in the frame of the fragment that completes it; %d incomplete",
			s.Fragments, s.Reassembled, s.Incomplete))
	}
	if s.SnaplenCut > 0 {
		n = append(n, fmt.Sprintf("%d frames cut by the snap length: lengths are taken from the IP header", s.SnaplenCut))
	}
	if s.LenBelowCap > 0 {
		n = append(n, fmt.Sprintf("%d frames claim fewer bytes on the wire than were captured, which tshark flags as malformed (\"Frame length is less than captured length\"); read whole, as tshark reads them", s.LenBelowCap))
	}
	if s.L4Cut > 0 {
		n = append(n, fmt.Sprintf("%d packets cut before the end of their transport header: counted without ports", s.L4Cut))
	}
	if s.L4Malformed > 0 {
		n = append(n, fmt.Sprintf("%d packets with a malformed transport header", s.L4Malformed))
	}
	if s.Interrupted {
		n = append(n, fmt.Sprintf("interrupted after %d frames: the results cover only those", s.Frames))
	}
	if s.ReadError != nil {
		if s.ReadError.Truncated {
			n = append(n, fmt.Sprintf("the file ends inside the record at byte %d (a capture cut off); everything before it was analysed", s.ReadError.Offset))
		} else {
			n = append(n, fmt.Sprintf("reading stopped at byte %d: %s; the %d frames before it were analysed", s.ReadError.Offset, s.ReadError.Msg, s.Frames))
		}
	}
	return n
}

// Handler receives each analysed frame. rec and p are only valid during
// the call.
type Handler func(rec *Record, p *Packet)

// Scan reads a capture and calls fn for every frame that decodes to IPv4 or
// IPv6. A file whose header cannot be read returns a *FormatError. A file
// that is cut off or corrupt later returns the stats with ReadError set:
// everything before the bad record was analysed. So does a scan stopped
// through opt.Context, with Interrupted set.
func Scan(r io.Reader, opt ScanOptions, fn Handler) (*Stats, error) {
	st, _, err := runScan(r, opt, fn)
	return st, err
}

// runScan is Scan that also returns its scanner, whose look-ahead tests
// inspect.
func runScan(r io.Reader, opt ScanOptions, fn Handler) (*Stats, *scanner, error) {
	r, isETL, stopETL := fromETL(r)
	defer stopETL()
	rd, err := newReader(r, opt.MaxBytes)
	if err != nil {
		return nil, nil, err
	}
	defer rd.Close()
	if opt.DedupWindow <= 0 {
		opt.DedupWindow = DefaultDedupWindow
	}
	if opt.Dedup == "" {
		opt.Dedup = DedupAuto
	}
	st := &Stats{Format: rd.Format(), Compression: rd.Compression(), Gzipped: rd.Compression() == CompressionGzip, Skipped: map[string]int{}, LinkTypes: map[string]int{}}
	if isETL {
		st.Format = FormatETL
	}
	s := &scanner{st: st, fn: fn, dd: newDedup(opt.DedupWindow), mode: opt.Dedup, rd: rd}
	if opt.Dedup == DedupOn {
		st.Dedup, st.DedupReason = true, "--dedup on"
	}
	var done <-chan struct{}
	if opt.Context != nil {
		done = opt.Context.Done()
	}
	var rec Record
	for n := 0; ; n++ {
		// Every interruptCheck records: a look at the channel for each
		// was 1.7% of pcap tcp's instructions. A run stops at most that
		// many records after it is cancelled.
		if n%interruptCheck == 0 && closed(done) {
			st.Interrupted = true
			break
		}
		err := rd.Next(&rec)
		if err != nil {
			if !errors.Is(err, io.EOF) {
				var fe *FormatError
				if errors.As(err, &fe) {
					st.ReadError = fe
				} else {
					s.countLinkType()
					return st, s, err
				}
			}
			break
		}
		s.record(&rec)
	}
	s.flush()
	s.countLinkType()
	st.ETLNotes = stopETL()
	st.Incomplete = s.dec.frag.incomplete()
	st.FileBytes = rd.Pos()
	return st, s, nil
}

// closed reports whether done is closed, without waiting (a nil channel
// never is).
// interruptCheck is how many records the scan reads between looks at
// whether it was cancelled: a few microseconds of reading.
const interruptCheck = 64

func closed(done <-chan struct{}) bool {
	select {
	case <-done:
		return true
	default:
		return false
	}
}

// autoMaxFrames and autoMaxBytes bound the look-ahead of auto dedup: the
// records held back (copied) while their pcapng packet ids may still show
// one packet logged twice. Only records that carry a packet id are held,
// and never more than these, whatever the capture holds.
const (
	autoMaxFrames = 256
	autoMaxBytes  = 1 << 20
)

type scanner struct {
	st      *Stats
	fn      Handler
	dd      *dedup
	dec     Decoder
	pkt     Packet
	mode    DedupMode
	rd      *Reader
	decided bool
	held    []Record // copies, while undecided
	heldB   int      // bytes held (frame data)
	ids     map[uint64]int
	// peakFrames and peakBytes are the most ever held (tests).
	peakFrames, peakBytes int
	lt                    layers.LinkType // of the last frames, ltRun of them
	ltRun                 int             // not yet in Stats.LinkTypes
}

// countLinkType adds the run of frames of one link type to the stats.
func (s *scanner) countLinkType() {
	if s.ltRun > 0 {
		s.st.LinkTypes[linkTypeName(s.lt)] += s.ltRun
		s.ltRun = 0
	}
}

func (s *scanner) record(rec *Record) {
	st := s.st
	st.Frames++
	if st.Frames == 1 {
		st.FirstNs = rec.TimeNs
	}
	rec.StartNs = st.FirstNs
	if rec.TimeNs > st.LastNs {
		st.LastNs = rec.TimeNs
	}
	if len(rec.Comments) > 0 {
		st.Comments++
	}
	// Counted by runs of one link type, named when the run ends: a map
	// update with a string key for every frame cost 5% of the scan.
	if rec.LinkType != s.lt {
		s.countLinkType()
		s.lt = rec.LinkType
	}
	s.ltRun++
	if rec.CapLen < rec.OrigLen {
		st.SnaplenCut++
	}
	if rec.CapLen > rec.OrigLen {
		st.LenBelowCap++
	}
	if s.mode == DedupAuto && !s.decided {
		if why := s.pktmonMark(rec); why != "" {
			s.decide(why)
		} else if rec.HasPacketID && len(s.held) < autoMaxFrames && s.heldB+len(rec.Data) <= autoMaxBytes {
			s.hold(rec)
			return
		} else {
			s.decide("")
		}
	}
	s.process(rec)
}

// hold keeps a copy of rec (the reader reuses its buffers) until the
// decision.
func (s *scanner) hold(rec *Record) {
	cp := *rec
	cp.Data = append([]byte(nil), rec.Data...)
	if len(rec.Comments) > 0 {
		cp.Comments = append([]string(nil), rec.Comments...)
	}
	s.held = append(s.held, cp)
	s.heldB += len(cp.Data)
	s.peakFrames = max(s.peakFrames, len(s.held))
	s.peakBytes = max(s.peakBytes, s.heldB)
}

// pktmonApplication is the application pktmon's own pcapng converter
// writes in the section header (shb_userappl): Windows calls pktmon
// "Packet Monitor".
const pktmonApplication = "Packet Monitor"

// pktmonMark says why rec shows that the capture comes from pktmon
// (Windows' Packet Monitor), or "" when it does not:
//   - the writer or the interface names pktmon (pcapng section header or
//     interface description: application, hardware, OS, name, comment);
//   - the section header names pktmon's own converter: `pktmon etl2pcap`
//     writes "Packet Monitor" as the application, and nothing else that
//     would mark the file: one Ethernet interface with no name, packets
//     with no comment or id (a real file, dolphin2410-archive/gdn
//     backup.pcapng; see testdata/PROVENANCE);
//   - a packet comment in pktmon's metadata format ("PktGroupId 123,
//     PktNumber 1, Appearance 1, ..., Component 15, ...", as etl2txt prints it);
//   - a pcapng packet id seen on an earlier record: the pcapng
//     specification gives one packet seen at several points one id, and
//     etl2pcapng (1.12 and later) converts pktmon logs so, one interface
//     per component.
func (s *scanner) pktmonMark(rec *Record) string {
	for _, l := range s.rd.Labels(rec.Iface) {
		if strings.Contains(strings.ToLower(l), "pktmon") {
			return fmt.Sprintf("a pktmon capture: its pcapng header says %q", l)
		}
	}
	if app := strings.Trim(s.rd.Application(), " \x00"); strings.EqualFold(app, pktmonApplication) {
		return fmt.Sprintf("a pktmon capture: its pcapng header names the writer %q, pktmon's converter", app)
	}
	for _, c := range rec.Comments {
		if strings.Contains(c, "PktGroupId ") && strings.Contains(c, "Component ") {
			return "a pktmon capture: its packet comments carry pktmon's PktGroupId and Component"
		}
	}
	if rec.HasPacketID {
		if first, ok := s.ids[rec.PacketID]; ok {
			return fmt.Sprintf("a pktmon capture: frames %d and %d carry the same pcapng packet id, one packet logged at two components", first, rec.Frame)
		}
		if s.ids == nil {
			s.ids = map[uint64]int{}
		}
		s.ids[rec.PacketID] = rec.Frame
	}
	return ""
}

// decide ends the look-ahead: a non-empty reason turns suppression on.
// The records held back are analysed first, in their order.
func (s *scanner) decide(reason string) {
	s.decided = true
	if reason != "" {
		s.st.Dedup, s.st.DedupReason = true, reason
	}
	held := s.held
	s.held, s.heldB, s.ids = nil, 0, nil
	for i := range held {
		s.process(&held[i])
	}
}

func (s *scanner) flush() {
	if s.mode == DedupAuto && !s.decided {
		s.decide("")
	}
}

func (s *scanner) process(rec *Record) {
	st := s.st
	p := &s.pkt
	sk := s.dec.Decode(rec, p)
	if sk != SkipNone {
		name := sk.String()
		if sk == SkipLinkType {
			name += " " + linkTypeName(rec.LinkType)
		}
		st.Skipped[name]++
		return
	}
	// Copies are looked for only when they are dropped: hashing the
	// start of every packet and searching the recent ones cost 6% of the
	// analysis of a capture that is not pktmon's, only to count copies
	// that are kept anyway.
	if st.Dedup && s.dd.seen(rec.TimeNs, p.IP) {
		st.Duplicates++
		st.Dropped++
		return
	}
	st.IPPackets++
	if p.Fragment {
		st.Fragments++
	}
	if p.Reassembled {
		st.Reassembled++
	}
	if p.L4Cut {
		st.L4Cut++
	}
	if p.L4Malformed {
		st.L4Malformed++
	}
	s.fn(rec, p)
}

func linkTypeName(lt layers.LinkType) string {
	switch lt {
	case layers.LinkTypeEthernet:
		return "ethernet"
	case layers.LinkTypeLinuxSLL:
		return "linux-sll"
	case layers.LinkTypeLinuxSLL2:
		return "linux-sll2"
	case layers.LinkTypeRaw, 12, 14:
		return "raw-ip"
	case layers.LinkTypeIPv4:
		return "ipv4"
	case layers.LinkTypeIPv6:
		return "ipv6"
	case layers.LinkTypeNull:
		return "null"
	case layers.LinkTypeLoop:
		return "loop"
	case layers.LinkTypePPP, layers.LinkTypePPP_HDLC:
		return "ppp"
	case layers.LinkTypePPPEthernet:
		return "pppoe"
	case layers.LinkTypeC_HDLC:
		return "cisco-hdlc"
	case layers.LinkTypeFDDI:
		return "fddi"
	case layers.LinkTypeIEEE802_11:
		return "802.11"
	case linkTypeNFLOG:
		return "nflog"
	case layers.LinkTypeIEEE80211Radio:
		return "radiotap"
	case linkTypeIPNET:
		return "ipnet"
	case linkTypeIPoIB:
		return "ipoib"
	}
	if n := netmonLinkTypeName(lt); n != "" {
		return n
	}
	return "linktype-" + strconv.Itoa(int(lt))
}

// dedupPrefix is how many leading bytes of an IP packet are hashed.
const dedupPrefix = 128

// dedup remembers the hashes of recent IP packets: pktmon writes the
// copies of a packet next to each other, so a short ring is enough.
type dedup struct {
	window int64
	seed   maphash.Seed
	ring   [32]struct {
		h  uint64
		t  int64
		ok bool
	}
	next int
}

func newDedup(w time.Duration) *dedup { return &dedup{window: int64(w), seed: maphash.MakeSeed()} }

// seen reports whether an identical packet was seen within the window, and
// remembers this one.
func (d *dedup) seen(t int64, ip []byte) bool {
	if len(ip) == 0 {
		return false
	}
	// The first bytes (IP and transport headers, the start of the payload)
	// and the length identify a packet: copies of one packet agree on
	// them, and two different packets differ in them (IPv4 ID, TCP
	// sequence and timestamp, UDP payload start). Hashing every byte of
	// every packet would cost a third of the analysis time.
	pre := ip
	if len(pre) > dedupPrefix {
		pre = pre[:dedupPrefix]
	}
	h := maphash.Bytes(d.seed, pre) ^ uint64(len(ip))*0x9e3779b97f4a7c15
	dup := false
	for i := 1; i <= len(d.ring); i++ {
		e := &d.ring[(d.next-i+len(d.ring))%len(d.ring)]
		if !e.ok || t-e.t > d.window || e.t-t > d.window {
			break
		}
		if e.h == h {
			dup = true
			break
		}
	}
	e := &d.ring[d.next]
	e.h, e.t, e.ok = h, t, true
	d.next = (d.next + 1) % len(d.ring)
	return dup
}

// PID extracts the process id from a pcapng packet comment as etl2pcapng
// writes it ("PID=1234 TID=5678 ..."); ok is false when there is none.
func PID(comments []string) (int, bool) {
	for _, c := range comments {
		i := strings.Index(c, "PID=")
		for i >= 0 {
			if i == 0 || c[i-1] == ' ' || c[i-1] == ',' || c[i-1] == ';' {
				j := i + 4
				for j < len(c) && c[j] >= '0' && c[j] <= '9' {
					j++
				}
				if j > i+4 {
					if v, err := strconv.Atoi(c[i+4 : j]); err == nil {
						return v, true
					}
				}
			}
			k := strings.Index(c[i+4:], "PID=")
			if k < 0 {
				break
			}
			i += 4 + k
		}
	}
	return 0, false
}
