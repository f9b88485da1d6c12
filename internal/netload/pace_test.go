package netload

import (
	"sync/atomic"
	"testing"
	"time"
)

// fakeTime is a clock and a Waiter on a simulated timeline: a wait ends
// wakeLate after its deadline, each clock reading costs readCost.
type fakeTime struct {
	t, wakeLate, readCost int64
	waits                 []int64 // when each wait ended
}

func (f *fakeTime) now() int64 { f.t += f.readCost; return f.t }

func (f *fakeTime) WaitUntil(d int64) (int, error) {
	if d > f.t {
		f.t = d
	}
	f.t += f.wakeLate
	f.waits = append(f.waits, f.t)
	return 0, nil
}

func (f *fakeTime) Close() {}

func TestPaceModeFor(t *testing.T) {
	bulk := profiles["bulk"]
	for _, c := range []struct {
		pps  float64
		want paceMode
	}{
		{profiles["game"].RatePPS, paceSpin}, {profiles["voice"].RatePPS, paceSpin},
		{1250, paceSpin}, {1251, paceSleep}, {10_000, paceSleep}, {10_001, paceBurst}, {bulk.RatePPS, paceBurst},
	} {
		if got := paceModeFor(1e9 / c.pps); got != c.want {
			t.Errorf("%v packets/s: mode %d, want %d", c.pps, got, c.want)
		}
	}
}

// Every mode sends each packet once, in order, never before its time; at
// the bulk rate the thread wakes at most once per SpinMargin instead of
// once per packet, and each packet's lag is against its own time.
func TestPaceSchedule(t *testing.T) {
	margin := int64(SpinMargin)
	for _, c := range []struct {
		name     string
		mode     paceMode
		period   float64
		n        int64
		wakeLate int64
		maxLag   int64 // bound on every packet's send lag
		maxWaits int   // bound on the number of wake-ups
	}{
		// Spinning absorbs a wake-up up to the margin late: lag is only
		// the clock readings.
		{"spin", paceSpin, 7_812_500, 100, 50_000, 100, 100},
		{"sleep", paceSleep, 500_000, 100, 20_000, 20_000 + 100, 100},
		// 10,000 packets at the bulk period span 112 ms: at most one wake
		// per 100 µs, i.e. 1,120, against 10,000 when waking per packet.
		{"burst", paceBurst, 1e9 / profiles["bulk"].RatePPS, 10_000, 20_000, margin + 20_000 + 1000, 1121},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := &fakeTime{t: 0, wakeLate: c.wakeLate, readCost: 10}
			start := int64(time.Millisecond)
			var next int64
			var worst int64
			var stop atomic.Bool
			interrupted, _ := pace(f, f.now, c.mode, start, c.period, c.n, &stop, fixedSpinner(c.period), func(i, due, at int64, held bool) bool {
				if i != next {
					t.Fatalf("packet %d sent, want %d", i, next)
				}
				next++
				if want := start + int64(float64(i)*c.period); due != want {
					t.Fatalf("packet %d due %d, want %d", i, due, want)
				}
				if at < due {
					t.Fatalf("packet %d sent %d ns early", i, due-at)
				}
				worst = max(worst, at-due)
				f.t += 500 // the send itself
				return true
			})
			if interrupted || next != c.n {
				t.Fatalf("sent %d of %d, interrupted %v", next, c.n, interrupted)
			}
			if worst > c.maxLag {
				t.Fatalf("worst send lag %d ns, want <= %d", worst, c.maxLag)
			}
			if len(f.waits) > c.maxWaits {
				t.Fatalf("%d wake-ups, want <= %d", len(f.waits), c.maxWaits)
			}
			if c.mode == paceBurst {
				for k := 1; k < len(f.waits); k++ {
					if gap := f.waits[k] - f.waits[k-1]; gap < margin {
						t.Fatalf("wake-ups %d and %d are %d ns apart, want >= %d", k-1, k, gap, margin)
					}
				}
			}
		})
	}
	var stop atomic.Bool
	stop.Store(true)
	f := &fakeTime{}
	if stopped, _ := pace(f, f.now, paceBurst, 0, 1000, 10, &stop, fixedSpinner(1000), func(i, due, at int64, held bool) bool { t.Fatal("sent after stop"); return true }); !stopped {
		t.Fatal("a stopped run is not reported as interrupted")
	}
}

// A packet the held thread cannot send without waiting (its socket is
// full) is sent again with the hold let go; the next one is tried held
// again. Every packet goes out once.
func TestPaceSendsUnheldWhenHeldSendDeclines(t *testing.T) {
	f := &fakeTime{readCost: 10}
	var stop atomic.Bool
	type call struct {
		i    int64
		held bool
	}
	var calls []call
	_, err := pace(f, f.now, paceSleep, 1000, 1000, 3, &stop, fixedSpinner(1000), func(i, due, at int64, held bool) bool {
		calls = append(calls, call{i, held})
		return !held || i != 1 // packet 1 finds the socket full
	})
	want := []call{{0, true}, {1, true}, {1, false}, {2, true}}
	if err != nil || len(calls) != len(want) {
		t.Fatalf("calls %v, %v; want %v", calls, err, want)
	}
	for k := range want {
		if calls[k] != want[k] {
			t.Fatalf("calls %v, want %v", calls, want)
		}
	}
}

// preemptingTime is fakeTime whose clock jumps (the thread lost the CPU)
// at the readings listed in jumps.
type preemptingTime struct {
	fakeTime
	reads int
	jumps map[int]int64
}

func (p *preemptingTime) now() int64 {
	p.reads++
	p.t += p.readCost + p.jumps[p.reads]
	return p.t
}

// A spin that was preempted turns spinning off for a while: the
// following sends sleep to their send time (no wake-up a margin early),
// more of them after each further preempted spin, and spinning resumes
// after that.
func TestPaceStopsSpinningWhenPreempted(t *testing.T) {
	period := 7_812_500.0
	p := &preemptingTime{fakeTime: fakeTime{readCost: 10}, jumps: map[int]int64{}}
	start := int64(time.Millisecond)
	// the first spin is preempted: the clock jumps 1 ms on its second reading
	p.jumps[5] = int64(time.Millisecond)
	var stop atomic.Bool
	var dues []int64
	n := int64(spinBackoffMin + 24)
	if _, err := pace(p, p.now, paceSpin, start, period, n, &stop, fixedSpinner(period), func(i, due, at int64, held bool) bool {
		dues = append(dues, due)
		return true
	}); err != nil {
		t.Fatal(err)
	}
	early := 0 // wake-ups a spin margin before their packet's time
	for i, w := range p.waits {
		if w < dues[i] {
			early++
			if i >= 1 && i <= spinBackoffMin {
				t.Errorf("send %d woke %d ns early: spinning should be off after the preempted spin", i, dues[i]-w)
			}
		}
	}
	if want := int(n) - spinBackoffMin; early != want {
		t.Errorf("%d sends spun, want %d (all but the %d after the preempted spin)", early, want, spinBackoffMin)
	}
}

// lateTime is fakeTime whose wake-ups listed in late come that much
// after their deadline (the scheduler ran another thread first).
type lateTime struct {
	fakeTime
	late  map[int]int64 // by wait, from 0
	asked []int64       // each wait's deadline
}

func (l *lateTime) WaitUntil(d int64) (int, error) {
	l.wakeLate = l.late[len(l.waits)]
	l.asked = append(l.asked, d)
	return l.fakeTime.WaitUntil(d)
}

// On a calm CPU a wake-up later than the widest margin turns spinning
// off as a preempted spin does, one later than the margin but within the
// widest widens the margin, and one within the margin changes nothing.
// On a busy CPU (or where switches are not counted) any wake-up with no
// time left to spin turns spinning off, and the margin stays.
func TestPaceStopsSpinningWhenWokenLate(t *testing.T) {
	period := 7_812_500.0
	for _, c := range []struct {
		name   string
		calm   bool
		late   int64
		wantN  int   // sends that spun
		margin int64 // the second spun send's margin
	}{
		{"calm, beyond the widest margin", true, int64(600 * time.Microsecond), 24, int64(SpinMargin)},
		{"calm, within the widest margin", true, int64(300 * time.Microsecond), spinBackoffMin + 24, int64(320 * time.Microsecond)},
		{"calm, within the margin", true, int64(SpinMargin) / 2, spinBackoffMin + 24, int64(SpinMargin)},
		{"busy, after the send time", false, int64(SpinMargin) + 1_000, 24, int64(SpinMargin)},
		{"busy, within the margin", false, int64(SpinMargin) / 2, spinBackoffMin + 24, int64(SpinMargin)},
	} {
		t.Run(c.name, func(t *testing.T) {
			l := &lateTime{fakeTime: fakeTime{readCost: 10}, late: map[int]int64{0: c.late}}
			sp := fixedSpinner(period)
			if c.calm {
				sp.switches = func(*threadUsage) int64 { return 7 }
			}
			var stop atomic.Bool
			var dues []int64
			if _, err := pace(l, l.now, paceSpin, int64(time.Millisecond), period, spinBackoffMin+24, &stop, sp, func(i, due, at int64, held bool) bool {
				dues = append(dues, due)
				return true
			}); err != nil {
				t.Fatal(err)
			}
			var spun []int // wake-ups asked for a spin margin before their packet's time
			for i, d := range l.asked {
				if d < dues[i] {
					spun = append(spun, i)
				}
			}
			// the late first send counts as spun (it woke to spin); then
			// spinBackoffMin sends sleep to their time
			if len(spun) != c.wantN {
				t.Fatalf("%d sends spun, want %d", len(spun), c.wantN)
			}
			i := spun[1]
			if m := dues[i] - l.asked[i]; m < c.margin || m > c.margin+100 {
				t.Errorf("send %d woke %d ns early, want %d", i, m, c.margin)
			}
		})
	}
}

// gapTime is fakeTime whose first reading at or after gapAt comes 1 ms
// after the one before: a gap in a spin.
type gapTime struct {
	fakeTime
	gapAt  int64
	gapped bool
}

func (g *gapTime) now() int64 {
	t := g.fakeTime.now()
	if !g.gapped && t >= g.gapAt {
		g.gapped = true
		g.t += int64(time.Millisecond)
	}
	return g.t
}

// A gap in a spin on a calm CPU turns spinning off only if the thread was
// switched out for another meanwhile: a gap with no switch was the
// hypervisor's. On a busy CPU, or where switches are not counted, every
// gap does.
func TestPaceSpinGapWithoutSwitch(t *testing.T) {
	period := 7_812_500.0
	start := int64(time.Millisecond)
	for _, c := range []struct {
		name     string
		switches func(g *gapTime, n int64) int64 // n: the calls so far
		wantSpun int
	}{
		{"calm, no switch", func(*gapTime, int64) int64 { return 7 }, spinBackoffMin + 24},
		{"calm, switched out", func(g *gapTime, _ int64) int64 {
			if g.gapped {
				return 8
			}
			return 7
		}, 24},
		{"not counted", func(*gapTime, int64) int64 { return -1 }, 24},
		// switched out before every send: the CPU is busy, and spinning
		// does not resume after the back-off (TestPaceProbesWhenCalm)
		{"busy, no switch", func(_ *gapTime, n int64) int64 { return n }, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			// the 21st send's spin (from 100 µs before its time) is
			// interrupted halfway
			g := &gapTime{fakeTime: fakeTime{readCost: 10}, gapAt: start + int64(20*period) - int64(SpinMargin)/2}
			sp := newSpinner(period, false)
			calls := int64(0)
			sp.switches = func(*threadUsage) int64 { calls++; return c.switches(g, calls) }
			var stop atomic.Bool
			var dues []int64
			if _, err := pace(g, g.now, paceSpin, start, period, spinBackoffMin+44, &stop, &sp, func(i, due, at int64, held bool) bool {
				dues = append(dues, due)
				return true
			}); err != nil {
				t.Fatal(err)
			}
			if !g.gapped {
				t.Fatal("no gap")
			}
			spun := 0
			for i, w := range g.waits {
				if w < dues[i] {
					spun++
				}
			}
			if want := c.wantSpun + 20; spun != want {
				t.Errorf("%d sends spun, want %d", spun, want)
			}
		})
	}
}

// After a back-off, spinning resumes only once the thread is calm again
// (at most calmSwitches of its latest 64 sends followed an involuntary
// switch) where its switches are counted, and at once where they are not.
func TestPaceProbesWhenCalm(t *testing.T) {
	period := 7_812_500.0
	start := int64(time.Millisecond)
	const busyUntil = 300 // the sends before it follow a switch each
	for _, c := range []struct {
		name      string
		counted   bool
		firstSpin int // the first send that spins after the preempted first one
	}{
		// calm once no more than 8 of the latest 64 followed a switch:
		// sends busyUntil+56 on
		{"counted", true, busyUntil + 64 - calmSwitches},
		{"not counted", false, 1 + spinBackoffMin},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := &preemptingTime{fakeTime: fakeTime{readCost: 10}, jumps: map[int]int64{}}
			p.jumps[5] = int64(time.Millisecond) // the first send's spin is preempted
			sp := newSpinner(period, false)
			sends, switches := int64(0), int64(0)
			sp.switches = func(*threadUsage) int64 {
				if !c.counted {
					return -1
				}
				if sends < busyUntil {
					switches++ // switched out since the last reading
				}
				return switches
			}
			var stop atomic.Bool
			var dues []int64
			n := int64(busyUntil + 100)
			if _, err := pace(p, p.now, paceSpin, start, period, n, &stop, &sp, func(i, due, at int64, held bool) bool {
				dues = append(dues, due)
				sends++
				return true
			}); err != nil {
				t.Fatal(err)
			}
			first := -1
			for i, w := range p.waits {
				if i > 0 && w < dues[i] {
					first = i
					break
				}
			}
			if first != c.firstSpin {
				t.Errorf("send %d spun first after the preempted spin, want %d", first, c.firstSpin)
			}
		})
	}
}

// fixedSpinner is the spinning state of a thread at normal priority
// whose switches are not counted: every gap in a spin is a preemption.
func fixedSpinner(period float64) *spinner {
	s := newSpinner(period, false)
	s.switches = func(*threadUsage) int64 { return -1 }
	return &s
}

// A realtime pacer widens its margin after a wake-up later than the
// margin allowed for, so that the next late wake-up of that size still
// spins to its send time; the margin then shrinks back toward SpinMargin,
// is bounded, and the thread never stops spinning.
func TestPaceRealtimeWidensMargin(t *testing.T) {
	period := 7_812_500.0
	late := int64(130 * time.Microsecond) // a virtual CPU's exit from idle
	l := &lateTime{fakeTime: fakeTime{readCost: 10}, late: map[int]int64{3: late, 10: late, 50: int64(5 * time.Millisecond)}}
	sp := newSpinner(period, true)
	var stop atomic.Bool
	var dues, sentAt []int64
	n := int64(60)
	if _, err := pace(l, l.now, paceSpin, int64(time.Millisecond), period, n, &stop, &sp, func(i, due, at int64, held bool) bool {
		dues, sentAt = append(dues, due), append(sentAt, at)
		return true
	}); err != nil {
		t.Fatal(err)
	}
	margin := func(i int) int64 { return dues[i] - l.asked[i] }
	for i := range dues {
		if margin(i) <= 0 {
			t.Fatalf("send %d slept to its send time: a realtime pacer always spins", i)
		}
	}
	if m := margin(3); m != int64(SpinMargin) {
		t.Errorf("send 3 woke %d ns early, want the first margin %d", m, SpinMargin)
	}
	if lag := sentAt[3] - dues[3]; lag <= 0 {
		t.Errorf("send 3, woken %d ns after its margin, was sent %d ns after its time, want late", late, lag)
	}
	// the next wake-up allows for the late one, and the same lateness
	// then still leaves time to spin
	if m, want := margin(4), late+marginGuard; m < want || m > want+100 {
		t.Errorf("send 4 woke %d ns early, want %d (the lateness plus the guard, plus a clock reading)", m, want)
	}
	if m := margin(9); m >= late+marginGuard || m <= int64(SpinMargin) {
		t.Errorf("send 9 woke %d ns early: the margin should shrink toward %d, not below", m, SpinMargin)
	}
	if lag := sentAt[10] - dues[10]; lag < 0 || lag > 1000 {
		t.Errorf("send 10, woken %d ns late again, was sent %d ns after its time, want on time", late, lag)
	}
	// a wake-up later than the cap widens the margin only to the cap
	if m, want := margin(51), int64(500*time.Microsecond); m != want {
		t.Errorf("after a 5 ms late wake-up the margin is %d ns, want the cap %d", m, want)
	}
	if sp.widest != int64(500*time.Microsecond) {
		t.Errorf("widest margin %d, want the cap", sp.widest)
	}
}

// The cap is an eighth of the period when that is below maxSpinMargin.
func TestSpinnerMaxMargin(t *testing.T) {
	for _, c := range []struct {
		period float64
		want   int64
	}{
		{7_812_500, maxSpinMargin},
		{2_000_000, 250_000},
		{800_000, int64(SpinMargin)},
	} {
		if got := newSpinner(c.period, true).maxMargin; got != c.want {
			t.Errorf("period %.0f ns: cap %d, want %d", c.period, got, c.want)
		}
	}
}
