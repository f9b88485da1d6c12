package netload

import (
	"net"
	"unsafe"
)

// readWithControl reads one datagram into b and the control messages the
// system puts beside it into words (uint64s keep them aligned for reading
// a message's header in place); ctl is what it wrote there. Both systems'
// receive stamps come as such a message (rxstamp_linux.go,
// rxstamp_windows.go).
func readWithControl(c *net.UDPConn, b []byte, words []uint64) (n int, ctl []byte, err error) {
	buf := unsafe.Slice((*byte)(unsafe.Pointer(&words[0])), len(words)*8)
	n, oobn, _, _, err := c.ReadMsgUDPAddrPort(b, buf)
	return n, buf[:min(oobn, len(buf))], err
}
