package exporter

import (
	"os"
	"strconv"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/latlab/latlab/internal/testutil"
)

// With --rtprio every thread of the process was SCHED_FIFO, the HTTP
// server's, TLS's and bcrypt's included; now the probe thread alone is.
func TestRTPrioRaisesOnlyTheProbeThread(t *testing.T) {
	testutil.NeedRoot(t)
	o := fastOptions()
	o.RTPrio = 10
	addr, e := started(t, o)
	waitHealthy(t, "http://"+addr, e, 2)
	ents, err := os.ReadDir("/proc/self/task")
	if err != nil {
		t.Fatal(err)
	}
	fifo := 0
	for _, d := range ents {
		tid, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		if a, err := unix.SchedGetAttr(tid, 0); err == nil && a.Policy == unix.SCHED_FIFO {
			fifo++
		}
	}
	if fifo != 1 {
		t.Fatalf("%d of %d threads SCHED_FIFO, want the probe thread alone", fifo, len(ents))
	}
}
