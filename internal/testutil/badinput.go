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
