package tcpflow

import "strings"

// Flag is a per-frame analysis result. The meanings are those of
// Wireshark's tcp.analysis.* fields of the same name.
type Flag uint32

// Analysis flags.
const (
	FlagRetransmission         Flag = 1 << iota // tcp.analysis.retransmission
	FlagFastRetransmission                      // tcp.analysis.fast_retransmission
	FlagSpuriousRetransmission                  // tcp.analysis.spurious_retransmission
	FlagOutOfOrder                              // tcp.analysis.out_of_order
	FlagLostSegment                             // tcp.analysis.lost_segment ("previous segment not captured")
	FlagAckLostSegment                          // tcp.analysis.ack_lost_segment ("ACKed unseen segment")
	FlagKeepAlive                               // tcp.analysis.keep_alive
	FlagKeepAliveAck                            // tcp.analysis.keep_alive_ack
	FlagWindowUpdate                            // tcp.analysis.window_update
	FlagWindowFull                              // tcp.analysis.window_full
	FlagZeroWindow                              // tcp.analysis.zero_window
	FlagZeroWindowProbe                         // tcp.analysis.zero_window_probe
	FlagZeroWindowProbeAck                      // tcp.analysis.zero_window_probe_ack
	FlagDuplicateAck                            // tcp.analysis.duplicate_ack
	FlagReusedPorts                             // tcp.analysis.reused_ports
)

// FlagInfo names a flag for events (snake case) and its Wireshark field.
type FlagInfo struct {
	Flag      Flag
	Event     string
	Wireshark string
}

// AllFlags lists the flags in a stable order.
var AllFlags = []FlagInfo{
	{FlagRetransmission, "retransmission", "tcp.analysis.retransmission"},
	{FlagFastRetransmission, "fast_retransmission", "tcp.analysis.fast_retransmission"},
	{FlagSpuriousRetransmission, "spurious_retransmission", "tcp.analysis.spurious_retransmission"},
	{FlagOutOfOrder, "out_of_order", "tcp.analysis.out_of_order"},
	{FlagDuplicateAck, "duplicate_ack", "tcp.analysis.duplicate_ack"},
	{FlagZeroWindow, "zero_window", "tcp.analysis.zero_window"},
	{FlagLostSegment, "lost_segment", "tcp.analysis.lost_segment"},
	{FlagAckLostSegment, "ack_lost_segment", "tcp.analysis.ack_lost_segment"},
	{FlagKeepAlive, "keep_alive", "tcp.analysis.keep_alive"},
	{FlagKeepAliveAck, "keep_alive_ack", "tcp.analysis.keep_alive_ack"},
	{FlagWindowUpdate, "window_update", "tcp.analysis.window_update"},
	{FlagWindowFull, "window_full", "tcp.analysis.window_full"},
	{FlagZeroWindowProbe, "zero_window_probe", "tcp.analysis.zero_window_probe"},
	{FlagZeroWindowProbeAck, "zero_window_probe_ack", "tcp.analysis.zero_window_probe_ack"},
	{FlagReusedPorts, "reused_ports", "tcp.analysis.reused_ports"},
}

// String lists the set flags by event name.
func (f Flag) String() string {
	var s []string
	for _, fi := range AllFlags {
		if f&fi.Flag != 0 {
			s = append(s, fi.Event)
		}
	}
	return strings.Join(s, ",")
}

// WiresharkFields is the set of tcp.analysis fields Wireshark shows for a
// frame with these flags: Wireshark also adds tcp.analysis.retransmission
// (its expert item) to fast and spurious retransmissions, so its filter
// tcp.analysis.retransmission matches all three kinds. latlab's own flags
// and events keep the three kinds apart.
func (f Flag) WiresharkFields() Flag {
	if f&(FlagFastRetransmission|FlagSpuriousRetransmission) != 0 {
		f |= FlagRetransmission
	}
	return f
}
