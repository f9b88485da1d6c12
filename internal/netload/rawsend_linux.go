package netload

import (
	"fmt"
	"net"
	"unsafe"

	"golang.org/x/sys/unix"
)

// rawSender writes datagrams to a connected UDP socket with a raw write(2),
// which the pacing thread may make while it is held (probe.HoldThread):
// the connection's own Write goes through the runtime's system call path
// and, when the socket is full, its poller, both of which need the
// scheduler. The descriptor stays valid while the connection is open,
// and RunUDP closes it only after the pacing thread is done.
type rawSender struct{ fd uintptr }

func newRawSender(c *net.UDPConn) (rawSender, error) {
	rc, err := c.SyscallConn()
	if err != nil {
		return rawSender{}, fmt.Errorf("UDP socket: %w", err)
	}
	var s rawSender
	if err := rc.Control(func(fd uintptr) { s.fd = fd }); err != nil {
		return rawSender{}, fmt.Errorf("UDP socket: %w", err)
	}
	return s, nil
}

// send writes b. done is false when it could not without waiting (the
// socket's buffer is full): the caller sends it another way.
func (s rawSender) send(b []byte) (done bool, err error) {
	for {
		_, _, e := unix.RawSyscall(unix.SYS_WRITE, s.fd, uintptr(unsafe.Pointer(unsafe.SliceData(b))), uintptr(len(b)))
		switch e {
		case 0:
			return true, nil
		case unix.EINTR:
		case unix.EAGAIN:
			return false, nil
		default:
			return true, e
		}
	}
}
