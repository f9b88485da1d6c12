package cli

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/latlab/latlab/internal/lazy"
	"github.com/latlab/latlab/internal/units"
	"github.com/spf13/pflag"
)

// durationValue is a flag holding a positive duration that must carry a
// unit: 1ms, 500us, 500µs, 0.5ms, 2ms, 1s, 100ns.
type durationValue struct {
	d         *time.Duration
	allowZero bool
}

func (v *durationValue) Set(s string) error {
	d, err := ParseDuration(s)
	if err != nil {
		return err
	}
	if d == 0 && !v.allowZero {
		return fmt.Errorf("must be greater than zero: accepted e.g. 1ms, 500us, 0.5ms, 2ms")
	}
	*v.d = d
	return nil
}

func (v *durationValue) String() string {
	if v.d == nil {
		return ""
	}
	return units.Duration(*v.d)
}

func (v *durationValue) Type() string { return "duration" }

// durationSyntax is a duration time.ParseDuration reads (a sign aside):
// numbers, each with a unit.
var durationSyntax = lazy.Regexp(`^[-+]?(([0-9]+\.?[0-9]*|\.[0-9]+)(ns|us|µs|μs|ms|s|m|h))+$`)

// ParseDuration parses a non-negative duration with a unit.
func ParseDuration(s string) (time.Duration, error) {
	t := strings.TrimSpace(s)
	if t == "0" {
		return 0, nil
	}
	if _, err := strconv.ParseFloat(t, 64); err == nil {
		return 0, fmt.Errorf("needs a unit: accepted e.g. 1ms, 500us, 0.5ms, 2ms")
	}
	d, err := time.ParseDuration(strings.ReplaceAll(t, "μs", "µs"))
	if err != nil && durationSyntax().MatchString(t) {
		// time.ParseDuration says "invalid duration" of a well-formed
		// value it cannot hold as well.
		return 0, fmt.Errorf("out of range: accepted up to %s (about 292 years)", units.FlagDuration(time.Duration(math.MaxInt64).Truncate(time.Hour)))
	}
	if err != nil {
		return 0, fmt.Errorf("want a duration with a unit: accepted e.g. 1ms, 500us, 0.5ms, 2ms")
	}
	if d < 0 {
		return 0, fmt.Errorf("must not be negative: accepted e.g. 1ms, 500us, 0.5ms, 2ms")
	}
	return d, nil
}

// durationFlag defines a duration flag that must be > 0.
func durationFlag(fs *pflag.FlagSet, p *time.Duration, name string, def time.Duration, usage string) {
	*p = def
	fs.Var(&durationValue{d: p}, name, usage)
}

// durationFlagZero defines a duration flag that may be 0.
func durationFlagZero(fs *pflag.FlagSet, p *time.Duration, name string, def time.Duration, usage string) {
	*p = def
	fs.Var(&durationValue{d: p, allowZero: true}, name, usage)
}

// settingsOf records every flag of a command (set or default) for the
// result document.
func settingsOf(fs *pflag.FlagSet) map[string]string {
	m := map[string]string{}
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Name == "help" || isOldSpelling(f) {
			return
		}
		m[f.Name] = f.Value.String()
	})
	return m
}
