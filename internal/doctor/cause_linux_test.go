package doctor_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/latlab/latlab/internal/doctor"
	"github.com/latlab/latlab/internal/report"
	"github.com/latlab/latlab/internal/testutil"
)

func TestMain(m *testing.M) {
	testutil.HogMain()
	os.Exit(m.Run())
}

// Known answer: a CPU hog the test pins to a CPU is the cause the
// check-up's summary names, with its pid and that CPU, from the traced
// second run; the untraced figures stay the check-up's own. The hog is
// judged against what else the trace saw, not against a latency: on a
// loaded machine other threads delay wake-ups too, but none for as long
// in all as a nice -20 thread that never sleeps. It runs in the serial
// tier all the same: in a race run beside other packages' tests the
// traced run, pinned beside the hog, once measured no wake-up at all in
// its 1.5 s (then "not traced"; the warm-up's trace names the hog now).
func TestCheckupNamesTheHogSerial(t *testing.T) {
	testutil.Serial(t)
	testutil.NeedTracing(t)
	cpu := 0
	// A session of its own: an autogroup of its own, at nice -20.
	hog := testutil.StartHog(t, cpu, testutil.HogOptions{OwnSession: true})

	o := doctor.ForProfile(doctor.Quick)
	o.SleepSamples, o.WakeDuration, o.CauseDuration = 5, 300*time.Millisecond, 1500*time.Millisecond
	// The traced run measures on the hog's CPU, where a nice -20 thread
	// that never sleeps outweighs any number of nice 0 ones: on the
	// other CPU the worst wake-ups of a loaded machine are anyone's.
	o.CauseCPUs = []int{cpu}
	r, err := doctor.Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	c := r.Cause
	// Beside the hog the traced run may measure no wake-up at all (its
	// thread's first came after the run's end): the cause then comes from
	// the trace of that one wait, and the run says so.
	starved := c != nil && c.Traced == nil && strings.Contains(c.Run, "measured no wake-up")
	if c == nil || c.Missing != "" || c.Source != "tracefs" || (c.Traced == nil && !starved) || len(c.Explained) == 0 {
		t.Fatalf("no traced cause: %+v", c)
	}
	comm, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(hog.Pid), "comm"))
	name := strings.TrimSpace(string(comm))
	if c.Kind != "thread" || !testutil.InProcess(c.PID, hog.Pid) || c.Name != name || !slices.Contains(c.CPUs, cpu) {
		for _, l := range doctor.Culprits(c.Explained) {
			t.Log(l)
		}
		t.Fatalf("the cause is %s %s (pid %d) on CPUs %v, not the hog %s (pid %d) on CPU %d", c.Kind, c.Name, c.PID, c.CPUs, name, hog.Pid, cpu)
	}
	summary := strings.Join(report.DoctorSummary(r), "\n")
	if want := fmt.Sprintf("thread %s (pid %d) on CPU %d", name, c.PID, cpu); !strings.Contains(strings.Join(strings.Fields(summary), " "), want) {
		t.Errorf("the summary does not name the hog (%q):\n%s", want, summary)
	}
	if !strings.Contains(c.Run, "traced") || !strings.Contains(c.Run, "untraced") {
		t.Errorf("the cause does not say which run it came from: %q", c.Run)
	}
	// The check-up's figures are the untraced run's, the traced run's
	// stand beside them. (Not compared by size: with the hog on its CPU
	// the traced run may take fewer wake-ups in 1.5 s than the unpinned
	// one in 300 ms.)
	if starved {
		return
	}
	if *c.Traced == r.Wake.Summary || !strings.Contains(c.Run, "p99 ") {
		t.Errorf("the wake figures are the traced run's: %+v, run %q", r.Wake.Summary, c.Run)
	}
}
