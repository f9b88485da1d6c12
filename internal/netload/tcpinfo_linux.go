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
// The sampler reads once per period on the writing goroutine, so a read
// allocates nothing: the function handed to Control is made once, here,
// and keeps its results in the reader rather than in captured variables
// (which would escape to the heap on every call).
type tcpInfoReader struct {
	rc    syscall.RawConn
	ctl   func(fd uintptr)
	n     uint32
	errno syscall.Errno
	buf   [512]byte
}

func newTCPInfoReader(rc syscall.RawConn) (*tcpInfoReader, error) {
	r := &tcpInfoReader{rc: rc}
	r.ctl = r.getsockopt
	return r, nil
}

func (r *tcpInfoReader) getsockopt(fd uintptr) {
	r.n = uint32(len(r.buf))
	_, _, r.errno = unix.RawSyscall6(unix.SYS_GETSOCKOPT, fd, unix.IPPROTO_TCP, unix.TCP_INFO,
		uintptr(unsafe.Pointer(&r.buf[0])), uintptr(unsafe.Pointer(&r.n)), 0)
}

func (r *tcpInfoReader) read() (TCPState, error) {
	if err := r.rc.Control(r.ctl); err != nil {
		return TCPState{}, err
	}
	if r.errno != 0 {
		return TCPState{}, fmt.Errorf("getsockopt(TCP_INFO): %w", r.errno)
	}
	return DecodeLinuxTCPInfo(r.buf[:min(r.n, uint32(len(r.buf)))])
}
