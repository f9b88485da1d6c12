package netload

import (
	"fmt"
	"net"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/latlab/latlab/internal/clock"
)

// rxStampMethod names where an echo's arrival time comes from on Linux.
const rxStampMethod = "the kernel's receive time stamp (SO_TIMESTAMPNS)"

// rxStampsNone is ReceiveStampsUnavailable when the socket took
// SO_TIMESTAMPNS but no echo carried a usable stamp.
const rxStampsNone = "the socket took SO_TIMESTAMPNS but no echo carried a usable stamp"

// rxStamper reads echoes with the time the kernel received them: the
// socket's SO_TIMESTAMPNS stamps each datagram as it enters the kernel's
// receive path (Documentation/networking/timestamping.rst), before the
// receiving goroutine is woken, so the round trip
// leaves out that wake-up (tens of µs on a loaded or virtual machine),
// which is the receiving host's scheduling, not the network. The stamp is
// CLOCK_REALTIME (socket(7)); it is moved to the monotonic clock by the
// two clocks' difference read just after the datagram, which holds as
// long as the wall clock is not stepped in between (a stamp then found
// in the future or over maxRxDelay old is not used: rxStampMissing).
type rxStamper struct {
	c   *net.UDPConn
	on  bool
	why string
	// oob receives the control message; uint64 words keep it aligned
	// for the cmsghdr read in place.
	oob [8]uint64
}

func newRxStamper(c *net.UDPConn) *rxStamper {
	r := &rxStamper{c: c}
	rc, err := c.SyscallConn()
	if err != nil {
		r.why = fmt.Sprintf("no socket descriptor for SO_TIMESTAMPNS: %v", err)
		return r
	}
	var serr error
	if err := rc.Control(func(fd uintptr) {
		serr = unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_TIMESTAMPNS, 1)
	}); err != nil {
		serr = err
	}
	if serr != nil {
		r.why = fmt.Sprintf("setsockopt(SO_TIMESTAMPNS) failed: %v", serr)
		return r
	}
	r.on = true
	return r
}

// read reads one datagram into b; kernelNs is its receive time stamp
// (CLOCK_REALTIME ns), 0 when it carried none.
func (r *rxStamper) read(b []byte) (n int, kernelNs int64, err error) {
	if !r.on {
		n, err = r.c.Read(b)
		return n, 0, err
	}
	n, ctl, err := readWithControl(r.c, b, r.oob[:])
	if err != nil {
		return n, 0, err
	}
	return n, rxStampOf(ctl), nil
}

// rxStampOf returns the SCM_TIMESTAMPNS time in a control message buffer
// (ns since the epoch), 0 when there is none. oob must be aligned as
// recvmsg fills it (rxStamper.oob).
func rxStampOf(oob []byte) int64 {
	const tsLen = int(unsafe.Sizeof(unix.Timespec{}))
	for len(oob) >= unix.SizeofCmsghdr {
		h := (*unix.Cmsghdr)(unsafe.Pointer(&oob[0]))
		l := int(h.Len)
		if l < unix.SizeofCmsghdr || l > len(oob) {
			return 0
		}
		data := cmsgAlign(unix.SizeofCmsghdr)
		if h.Level == unix.SOL_SOCKET && h.Type == unix.SCM_TIMESTAMPNS && l >= data+tsLen {
			ts := (*unix.Timespec)(unsafe.Pointer(&oob[data]))
			return ts.Nano()
		}
		next := cmsgAlign(l)
		if next >= len(oob) {
			return 0
		}
		oob = oob[next:]
	}
	return 0
}

// cmsgAlign is CMSG_ALIGN: control messages start at multiples of the
// word size.
func cmsgAlign(n int) int {
	const w = int(unsafe.Sizeof(uintptr(0)))
	return (n + w - 1) &^ (w - 1)
}

func (r *rxStamper) stamping() bool { return r.on }

// unavailable says why the socket has no receive stamps, "" when it has.
func (r *rxStamper) unavailable() string { return r.why }

// rxClocks reads the clock the stamps are on (CLOCK_REALTIME), then
// clock.Now, in that order: the difference between the stamp and the
// first is how long the echo waited for the read.
func rxClocks() (stampClock, now int64) {
	stampClock = time.Now().UnixNano()
	return stampClock, clock.Now()
}
