package testutil

import "testing"

// A test that judges scheduling skips outside the serial tier and runs
// in it; one whose name the tier's -run would miss fails instead.
func TestSerialMarksSchedulingTests(t *testing.T) {
	for _, c := range []struct {
		name, env string
		skipped   bool
		failed    bool
	}{
		{"TestHogSerial", "", true, false},
		{"TestHogSerial", "1", false, false},
		{"TestHogSerial/sub", "", true, false},
		{"TestHog", "1", false, true},
		{"TestSerialHog", "", false, true},
	} {
		t.Setenv(SerialEnv, c.env)
		r := &recorder{name: c.name}
		func() {
			defer func() { _ = recover() }() // Skipf and Fatalf stop the fake test
			Serial(r)
		}()
		if r.skipped != c.skipped || r.failed != c.failed {
			t.Errorf("%s with %s=%q: skipped %v failed %v, want %v %v", c.name, SerialEnv, c.env, r.skipped, r.failed, c.skipped, c.failed)
		}
	}
}

// recorder is a testing.TB that notes a skip or a failure.
type recorder struct {
	testing.TB
	name            string
	skipped, failed bool
}

func (r *recorder) Helper()               {}
func (r *recorder) Name() string          { return r.name }
func (r *recorder) Skipf(string, ...any)  { r.skipped = true; panic("skip") }
func (r *recorder) Fatalf(string, ...any) { r.failed = true; panic("fatal") }
