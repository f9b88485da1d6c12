package clock

import "testing"

// A counter value read between two Now calls converts to a time between
// them: FromTicks has Now's frequency and origin. A conversion at another
// frequency (or from another origin) lands far outside the pair.
func TestFromTicksIsOnNowsTimeline(t *testing.T) {
	for i := 0; i < 1000; i++ {
		a := Now()
		b := FromTicks(Ticks())
		c := Now()
		if b < a || b > c {
			t.Fatalf("FromTicks(Ticks()) = %d, outside the Now readings around it: %d, %d", b, a, c)
		}
	}
}
