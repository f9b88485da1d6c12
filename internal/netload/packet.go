package netload

import (
	"encoding/binary"
	"fmt"
)

// A probe datagram starts with a 32-byte header, big-endian:
//
//	0  magic "LLU1"
//	4  run id: random per run, so stray echoes of an earlier run are ignored
//	8  sequence number, 0-based
//	16 intended send time (clock.Now ns on the sender): the schedule
//	24 actual send time (clock.Now ns on the sender)
//
// The rest is padding up to the requested size. The echo server returns the
// datagram unchanged (RFC 862), so both times come back to the clock that
// wrote them and no clock synchronisation is needed.
const HeaderLen = 32

// MaxDatagram is the largest UDP payload over IPv4.
const MaxDatagram = 65507

var magic = [4]byte{'L', 'L', 'U', '1'}

type header struct {
	Run      uint32
	Seq      uint64
	Intended int64
	Sent     int64
}

func putHeader(b []byte, h header) {
	copy(b[0:4], magic[:])
	binary.BigEndian.PutUint32(b[4:8], h.Run)
	binary.BigEndian.PutUint64(b[8:16], h.Seq)
	binary.BigEndian.PutUint64(b[16:24], uint64(h.Intended))
	binary.BigEndian.PutUint64(b[24:32], uint64(h.Sent))
}

// errNotProbe is returned for datagrams that are not latlab probes.
type errNotProbe struct{ reason string }

func (e errNotProbe) Error() string { return "not a latlab probe: " + e.reason }

func parseHeader(b []byte) (header, error) {
	if len(b) < HeaderLen {
		return header{}, errNotProbe{fmt.Sprintf("%d bytes, a probe has at least %d", len(b), HeaderLen)}
	}
	if [4]byte(b[0:4]) != magic {
		return header{}, errNotProbe{fmt.Sprintf("bytes 0-3 are %q, want %q", b[0:4], magic[:])}
	}
	return header{
		Run:      binary.BigEndian.Uint32(b[4:8]),
		Seq:      binary.BigEndian.Uint64(b[8:16]),
		Intended: int64(binary.BigEndian.Uint64(b[16:24])),
		Sent:     int64(binary.BigEndian.Uint64(b[24:32])),
	}, nil
}
