package testutil

import (
	"errors"
	"fmt"
	"testing"

	"github.com/latlab/latlab/internal/badinput"
)

// failures is a testing.TB that counts the failures reported to it.
type failures struct {
	testing.TB
	n int
}

func (f *failures) Helper()               {}
func (f *failures) Errorf(string, ...any) { f.n++ }
func (f *failures) Fatalf(string, ...any) { f.n++ }
func (f *failures) Error(...any)          { f.n++ }
func (f *failures) Fatal(...any)          { f.n++ }
func (f *failures) Logf(string, ...any)   {}
func (f *failures) Log(...any)            {}

func TestCheckBadInput(t *testing.T) {
	bad := badinput.Wrap(errors.New("invalid --rate: want 1 to 1000"))
	for _, c := range []struct {
		err  error
		want string
		fail bool
	}{
		{nil, "", false},
		{bad, "invalid --rate", false},
		{bad, "", true},
		{nil, "invalid --rate", true},
		{bad, "invalid --size", true},
		{errors.New("invalid --rate"), "invalid --rate", true}, // not bad input
		{badinput.Wrap(errors.New("invalid --rate\nand more")), "invalid --rate", true},
	} {
		f := &failures{TB: t}
		CheckBadInput(f, "case", c.err, c.want)
		if (f.n > 0) != c.fail {
			t.Errorf("CheckBadInput(%v, %q): %d failures, want failing %v", c.err, c.want, f.n, c.fail)
		}
	}
}

func TestCheckBadExit(t *testing.T) {
	const line = "latlab: invalid --rate: want 1 to 1000\n"
	for _, c := range []struct {
		code   int
		stderr string
		want   string
		fail   bool
	}{
		{0, "", "", false},
		{0, "latlab: a warning\n", "", false},
		{2, line, "invalid --rate", false},
		{2, line, "", true},
		{1, line, "invalid --rate", true},
		{3, line, "invalid --rate", true},
		{2, line, "invalid --size", true},
		{2, line + "Usage: ...\n", "invalid --rate", true},
		{2, "latlab: invalid --rate", "invalid --rate", true},
		{0, "", "invalid --rate", true},
	} {
		f := &failures{TB: t}
		CheckBadExit(f, "case", c.code, c.stderr, c.want)
		if (f.n > 0) != c.fail {
			t.Errorf("%s: %d failures, want failing %v", fmt.Sprint(c.code, " ", c.stderr, " ", c.want), f.n, c.fail)
		}
	}
}
