package netload

import (
	"fmt"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

const tcpInfoMethod = "getsockopt(TCP_INFO)"

// tcpInfoReader reads TCP_INFO with the length the kernel returns, which
// unix.GetsockoptTCPInfo discards: the length says which fields exist.
type tcpInfoReader struct {
	rc  syscall.RawConn
	buf [512]byte
}

func newTCPInfoReader(rc syscall.RawConn) (*tcpInfoReader, error) { return &tcpInfoReader{rc: rc}, nil }

func (r *tcpInfoReader) read() (TCPState, error) {
	var n uint32
	var errno syscall.Errno
	err := r.rc.Control(func(fd uintptr) {
		n = uint32(len(r.buf))
		_, _, errno = unix.RawSyscall6(unix.SYS_GETSOCKOPT, fd, unix.IPPROTO_TCP, unix.TCP_INFO,
			uintptr(unsafe.Pointer(&r.buf[0])), uintptr(unsafe.Pointer(&n)), 0)
	})
	if err != nil {
		return TCPState{}, err
	}
	if errno != 0 {
		return TCPState{}, fmt.Errorf("getsockopt(TCP_INFO): %w", errno)
	}
	return DecodeLinuxTCPInfo(r.buf[:n])
}
