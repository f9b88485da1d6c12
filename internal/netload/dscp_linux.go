package netload

import (
	"fmt"
	"net"

	"golang.org/x/sys/unix"
)

// setDSCP marks the socket's packets: IP_TOS for IPv4, IPV6_TCLASS for
// IPv6; the DSCP is the upper six bits of either byte (RFC 2474), the
// lower two (ECN) stay 0. The value read back is what the kernel will use.
func setDSCP(c *net.UDPConn, dscp int) *DSCP {
	d := &DSCP{Requested: dscp}
	rc, err := c.SyscallConn()
	if err != nil {
		d.Note = err.Error()
		return d
	}
	v6 := c.LocalAddr().(*net.UDPAddr).IP.To4() == nil
	var serr error
	var got int
	_ = rc.Control(func(fd uintptr) {
		if v6 {
			serr = unix.SetsockoptInt(int(fd), unix.IPPROTO_IPV6, unix.IPV6_TCLASS, dscp<<2)
			if serr == nil {
				got, serr = unix.GetsockoptInt(int(fd), unix.IPPROTO_IPV6, unix.IPV6_TCLASS)
			}
			return
		}
		serr = unix.SetsockoptInt(int(fd), unix.IPPROTO_IP, unix.IP_TOS, dscp<<2)
		if serr == nil {
			got, serr = unix.GetsockoptInt(int(fd), unix.IPPROTO_IP, unix.IP_TOS)
		}
	})
	switch {
	case serr != nil:
		d.Note = fmt.Sprintf("setsockopt: %v", serr)
	case got>>2 != dscp:
		d.Note = fmt.Sprintf("the socket reads back DSCP %d", got>>2)
	default:
		d.Applied = true
		opt := "IP_TOS"
		if v6 {
			opt = "IPV6_TCLASS"
		}
		d.Note = fmt.Sprintf("%s = 0x%02x on the socket; a router or qdisc on the path may still rewrite it", opt, got)
	}
	return d
}
