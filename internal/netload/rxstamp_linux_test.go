package netload

import (
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// checkReceiveTimes: on Linux every echo on loopback is timed by the
// kernel's receive stamp. A stamp read in the wrong unit, clock or byte
// order would land in the future or over a second in the past and be
// counted missing.
func checkReceiveTimes(t *testing.T, r *UDPResult) {
	t.Helper()
	if r.ReceiveTimes != rxStampMethod {
		t.Fatalf("receive times from %q, want %q", r.ReceiveTimes, rxStampMethod)
	}
	if r.ReceiveStampsMissing != 0 || int64(len(r.ReceiverWake)) < r.Received {
		t.Fatalf("%d echoes without a usable stamp, %d wake-ups for %d echoes", r.ReceiveStampsMissing, len(r.ReceiverWake), r.Received)
	}
	for i, d := range r.ReceiverWake {
		if d <= 0 {
			t.Fatalf("echo %d read %d ns after its stamp", i, d)
		}
	}
}

// rxStampOf finds SCM_TIMESTAMPNS among the control messages, and reads
// nothing past a truncated or malformed one.
func TestRxStampOf(t *testing.T) {
	const hdr = unix.SizeofCmsghdr
	tsLen := int(unsafe.Sizeof(unix.Timespec{}))
	msg := func(level, typ int32, data []byte) []byte {
		b := make([]byte, cmsgAlign(hdr+len(data)))
		h := (*unix.Cmsghdr)(unsafe.Pointer(&b[0]))
		h.Level, h.Type = level, typ
		h.SetLen(hdr + len(data))
		copy(b[cmsgAlign(hdr):], data)
		return b
	}
	ts := unix.NsecToTimespec(1_700_000_000_123_456_789)
	stamp := unsafe.Slice((*byte)(unsafe.Pointer(&ts)), tsLen)
	other := msg(unix.IPPROTO_IP, unix.IP_TOS, []byte{0x2e})
	good := msg(unix.SOL_SOCKET, unix.SCM_TIMESTAMPNS, stamp)
	for _, c := range []struct {
		name string
		oob  []byte
		want int64
	}{
		{"alone", good, 1_700_000_000_123_456_789},
		{"after another message", append(append([]byte{}, other...), good...), 1_700_000_000_123_456_789},
		{"none", other, 0},
		{"empty", nil, 0},
		{"header cut", good[:hdr-1], 0},
		{"data cut", good[:hdr+tsLen-1], 0},
		{"wrong level", msg(unix.IPPROTO_IP, unix.SCM_TIMESTAMPNS, stamp), 0},
		{"too short for a timespec", msg(unix.SOL_SOCKET, unix.SCM_TIMESTAMPNS, stamp[:4]), 0},
	} {
		// aligned as recvmsg's buffer is (rxStamper.oob)
		buf := make([]uint64, (len(c.oob)+7)/8)
		b := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(buf))), len(buf)*8)[:len(c.oob)]
		copy(b, c.oob)
		if got := rxStampOf(b); got != c.want {
			t.Errorf("%s: %d, want %d", c.name, got, c.want)
		}
	}
}
