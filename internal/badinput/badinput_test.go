package badinput

import (
	"errors"
	"fmt"
	"io/fs"
	"testing"
)

func TestIs(t *testing.T) {
	for _, c := range []struct {
		err  error
		want bool
	}{
		{nil, false},
		{errors.New("disk on fire"), false},
		{Errorf("invalid --top %d", -1), true},
		{fmt.Errorf("reading: %w", Wrap(fs.ErrNotExist)), true},
		{Wrap(nil), false},
	} {
		if got := Is(c.err); got != c.want {
			t.Errorf("Is(%v) = %v, want %v", c.err, got, c.want)
		}
	}
	if err := Errorf("cannot read %s: %w", "x.json", fs.ErrNotExist); !errors.Is(err, fs.ErrNotExist) || err.Error() != "cannot read x.json: file does not exist" {
		t.Errorf("Errorf: %v", err)
	}
}
