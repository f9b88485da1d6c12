package testutil

import (
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/badinput"
)

// CheckBadInput checks the answer of a validation: with want "" that it
// accepted (err is nil); otherwise that it refused as bad input
// (exit 2), in one line that contains want. what names the case in
// the failure.
func CheckBadInput(t testing.TB, what string, err error, want string) {
	t.Helper()
	switch {
	case want == "" && err != nil:
		t.Errorf("%s: %v", what, err)
	case want != "" && (!badinput.Is(err) || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n")):
		t.Errorf("%s: %v, want bad input (one line) with %q", what, err, want)
	}
}

// CheckBadExit is CheckBadInput for a command run whole: with want "" that
// it succeeded (exit 0); otherwise that it refused as bad input, exit 2
// with stderr one line that contains want.
func CheckBadExit(t testing.TB, what string, code int, stderr, want string) {
	t.Helper()
	switch {
	case want == "" && code != 0:
		t.Errorf("%s: exit %d, stderr %q", what, code, stderr)
	case want != "" && (code != 2 || !strings.Contains(stderr, want) || strings.Count(stderr, "\n") != 1 || !strings.HasSuffix(stderr, "\n")):
		t.Errorf("%s: exit %d, stderr %q, want exit 2 and one line with %q", what, code, stderr, want)
	}
}
