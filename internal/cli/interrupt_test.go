package cli

import (
	"bytes"
	"context"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/latlab/latlab/internal/host"
	"github.com/latlab/latlab/internal/probe"
	"github.com/latlab/latlab/internal/report"
	"github.com/latlab/latlab/internal/timer"
)

// cancelAfterLines cancels a context once n lines were written to it, as a
// Ctrl-C during `sleep --live` would.
type cancelAfterLines struct {
	mu     sync.Mutex
	n      int
	cancel context.CancelFunc
	buf    bytes.Buffer
}

func (c *cancelAfterLines) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.buf.Write(p)
	if strings.Count(c.buf.String(), "\n") >= c.n {
		c.cancel()
	}
	return len(p), nil
}

// A sleep run stopped before its sample count writes its partial result
// and says so: interrupted, the requested and the measured count, in the
// document and the output.
func TestSleepInterruptedIsMarked(t *testing.T) {
	ctx, cancelCause := context.WithCancelCause(context.Background())
	defer cancelCause(nil)
	// As Ctrl-C does: the signal is the cause.
	errw := &cancelAfterLines{n: 5, cancel: func() { cancelCause(&Interrupted{Signal: os.Interrupt}) }}
	var out bytes.Buffer
	const planned = 100_000 // minutes of sleeping: only the cancel ends the run
	code := Run(ctx, []string{"sleep", "--live", "--json", "--samples", "100000", "--gap", "0", "--sleep-length", "1ms"},
		&IO{In: strings.NewReader(""), Out: &out, Err: errw})
	if code != 130 {
		t.Fatalf("exit %d, want 130 (interrupted): %s", code, errw.buf.String())
	}
	doc := readDoc(t, out.String())
	d := payload(t, doc, probe.KindSleep)
	if !d.Interrupted || d.RequestedCount != planned ||
		d.MeasuredCount < 5 || d.MeasuredCount >= planned || d.MeasuredCount != d.Summary.Count {
		t.Fatalf("interrupted %v, requested %d, measured %d, summary count %d", d.Interrupted, d.RequestedCount, d.MeasuredCount, d.Summary.Count)
	}
	if !strings.Contains(out.String(), `"interrupted": true`) {
		t.Errorf("document lacks \"interrupted\": true")
	}
	var b bytes.Buffer
	report.Sleep(&b, doc, &probe.SleepResult{Requested: time.Duration(d.Measurement.RequestedNs)})
	if !strings.Contains(b.String(), "interrupted: ") || !strings.Contains(b.String(), " of 100000 planned samples measured") {
		t.Errorf("output does not say the run was interrupted:\n%s", b.String())
	}
}

// A run that ends on its count is not interrupted; one until Ctrl-C has no
// planned count and is not interrupted either.
func TestSleepCompleteIsNotInterrupted(t *testing.T) {
	for _, c := range []struct {
		samples int
		stopped bool
	}{{3, false}, {0, true}} {
		r := &probe.SleepResult{Method: "m", Requested: time.Millisecond, Slept: []int64{1_100_000, 1_200_000, 1_300_000}, Stopped: c.stopped}
		doc, err := probe.SleepDocument(host.Facts{}, r, c.samples, timer.Status{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if d := payload(t, doc, probe.KindSleep); d.Interrupted || d.RequestedCount != int64(c.samples) || d.MeasuredCount != 3 {
			t.Errorf("samples %d: interrupted %v, requested %d, measured %d", c.samples, d.Interrupted, d.RequestedCount, d.MeasuredCount)
		}
		var b bytes.Buffer
		report.Sleep(&b, doc, r)
		if strings.Contains(b.String(), "interrupted:") {
			t.Errorf("samples %d: output says interrupted:\n%s", c.samples, b.String())
		}
	}
}

// A wake run stopped early is marked the same way, over all threads.
func TestWakeInterruptedIsMarked(t *testing.T) {
	th := probe.WakeThread{Latencies: []int64{50_000, 60_000}}
	stopped := th
	stopped.Stopped = true
	for _, c := range []struct {
		threads []probe.WakeThread
		want    bool
	}{
		{[]probe.WakeThread{th, stopped}, true},
		{[]probe.WakeThread{th, th}, false},
	} {
		r := &probe.WakeResult{Interval: time.Millisecond, Planned: 1000, Threads: c.threads}
		doc, err := probe.WakeDocument(host.Facts{}, r, timer.Status{}, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		if d := payload(t, doc, probe.KindWake); d.Interrupted != c.want || d.RequestedCount != 2000 || d.MeasuredCount != 4 {
			t.Errorf("interrupted %v (want %v), requested %d, measured %d", d.Interrupted, c.want, d.RequestedCount, d.MeasuredCount)
		}
		var b bytes.Buffer
		report.Wake(&b, doc)
		if got := strings.Contains(b.String(), "interrupted: 4 of 2000 planned wake-ups measured"); got != c.want {
			t.Errorf("output says interrupted: %v, want %v:\n%s", got, c.want, b.String())
		}
	}
}

// Ctrl-C before the first wake-up leaves nothing to report: an error, not
// an empty document.
func TestWakeCancelledAtOnce(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out, errb bytes.Buffer
	code := Run(ctx, []string{"wake", "--loops", "100", "--json"}, &IO{In: strings.NewReader(""), Out: &out, Err: &errb})
	if code == 0 || !strings.Contains(errb.String(), "no wake-ups were measured") {
		t.Errorf("exit %d, stderr %q", code, errb.String())
	}
}

// Ctrl-C before the first sample says so in one line, with the exit
// status of an interrupted run; a run interrupted after its first sample
// reports what it measured (above).
func TestInterruptedBeforeTheFirstSample(t *testing.T) {
	for _, args := range [][]string{
		{"sleep", "--samples", "5", "--sleep-length", "1ms"},
		{"wake", "--loops", "5"},
		{"noise", "--duration", "1s", "--cpus", "0"},
	} {
		ctx, cancelCause := context.WithCancelCause(context.Background())
		cancelCause(&Interrupted{Signal: os.Interrupt})
		var out, errb bytes.Buffer
		code := Run(ctx, args, &IO{In: strings.NewReader(""), Out: &out, Err: &errb})
		if code != 130 || errb.String() != "latlab: interrupted before the first sample\n" {
			t.Errorf("%v: exit %d, stderr %q", args, code, errb.String())
		}
	}
}
