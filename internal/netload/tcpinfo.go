package netload

import (
	"encoding/binary"
	"fmt"
)

// Field is one quantity of the kernel's TCP state of a socket. Linux
// (TCP_INFO) and Windows (SIO_TCP_INFO) report different sets; a sample
// records which fields the running kernel filled, and an absent field is
// reported as absent, never as zero.
type Field int

// The fields, normalised to bytes, µs and counts.
const (
	FCwnd           Field = iota // congestion window, bytes (Linux: snd_cwnd x snd_mss)
	FSsthresh                    // slow-start threshold, bytes; absent while "infinite"
	FSndWnd                      // peer's advertised send window, bytes
	FRTT                         // smoothed RTT, µs
	FRTTVar                      // RTT variance, µs
	FMinRTT                      // minimum RTT, µs
	FRetransmits                 // Linux: retransmissions of the current unacknowledged segment
	FTotalRetrans                // Linux: segments retransmitted in total
	FBytesRetrans                // bytes retransmitted in total
	FReordering                  // Linux: reordering metric, segments
	FBytesReordered              // Windows: bytes that arrived out of order
	FDeliveryRate                // Linux: delivery rate estimate, bytes/s
	FBytesInFlight               // bytes sent and not yet acknowledged (Linux: snd_nxt - snd_una, SACKed bytes included)
	FUnacked                     // Linux: segments sent and not yet acknowledged
	// Linux: segments in flight as the kernel counts them against the
	// congestion window (tcp_packets_in_flight): sent and not acked,
	// less those SACKed or marked lost, plus those retransmitted.
	FPacketsInFlight
	FBytesSent       // bytes sent including retransmissions
	FDupAcksIn       // Windows: duplicate ACKs received
	FFastRetrans     // Windows: fast retransmit invocations
	FTimeoutEpisodes // Windows: retransmission timeout episodes
	FSynRetrans      // Windows: SYN retransmissions
	FMSS             // maximum segment size, bytes
	// Windows TCP_INFO_v1: what limited sending, after RFC 4898's
	// SndLim* statistics: the receiver's window (Rwin), the congestion
	// window (Cwnd) or the sender itself (Snd, e.g. the application or
	// its send buffer): transitions into that state, ms spent in it, bytes
	// sent while in it.
	FSndLimTransRwin
	FSndLimTimeRwin
	FSndLimBytesRwin
	FSndLimTransCwnd
	FSndLimTimeCwnd
	FSndLimBytesCwnd
	FSndLimTransSnd
	FSndLimTimeSnd
	FSndLimBytesSnd
	numFields
)

var fieldNames = [numFields]string{
	"cwnd_bytes", "ssthresh_bytes", "snd_wnd_bytes", "rtt_us", "rttvar_us", "min_rtt_us",
	"retransmits", "total_retrans", "bytes_retrans", "reordering", "bytes_reordered",
	"delivery_rate_bytes_per_s", "bytes_in_flight", "unacked_segments", "packets_in_flight", "bytes_sent",
	"dup_acks_in", "fast_retrans", "timeout_episodes", "syn_retrans", "mss_bytes",
	"snd_lim_trans_rwin", "snd_lim_time_rwin_ms", "snd_lim_bytes_rwin",
	"snd_lim_trans_cwnd", "snd_lim_time_cwnd_ms", "snd_lim_bytes_cwnd",
	"snd_lim_trans_snd", "snd_lim_time_snd_ms", "snd_lim_bytes_snd",
}

// TCPState.Has holds one bit per field: at most 32 (this fails to compile
// past that).
var _ [32 - numFields]struct{}

func (f Field) String() string { return fieldNames[f] }

// Fields returns every field in order.
func Fields() []Field {
	fs := make([]Field, numFields)
	for i := range fs {
		fs[i] = Field(i)
	}
	return fs
}

// TCPState is one reading of a socket's TCP state.
type TCPState struct {
	V   [numFields]int64
	Has uint32 // bit f set: field f was reported by the kernel
}

// Get returns a field and whether the kernel reported it.
func (s *TCPState) Get(f Field) (int64, bool) { return s.V[f], s.Has&(1<<f) != 0 }

func (s *TCPState) set(f Field, v int64) {
	s.V[f] = v
	s.Has |= 1 << f
}

// Map returns the present fields by name, for JSON.
func (s *TCPState) Map() map[string]int64 {
	m := make(map[string]int64, numFields)
	for f := Field(0); f < numFields; f++ {
		if v, ok := s.Get(f); ok {
			m[f.String()] = v
		}
	}
	return m
}

// Linux struct tcp_info (include/uapi/linux/tcp.h): byte offsets of the
// fields used. The kernel copies min(its size, the caller's buffer) and
// returns the length, so on an older kernel the fields past that length
// were not filled: they are absent, not zero. A test checks these offsets
// against golang.org/x/sys/unix.TCPInfo.
const (
	liRetransmits  = 2   // u8
	liSndMss       = 16  // u32
	liUnacked      = 24  // u32, packets_out
	liSacked       = 28  // u32, sacked_out
	liLost         = 32  // u32, lost_out
	liRetrans      = 36  // u32, retrans_out
	liRtt          = 68  // u32, µs
	liRttvar       = 72  // u32, µs
	liSndSsthresh  = 76  // u32, segments
	liSndCwnd      = 80  // u32, segments
	liReordering   = 88  // u32
	liTotalRetrans = 100 // u32
	liBytesAcked   = 120 // u64 (Linux 4.1)
	liMinRtt       = 148 // u32, µs (4.10)
	liDeliveryRate = 160 // u64, bytes/s (4.10)
	liBytesSent    = 200 // u64 (4.19)
	liBytesRetrans = 208 // u64 (4.19)
	liSndWnd       = 228 // u32 (6.2)
)

// linuxInfiniteSsthresh is TCP_INFINITE_SSTHRESH: no threshold yet.
const linuxInfiniteSsthresh = 0x7fffffff

// DecodeLinuxTCPInfo decodes the bytes getsockopt(TCP_INFO) returned, in
// the machine's byte order (little-endian on every platform latlab
// supports), keeping only fields within the returned length.
func DecodeLinuxTCPInfo(b []byte) (TCPState, error) {
	var s TCPState
	if len(b) < liTotalRetrans+4 {
		return s, fmt.Errorf("tcp_info: %d bytes, want at least %d (Linux 2.6)", len(b), liTotalRetrans+4)
	}
	le := binary.LittleEndian
	u32 := func(off int) int64 { return int64(le.Uint32(b[off:])) }
	u64 := func(off int) (int64, bool) {
		if off+8 > len(b) {
			return 0, false
		}
		return int64(le.Uint64(b[off:])), true
	}
	mss := u32(liSndMss)
	s.set(FMSS, mss)
	s.set(FCwnd, u32(liSndCwnd)*mss)
	if th := u32(liSndSsthresh); th < linuxInfiniteSsthresh {
		s.set(FSsthresh, th*mss)
	}
	s.set(FRTT, u32(liRtt))
	s.set(FRTTVar, u32(liRttvar))
	s.set(FRetransmits, int64(b[liRetransmits]))
	s.set(FTotalRetrans, u32(liTotalRetrans))
	s.set(FReordering, u32(liReordering))
	s.set(FUnacked, u32(liUnacked))
	// tcp_packets_in_flight(): packets_out - (sacked_out + lost_out) +
	// retrans_out, what tcp_cwnd_test compares with snd_cwnd
	if in := u32(liUnacked) - u32(liSacked) - u32(liLost) + u32(liRetrans); in >= 0 {
		s.set(FPacketsInFlight, in)
	}
	if len(b) >= liMinRtt+4 {
		s.set(FMinRTT, u32(liMinRtt))
	}
	if v, ok := u64(liDeliveryRate); ok {
		s.set(FDeliveryRate, v)
	}
	sent, okS := u64(liBytesSent)
	retr, okR := u64(liBytesRetrans)
	acked, okA := u64(liBytesAcked)
	if okS {
		s.set(FBytesSent, sent)
	}
	if okR {
		s.set(FBytesRetrans, retr)
	}
	// snd_nxt - snd_una: unique bytes sent minus bytes cumulatively acked.
	if okS && okR && okA && sent-retr >= acked {
		s.set(FBytesInFlight, sent-retr-acked)
	}
	if len(b) >= liSndWnd+4 {
		s.set(FSndWnd, u32(liSndWnd))
	}
	return s, nil
}

// Windows TCP_INFO_v0 / TCP_INFO_v1 (mstcpip.h) byte offsets. v0 needs
// Windows 10 1703, v1 Windows 10 1809; both are little-endian with natural
// alignment (BOOLEAN at 16 padded to 20, SynRetrans at 84 padded to 88).
const (
	wiState           = 0
	wiMss             = 4
	wiRttUs           = 20
	wiMinRttUs        = 24
	wiBytesInFlight   = 28
	wiCwnd            = 32
	wiSndWnd          = 36
	wiBytesOut        = 48 // u64
	wiBytesReordered  = 64
	wiBytesRetrans    = 68
	wiFastRetrans     = 72
	wiDupAcksIn       = 76
	wiTimeoutEpisodes = 80
	wiSynRetrans      = 84 // u8
	// TCP_INFO_v1 adds, from byte 88 (the end of v0):
	wiSndLimTransRwin = 88
	wiSndLimTimeRwin  = 92
	wiSndLimBytesRwin = 96 // u64
	wiSndLimTransCwnd = 104
	wiSndLimTimeCwnd  = 108
	wiSndLimBytesCwnd = 112 // u64
	wiSndLimTransSnd  = 120
	wiSndLimTimeSnd   = 124
	wiSndLimBytesSnd  = 128 // u64
	// WinTCPInfoV0Size and WinTCPInfoV1Size are the structures' sizes.
	WinTCPInfoV0Size = 88
	WinTCPInfoV1Size = 136
)

// DecodeWindowsTCPInfo decodes a TCP_INFO_v0 or TCP_INFO_v1 structure as
// returned by WSAIoctl(SIO_TCP_INFO). The v1 fields (SndLim*) are decoded
// when the returned length holds the whole v1 structure, else absent.
func DecodeWindowsTCPInfo(b []byte) (TCPState, error) {
	var s TCPState
	if len(b) < WinTCPInfoV0Size {
		return s, fmt.Errorf("TCP_INFO: %d bytes, want %d (v0) or %d (v1)", len(b), WinTCPInfoV0Size, WinTCPInfoV1Size)
	}
	le := binary.LittleEndian
	u32 := func(off int) int64 { return int64(le.Uint32(b[off:])) }
	if st := le.Uint32(b[wiState:]); st > 10 {
		return s, fmt.Errorf("TCP_INFO: byte 0: state %d is not a TCPSTATE (0-10)", st)
	}
	s.set(FMSS, u32(wiMss))
	s.set(FRTT, u32(wiRttUs))
	s.set(FMinRTT, u32(wiMinRttUs))
	s.set(FBytesInFlight, u32(wiBytesInFlight))
	s.set(FCwnd, u32(wiCwnd))
	s.set(FSndWnd, u32(wiSndWnd))
	s.set(FBytesSent, int64(le.Uint64(b[wiBytesOut:])))
	s.set(FBytesReordered, u32(wiBytesReordered))
	s.set(FBytesRetrans, u32(wiBytesRetrans))
	s.set(FFastRetrans, u32(wiFastRetrans))
	s.set(FDupAcksIn, u32(wiDupAcksIn))
	s.set(FTimeoutEpisodes, u32(wiTimeoutEpisodes))
	s.set(FSynRetrans, int64(b[wiSynRetrans]))
	if len(b) >= WinTCPInfoV1Size {
		u64 := func(off int) int64 { return int64(le.Uint64(b[off:])) }
		s.set(FSndLimTransRwin, u32(wiSndLimTransRwin))
		s.set(FSndLimTimeRwin, u32(wiSndLimTimeRwin))
		s.set(FSndLimBytesRwin, u64(wiSndLimBytesRwin))
		s.set(FSndLimTransCwnd, u32(wiSndLimTransCwnd))
		s.set(FSndLimTimeCwnd, u32(wiSndLimTimeCwnd))
		s.set(FSndLimBytesCwnd, u64(wiSndLimBytesCwnd))
		s.set(FSndLimTransSnd, u32(wiSndLimTransSnd))
		s.set(FSndLimTimeSnd, u32(wiSndLimTimeSnd))
		s.set(FSndLimBytesSnd, u64(wiSndLimBytesSnd))
	}
	return s, nil
}

// retransmitted reports whether any retransmission counter grew between
// two readings.
func retransmitted(prev, cur *TCPState) bool {
	for _, f := range []Field{FTotalRetrans, FBytesRetrans, FFastRetrans, FTimeoutEpisodes} {
		a, okA := prev.Get(f)
		b, okB := cur.Get(f)
		if okA && okB && b > a {
			return true
		}
	}
	return false
}
