package netload

import (
	"encoding/binary"
	"fmt"
	"math"
	"net"
	"unsafe"

	"golang.org/x/sys/windows"

	"github.com/latlab/latlab/internal/clock"
)

// rxStampMethod names where an echo's arrival time comes from on Windows
// when the socket's receive stamps are on.
const rxStampMethod = "the receive time stamp Windows puts on the datagram (SIO_TIMESTAMPING, QPC)"

// rxStampsNone is ReceiveStampsUnavailable when the socket took
// SIO_TIMESTAMPING but no echo carried a usable stamp. Microsoft's
// "Winsock timestamping": "In addition to socket-level configuration using
// the SIO_TIMESTAMPING socket option to enable timestamp reception for a
// socket, system-level configuration is also needed"; and "Packet
// timestamping" (IP Helper): an adapter that supports timestamps keeps
// them off until instructed to turn them on.
const rxStampsNone = "the socket took SIO_TIMESTAMPING but no echo carried a usable stamp: " +
	"Windows stamps datagrams only where timestamping is also configured for the system and the network adapter " +
	"(learn.microsoft.com/windows/win32/winsock/winsock-timestamping)"

// SIO_TIMESTAMPING and its input, mstcpip.h (NTDDI_WIN10_FE: the
// structure's page gives Windows build 20348 as the minimum). The stamp
// comes back as an SO_TIMESTAMP control message at level SOL_SOCKET
// holding a UINT64 ("Winsock timestamping").
const (
	sioTimestamping    = 0x980000EB // _WSAIOW(IOC_VENDOR, 235)
	timestampingFlagRx = 0x1
	soTimestamp        = 0x300A
	solSocket          = 0xffff // winsock2.h
)

type timestampingConfig struct {
	Flags                uint32
	TxTimestampsBuffered uint16
}

// wsaCmsgHdr is mswsock.h's WSACMSGHDR: cmsg_len is a SIZE_T, so the
// header is 16 bytes on 64-bit Windows and 12 on 32-bit.
type wsaCmsgHdr = windows.WSACMSGHDR

// The WSA_CMSG macros of mswsock.h: a header starts at a multiple of
// TYPE_ALIGNMENT(WSACMSGHDR) (WSA_CMSGHDR_ALIGN); its data follows at
// WSA_CMSGDATA_ALIGN(sizeof(WSACMSGHDR)), MAX_NATURAL_ALIGNMENT being
// sizeof(ULONGLONG) on 64-bit Windows and sizeof(DWORD) on 32-bit
// (winnt.h): the pointer's size on both.
const (
	cmsgHdrSize      = int(unsafe.Sizeof(wsaCmsgHdr{}))
	cmsgHdrAlign     = int(unsafe.Alignof(wsaCmsgHdr{}))
	maxNaturalAlign  = int(unsafe.Sizeof(uintptr(0)))
	cmsgDataOffset   = (cmsgHdrSize + maxNaturalAlign - 1) &^ (maxNaturalAlign - 1)
	cmsgStampLen     = cmsgDataOffset + 8 // WSA_CMSG_LEN(sizeof(UINT64))
	cmsgStampBufSize = 64                 // room for the stamp and a message the stack may add
)

// rxStamper reads echoes with the time Windows stamped them on receipt
// (Winsock timestamping): a software stamp taken between the miniport
// and NDIS with the kernel's QueryPerformanceCounter, before the receiving
// goroutine is woken, so the round trip leaves out that wake-up. The read
// is net's ReadMsgUDPAddrPort, which is WSARecvMsg through Go's poller
// (the deadline that ends the drain still applies, which a WSARecvMsg of
// latlab's own on the poller's overlapped socket could not have): the
// control buffer is the stamper's own, and internal/poll keeps the
// WSAMSG and the address buffer in pools that reads reuse instead of
// allocating. When the socket refuses SIO_TIMESTAMPING the stamper reads
// as before, and why says so. An adapter's hardware stamp (where one is
// turned on instead of software stamps) is on the adapter's own clock:
// it is read as QPC all the same, and only maxRxDelay rejects it.
type rxStamper struct {
	c   *net.UDPConn
	on  bool
	why string
	// oob receives the control messages; uint64 words keep it aligned
	// for the WSACMSGHDR read in place.
	oob [cmsgStampBufSize / 8]uint64
}

func newRxStamper(c *net.UDPConn) *rxStamper {
	r := &rxStamper{c: c}
	rc, err := c.SyscallConn()
	if err != nil {
		r.why = fmt.Sprintf("no socket handle for SIO_TIMESTAMPING: %v", err)
		return r
	}
	r.enable(rc.Control)
	return r
}

// enable asks for receive stamps on the socket control hands it;
// control is a syscall.RawConn's Control.
func (r *rxStamper) enable(control func(func(fd uintptr)) error) {
	var ioErr error
	if err := control(func(fd uintptr) { ioErr = enableRxStamps(windows.Handle(fd)) }); err != nil {
		ioErr = err
	}
	if ioErr != nil {
		r.why = fmt.Sprintf("WSAIoctl(SIO_TIMESTAMPING) failed: %v (receive stamps need Windows build 20348 or later)", ioErr)
		return
	}
	r.on = true
}

// enableRxStamps turns on receive stamps of socket s.
func enableRxStamps(s windows.Handle) error {
	cfg := timestampingConfig{Flags: timestampingFlagRx}
	var got uint32
	return windows.WSAIoctl(s, sioTimestamping, (*byte)(unsafe.Pointer(&cfg)), uint32(unsafe.Sizeof(cfg)),
		nil, 0, &got, nil, 0)
}

// read reads one datagram into b; kernelNs is its receive stamp on
// clock.Now's timeline, 0 when it carried none.
func (r *rxStamper) read(b []byte) (n int, kernelNs int64, err error) {
	if !r.on {
		n, err = r.c.Read(b)
		return n, 0, err
	}
	n, ctl, err := readWithControl(r.c, b, r.oob[:])
	if err != nil {
		return n, 0, err
	}
	qpc := rxStampOf(ctl)
	if qpc == 0 || qpc > math.MaxInt64 {
		return n, 0, nil
	}
	return n, clock.FromTicks(int64(qpc)), nil
}

// rxStampOf returns the SO_TIMESTAMP value (QPC ticks) among the control
// messages WSARecvMsg returned, 0 when there is none. It walks them as
// WSA_CMSG_FIRSTHDR and WSA_CMSG_NXTHDR do, and reads nothing past a
// truncated or malformed one. oob must be aligned as rxStamper.oob is.
func rxStampOf(oob []byte) uint64 {
	for off := 0; off+cmsgHdrSize <= len(oob); {
		h := (*wsaCmsgHdr)(unsafe.Pointer(&oob[off]))
		l := int(h.Len)
		if l < cmsgHdrSize || l > len(oob)-off {
			return 0
		}
		if h.Level == solSocket && h.Type == soTimestamp && l >= cmsgStampLen {
			// data need only be 4-aligned on 32-bit Windows: read bytes
			return binary.LittleEndian.Uint64(oob[off+cmsgDataOffset:])
		}
		off += (l + cmsgHdrAlign - 1) &^ (cmsgHdrAlign - 1)
	}
	return 0
}

func (r *rxStamper) stamping() bool { return r.on }

// unavailable says why the socket has no receive stamps, "" when it has.
func (r *rxStamper) unavailable() string { return r.why }

// rxClocks reads the clock the stamps are on, then clock.Now: both are
// QPC on Windows, so one reading serves.
func rxClocks() (stampClock, now int64) {
	now = clock.Now()
	return now, now
}
