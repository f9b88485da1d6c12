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
// v0 (1703) when the system refuses version 1.
type tcpInfoReader struct {
	rc      syscall.RawConn
	version uint32
	buf     [WinTCPInfoV1Size]byte
}

func newTCPInfoReader(rc syscall.RawConn) (*tcpInfoReader, error) {
	return &tcpInfoReader{rc: rc, version: 1}, nil
}

func (r *tcpInfoReader) read() (TCPState, error) {
	for {
		var got uint32
		var ioErr error
		size := uint32(WinTCPInfoV1Size)
		if r.version == 0 {
			size = WinTCPInfoV0Size
		}
		err := r.rc.Control(func(fd uintptr) {
			v := r.version
			ioErr = windows.WSAIoctl(windows.Handle(fd), sioTCPInfo, (*byte)(unsafe.Pointer(&v)), 4,
				&r.buf[0], size, &got, nil, 0)
		})
		if err != nil {
			return TCPState{}, err
		}
		if ioErr != nil {
			if r.version == 1 {
				r.version = 0
				continue
			}
			return TCPState{}, fmt.Errorf("WSAIoctl(SIO_TCP_INFO) (needs Windows 10 1703 or later): %w", ioErr)
		}
		return DecodeWindowsTCPInfo(r.buf[:got])
	}
}
