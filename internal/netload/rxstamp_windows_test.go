package netload

import (
	"encoding/binary"
	"strings"
	"testing"
	"unsafe"

	"golang.org/x/sys/windows"

	"github.com/latlab/latlab/internal/testutil"
)

// checkReceiveTimes: on Windows an echo is timed by the stamp Windows put
// on it where the system stamps received datagrams, and otherwise by the
// receiving goroutine's read, with the reason in the result (the socket
// refused SIO_TIMESTAMPING, or took it and no echo carried a stamp).
func checkReceiveTimes(t *testing.T, r *UDPResult) {
	t.Helper()
	switch r.ReceiveTimes {
	case rxStampMethod:
		if r.ReceiveStampsUnavailable != "" || int64(len(r.ReceiverWake))+r.ReceiveStampsMissing < r.Received || len(r.ReceiverWake) == 0 {
			t.Fatalf("stamped run: %d wake-ups and %d missing for %d echoes, unavailable %q", len(r.ReceiverWake), r.ReceiveStampsMissing, r.Received, r.ReceiveStampsUnavailable)
		}
		for i, d := range r.ReceiverWake {
			if d < 0 {
				t.Fatalf("echo %d read %d ns before its stamp", i, -d)
			}
		}
	case userReceiveTimes:
		if r.ReceiverWake != nil || r.ReceiveStampsMissing != 0 || !strings.Contains(r.ReceiveStampsUnavailable, "SIO_TIMESTAMPING") {
			t.Fatalf("%d kernel-stamped, %d missing, unavailable %q; want the goroutine's clock and the reason", len(r.ReceiverWake), r.ReceiveStampsMissing, r.ReceiveStampsUnavailable)
		}
	default:
		t.Fatalf("receive times from %q", r.ReceiveTimes)
	}
}

// cmsgLayout is mswsock.h's WSACMSGHDR and WSA_CMSG macros worked out by
// hand for each pointer size: cmsg_len is a SIZE_T, cmsg_level and
// cmsg_type INTs; headers start at multiples of the structure's
// alignment (the SIZE_T's); data starts at sizeof(WSACMSGHDR) rounded up
// to MAX_NATURAL_ALIGNMENT (winnt.h: 8 on 64-bit, 4 on 32-bit Windows).
type cmsgLayout struct {
	hdr, levelAt, typeAt, dataAt, align int
}

func layoutHere() cmsgLayout {
	if unsafe.Sizeof(uintptr(0)) == 8 {
		return cmsgLayout{hdr: 16, levelAt: 8, typeAt: 12, dataAt: 16, align: 8}
	}
	return cmsgLayout{hdr: 12, levelAt: 4, typeAt: 8, dataAt: 12, align: 4}
}

// msg is one control message as WSARecvMsg lays it out: cmsg_len
// (WSA_CMSG_LEN) counts the header and the data, the message occupies
// it rounded up to the header alignment.
func (l cmsgLayout) msg(level, typ int32, data []byte) []byte {
	n := l.dataAt + len(data)
	b := make([]byte, (n+l.align-1)/l.align*l.align)
	if l.hdr == 16 {
		binary.LittleEndian.PutUint64(b, uint64(n))
	} else {
		binary.LittleEndian.PutUint32(b, uint32(n))
	}
	binary.LittleEndian.PutUint32(b[l.levelAt:], uint32(level))
	binary.LittleEndian.PutUint32(b[l.typeAt:], uint32(typ))
	copy(b[l.dataAt:], data)
	return b
}

// rxStampOf finds the SO_TIMESTAMP message (SOL_SOCKET 0xffff, type
// 0x300A: mstcpip.h, winsock2.h) among the control messages, after
// others of any length, and reads nothing past a truncated or malformed
// one.
func TestRxStampOf(t *testing.T) {
	l := layoutHere()
	const qpc = 0x0123456789abcdef
	stamp := binary.LittleEndian.AppendUint64(nil, qpc)
	good := l.msg(0xffff, 0x300A, stamp)
	pktinfo := l.msg(0, 19, make([]byte, 8)) // IPPROTO_IP, IP_PKTINFO: an in_pktinfo
	odd := l.msg(0, 1, []byte{0x2e})         // one byte of data: the next header is aligned past the padding
	cat := func(bs ...[]byte) []byte {
		var out []byte
		for _, b := range bs {
			out = append(out, b...)
		}
		return out
	}
	zeroLen := append([]byte{}, good...)
	clear(zeroLen[:l.levelAt])
	tooLong := append([]byte{}, good...)
	tooLong[0] = byte(len(good) + 1)
	for _, c := range []struct {
		name string
		oob  []byte
		want uint64
	}{
		{"alone", good, qpc},
		{"after IP_PKTINFO", cat(pktinfo, good), qpc},
		{"after a message of one byte", cat(odd, good), qpc},
		{"after two messages", cat(odd, pktinfo, good), qpc},
		{"none", cat(pktinfo, odd), 0},
		{"empty", nil, 0},
		{"header cut", good[:l.hdr-1], 0},
		{"data cut", good[:l.dataAt+7], 0},
		{"wrong level", l.msg(0, 0x300A, stamp), 0},
		{"SO_TIMESTAMP_ID, not SO_TIMESTAMP", l.msg(0xffff, 0x300B, stamp), 0},
		{"too short for a UINT64", l.msg(0xffff, 0x300A, stamp[:4]), 0},
		{"cmsg_len 0", cat(zeroLen, good), 0},
		{"cmsg_len past the buffer", tooLong, 0},
	} {
		// aligned as WSARecvMsg's buffer is (rxStamper.oob)
		buf := make([]uint64, (len(c.oob)+7)/8)
		b := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(buf))), len(buf)*8)[:len(c.oob)]
		copy(b, c.oob)
		if got := rxStampOf(b); got != c.want {
			t.Errorf("%s: %#x, want %#x", c.name, got, c.want)
		}
	}
}

// A socket that refuses SIO_TIMESTAMPING leaves the stamper reading as
// before, and the run says why. Wine refuses it (its UDP sockets cannot
// be opened through net: needUDP), so the socket here is Winsock's own;
// on Windows build 20348 and later the ioctl must succeed.
func TestRxStampsFallBackWhenRefused(t *testing.T) {
	var wsa windows.WSAData
	if err := windows.WSAStartup(0x0202, &wsa); err != nil {
		t.Fatal(err)
	}
	defer windows.WSACleanup()
	s, err := windows.Socket(windows.AF_INET, windows.SOCK_DGRAM, windows.IPPROTO_UDP)
	if err != nil {
		t.Fatal(err)
	}
	defer windows.Closesocket(s)
	// bound, as net's sockets are when the stamps are asked for
	if err := windows.Bind(s, &windows.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatal(err)
	}
	r := &rxStamper{}
	r.enable(func(f func(fd uintptr)) error { f(uintptr(s)); return nil })
	method, why := receiveTimes(r)
	wine := testutil.UnderWine()
	build := windows.RtlGetVersion().BuildNumber
	t.Logf("Wine %v, build %d: stamping %v, %q, %q", wine, build, r.stamping(), method, why)
	if r.stamping() {
		if wine {
			t.Fatal("Wine took SIO_TIMESTAMPING; the fallback path did not run")
		}
		if method != rxStampMethod || why != "" {
			t.Fatalf("stamping, but receive times %q, unavailable %q", method, why)
		}
		return
	}
	if !wine && build >= 20348 {
		t.Fatalf("build %d refused SIO_TIMESTAMPING: %s", build, why)
	}
	if method != userReceiveTimes || !strings.Contains(why, "WSAIoctl(SIO_TIMESTAMPING) failed: ") || !strings.Contains(why, "20348") {
		t.Fatalf("refused, but receive times %q, unavailable %q", method, why)
	}
}

// A control function that fails (the socket closed) is a refusal too.
func TestRxStampsFallBackWhenNoSocket(t *testing.T) {
	r := &rxStamper{}
	r.enable(func(func(fd uintptr)) error { return windows.WSAENOTSOCK })
	if method, why := receiveTimes(r); r.stamping() || method != userReceiveTimes || !strings.Contains(why, windows.WSAENOTSOCK.Error()) {
		t.Fatalf("stamping %v, receive times %q, unavailable %q", r.stamping(), method, why)
	}
}
