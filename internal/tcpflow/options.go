// Package tcpflow analyses TCP loss recovery in a capture, one segment at a
// time: per-frame flags with the meanings of Wireshark's tcp.analysis
// fields (reproducing the algorithm of Wireshark 4.0's packet-tcp.c so the
// two can be compared frame by frame), per-connection statistics (RTT with
// Karn's rule, reordering extent, SACK and D-SACK blocks, retransmissions
// that a D-SACK later proved spurious), and a replay of the RACK-TLP
// reordering window (RFC 8985 section 6.2) with and without D-SACK
// adaptation. State is kept per open connection and bounded by the data
// in flight; a closed connection leaves only Wireshark's flow state behind
// (see Analyzer), so memory grows with the connections, never with the
// data.
package tcpflow

// TCPOptions are the TCP header options latlab reads.
type TCPOptions struct {
	MSS           uint16
	HasMSS        bool
	WScale        uint8 // shift as sent (may exceed 14; Wireshark and stacks use 14 then)
	HasWScale     bool
	SACKPermitted bool
	HasTS         bool
	TSVal, TSEcr  uint32
	SACK          [4]Block // the first four blocks (RFC 2018 allows at most four)
	NSACK         int
	SACKOptions   int  // SACK options present (normally 0 or 1)
	Malformed     bool // an option's length overran the header or did not fit its kind
}

// Block is a SACK block [Left, Right) in absolute sequence numbers.
type Block struct{ Left, Right uint32 }

// Option kinds.
const (
	optEnd    = 0
	optNOP    = 1
	optMSS    = 2
	optWScale = 3
	optSACKOK = 4
	optSACK   = 5
	optTS     = 8
)

// ParseOptions parses the option bytes of a TCP header (after the fixed 20
// bytes). It never fails: a malformed option stops the parse and sets
// Malformed, and what came before it is kept, as TCP stacks and Wireshark
// do.
func ParseOptions(b []byte) TCPOptions {
	var o TCPOptions
	o.parse(b)
	return o
}

// parse sets o to the options b holds, as ParseOptions returns them. The
// analysis parses into its TCPOptions in place: returned by value, the
// 64-byte result was written in small stores and copied in 16-byte moves
// that waited on a failed store forward, most of ParseOptions's time on
// the long capture (7% of all the CPU).
func (o *TCPOptions) parse(b []byte) {
	// Most segments of a connection that negotiated timestamps carry
	// exactly NOP, NOP, TS (Linux and Windows both pad so): read straight,
	// the same as the loop below gives, in a fifth of its instructions
	// (the loop was 5% of all of pcap tcp's on 100,000 short connections).
	if len(b) == 12 && b[0] == optNOP && b[1] == optNOP && b[2] == optTS && b[3] == 10 {
		*o = TCPOptions{HasTS: true, TSVal: be32(b[4:8]), TSEcr: be32(b[8:12])}
		return
	}
	// A Linux SYN or SYN-ACK: MSS, SACK permitted, TS, NOP, window scale.
	// Two segments of every connection carry it, and the loop spent
	// about 230 instructions on each (2% of all of pcap tcp's on 100,000
	// short connections).
	if len(b) == 20 && b[0] == optMSS && b[1] == 4 && b[4] == optSACKOK && b[5] == 2 &&
		b[6] == optTS && b[7] == 10 && b[16] == optNOP && b[17] == optWScale && b[18] == 3 {
		*o = TCPOptions{
			MSS: uint16(b[2])<<8 | uint16(b[3]), HasMSS: true,
			SACKPermitted: true,
			HasTS:         true, TSVal: be32(b[8:12]), TSEcr: be32(b[12:16]),
			WScale: b[19], HasWScale: true,
		}
		return
	}
	o.parseAll(b)
}

// parseAll is parse for any option bytes, one option at a time.
func (o *TCPOptions) parseAll(b []byte) {
	*o = TCPOptions{}
	for i := 0; i < len(b); {
		kind := b[i]
		switch kind {
		case optEnd:
			return
		case optNOP:
			i++
			continue
		}
		if i+1 >= len(b) { // no length byte
			o.Malformed = true
			return
		}
		l := int(b[i+1])
		if l < 2 || i+l > len(b) {
			o.Malformed = true
			return
		}
		v := b[i+2 : i+l]
		switch kind {
		case optMSS:
			if l == 4 {
				o.MSS, o.HasMSS = uint16(v[0])<<8|uint16(v[1]), true
			}
		case optWScale:
			if l == 3 {
				o.WScale, o.HasWScale = v[0], true
			}
		case optSACKOK:
			if l == 2 {
				o.SACKPermitted = true
			}
		case optTS:
			if l == 10 {
				o.HasTS = true
				o.TSVal = be32(v[0:4])
				o.TSEcr = be32(v[4:8])
			}
		case optSACK:
			o.SACKOptions++
			for j := 0; j+8 <= len(v); j += 8 {
				if o.NSACK < len(o.SACK) {
					o.SACK[o.NSACK] = Block{be32(v[j : j+4]), be32(v[j+4 : j+8])}
					o.NSACK++
				}
			}
			if len(v)%8 != 0 { // not 2 + 8n
				o.Malformed = true
			}
		}
		i += l
	}
}

func be32(b []byte) uint32 {
	return uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
}

// Sequence-space comparisons, written exactly as Wireshark's LT_SEQ,
// LE_SEQ, GT_SEQ and GE_SEQ macros. GT and GE subtract in the other
// order, so two numbers exactly 2^31 apart are both greater and less
// than each other (int32 of either difference is -2^31); the obvious
// int32(a-b) > 0 says neither, and a segment 2^31 past the next expected
// one would then miss "previous segment not captured" (zeek's
// modbus/fuzz-72.pcap, frame 30).
func seqLT(a, b uint32) bool { return int32(a-b) < 0 }
func seqLE(a, b uint32) bool { return int32(a-b) <= 0 }
func seqGT(a, b uint32) bool { return int32(b-a) < 0 }
func seqGE(a, b uint32) bool { return int32(b-a) <= 0 }

// IsDSACK applies Wireshark's (and RFC 2883 section 4's) test to the SACK
// blocks of a segment with cumulative ack: the first block lies at or below
// the ack, or inside the second block.
func IsDSACK(o *TCPOptions, ack uint32) bool {
	if o.NSACK == 0 {
		return false
	}
	b0 := o.SACK[0]
	if seqLE(b0.Right, ack) {
		return true
	}
	return o.NSACK > 1 && seqLT(o.SACK[1].Left, b0.Right) && seqGE(o.SACK[1].Right, b0.Right)
}
