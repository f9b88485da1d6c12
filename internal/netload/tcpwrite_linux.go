package netload

import (
	"context"
	"net"
	"os"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/latlab/latlab/internal/clock"
)

// writeStream writes size bytes from buf over and over to c, sampling
// between writes (see runTCP). Linux: iperf3's loop, write and, when the
// socket buffer is full, wait for room with a timeout, made from inside
// RawConn.Write: a plain write(2) of the socket, and on EAGAIN ppoll(2)
// for POLLOUT until the next sample is due (100 ms without sampling, to
// look at ctx), so a blocked write comes back for its sample by itself.
// Through net.Conn a blocked write could only be brought back by a write
// deadline, set before each write once writes blocked: a timer change in
// the runtime per write, and a wake-up of the thread sleeping in the
// netpoller for many of them (under load, ~290 eventfd writes and 600-870
// epoll_pwait per GB, against none unsampled), which cost the sampled
// runs throughput on two CPUs though not CPU time of their own.
func writeStream(ctx context.Context, _ *net.TCPConn, rc syscall.RawConn, sm *tcpSampler, size int64, buf []byte, res *TCPResult) error {
	var werr error
	pfd := []unix.PollFd{{Events: unix.POLLOUT}}
	var ts unix.Timespec
	err := rc.Write(func(fd uintptr) bool {
		pfd[0].Fd = int32(fd)
		for res.Written < size {
			if err := ctx.Err(); err != nil {
				werr = err
				return true
			}
			n := int64(len(buf))
			if r := size - res.Written; r < n {
				n = r
			}
			// A raw write: the socket does not block, and through the
			// runtime's system call path (entersyscall) each 128 KiB
			// write, longer than sysmon's 20 µs tick, kept sysmon
			// waking every 20 µs (~6,000 nanosleeps per GB) on a
			// machine with two CPUs for the sender and the receiver.
			r, _, err := unix.RawSyscall(unix.SYS_WRITE, fd, uintptr(unsafe.Pointer(unsafe.SliceData(buf))), uintptr(n))
			if err == 0 {
				res.Written += int64(r)
			}
			now := clock.Now()
			sm.take(now)
			switch err {
			case 0, unix.EINTR:
			case unix.EAGAIN:
				wait := int64(100 * time.Millisecond)
				if sm != nil && !sm.stopped {
					wait = min(wait, max(sm.next-now, 0))
				}
				ts = unix.NsecToTimespec(wait)
				if _, err := unix.Ppoll(pfd, &ts, nil); err != nil && err != unix.EINTR {
					werr = os.NewSyscallError("ppoll", err)
					return true
				}
			default:
				werr = os.NewSyscallError("write", err)
				return true
			}
		}
		return true
	})
	if werr == nil {
		werr = err
	}
	return werr
}
