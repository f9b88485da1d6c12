package netload

import (
	"context"
	"errors"
	"net"
	"os"
	"syscall"
	"time"

	"github.com/latlab/latlab/internal/clock"
)

// writeStream writes size bytes from buf over and over to c, sampling
// between writes (see runTCP). Windows: net.Conn writes; only on a slow
// path (a write blocked for more than half a period) does a deadline at
// each due time bring a blocked write back for the sample. A done ctx
// ends the writes through the deadline its AfterFunc set.
//
// A write that took more than half a period, or that the sampler's
// deadline interrupted, makes the writes of the next second (until
// slowEnd) arm a deadline: a slow path blocks some writes for long and
// lets the ones between through at once. Once a second has passed
// without, writes no longer arm it.
func writeStream(_ context.Context, c *net.TCPConn, _ syscall.RawConn, sm *tcpSampler, size int64, buf []byte, res *TCPResult) error {
	var slowEnd int64
	for res.Written < size {
		n := int64(len(buf))
		if r := size - res.Written; r < n {
			n = r
		}
		t := clock.Now()
		if sm != nil && t < slowEnd {
			sm.arm(c.SetWriteDeadline)
		}
		k, err := c.Write(buf[:n])
		res.Written += int64(k)
		now := clock.Now()
		interrupted := sm.take(now) && errors.Is(err, os.ErrDeadlineExceeded)
		if sm != nil && !sm.stopped {
			if interrupted || 2*(now-t) > sm.every {
				slowEnd = now + slowHold
			}
			if now >= slowEnd && sm.armed != 0 {
				sm.disarm()
			}
		}
		if interrupted {
			continue // the sampler's deadline: the write goes on
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// slowHold is how long writes arm deadlines after one blocked.
const slowHold = int64(time.Second)
