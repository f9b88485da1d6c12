package netload

import (
	"fmt"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

const tcpInfoMethod = "WSAIoctl(SIO_TCP_INFO)"

// sioTCPInfo is SIO_TCP_INFO = _WSAIORW(IOC_VENDOR, 39).
const sioTCPInfo = 0xD8000027

// tcpInfoReader asks for TCP_INFO_v1 (Windows 10 1809) and falls back to
// v0 (1703) when the system refuses version 1. The sampler reads once per
// period on the writing goroutine, so a read allocates nothing: the
// function handed to Control is made once and keeps its arguments and
// results in the reader rather than in captured variables.
type tcpInfoReader struct {
	rc      syscall.RawConn
	ctl     func(fd uintptr)
	version uint32
	in      uint32 // the version asked for, WSAIoctl's input buffer
	size    uint32
	got     uint32
	ioErr   error
	buf     [WinTCPInfoV1Size]byte
}

func newTCPInfoReader(rc syscall.RawConn) (*tcpInfoReader, error) {
	r := &tcpInfoReader{rc: rc, version: 1}
	r.ctl = r.ioctl
	return r, nil
}

func (r *tcpInfoReader) ioctl(fd uintptr) {
	r.in = r.version
	r.got = 0
	r.ioErr = windows.WSAIoctl(windows.Handle(fd), sioTCPInfo, (*byte)(unsafe.Pointer(&r.in)), 4,
		&r.buf[0], r.size, &r.got, nil, 0)
}

func (r *tcpInfoReader) read() (TCPState, error) {
	for {
		r.size = uint32(WinTCPInfoV1Size)
		if r.version == 0 {
			r.size = WinTCPInfoV0Size
		}
		if err := r.rc.Control(r.ctl); err != nil {
			return TCPState{}, err
		}
		if r.ioErr != nil {
			if r.version == 1 {
				r.version = 0
				continue
			}
			return TCPState{}, fmt.Errorf("WSAIoctl(SIO_TCP_INFO) (needs Windows 10 1703 or later): %w", r.ioErr)
		}
		return DecodeWindowsTCPInfo(r.buf[:min(r.got, r.size)])
	}
}
