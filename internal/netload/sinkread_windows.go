package netload

import "net"

// readSome reads c once, handing the byte count to got, and says whether
// the peer closed its side.
func readSome(c net.Conn, buf []byte, got func(int)) (eof bool, err error) {
	return readConn(c, buf, got)
}
