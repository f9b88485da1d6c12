package netload

import (
	"net"
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// readSome reads c at least once, handing each read's byte count to got,
// and says whether the peer closed its side. Linux: raw read(2)s of the
// socket, which does not block, from inside RawConn.Read, and the
// runtime's netpoller only when there is nothing to read (EAGAIN).
// Through net.Conn each read took the runtime's system call path
// (entersyscall and exitsyscall), and with it, per GB from net
// tcp-discard, 800-1,700 wake-ups of the runtime's sysmon thread and
// 400-2,000 futex calls handing the goroutine between threads, on a
// machine whose two CPUs the sender and the receiver share (now 2-22
// and 8-10). It returns after maxReads reads even while data keeps
// coming: a Close of c waits for RawConn.Read to return.
func readSome(c net.Conn, buf []byte, got func(int)) (eof bool, err error) {
	tc, ok := c.(*net.TCPConn)
	if !ok {
		return readConn(c, buf, got)
	}
	rc, err := tc.SyscallConn()
	if err != nil {
		return false, err
	}
	const maxReads = 32 // up to 8 MiB, about a millisecond
	var rerr error
	err = rc.Read(func(fd uintptr) bool {
		for range maxReads {
			n, _, e := unix.RawSyscall(unix.SYS_READ, fd, uintptr(unsafe.Pointer(unsafe.SliceData(buf))), uintptr(len(buf)))
			switch {
			case e == unix.EAGAIN:
				return false // wait in the netpoller for more
			case e == unix.EINTR:
			case e != 0:
				rerr = os.NewSyscallError("read", e)
				return true
			case n == 0:
				eof = true
				return true
			default:
				got(int(n))
			}
		}
		return true
	})
	if rerr != nil {
		return false, rerr
	}
	return eof, err
}
