package netload

import "net"

// rxStampMethod names where an echo's arrival time comes from on Windows:
// the receiving goroutine's clock when the read returns. (Windows 10 2004
// and later can stamp received UDP datagrams in QPC units between the
// miniport and NDIS, SIO_TIMESTAMPING, once a system-wide setting allows
// it; latlab does not use it yet.)
const rxStampMethod = ""

// rxStamper reads echoes; on Windows without a kernel time stamp.
type rxStamper struct{ c *net.UDPConn }

func newRxStamper(c *net.UDPConn) *rxStamper { return &rxStamper{c: c} }

func (r *rxStamper) read(b []byte) (n int, kernelNs int64, err error) {
	n, err = r.c.Read(b)
	return n, 0, err
}

func (r *rxStamper) stamping() bool { return false }
