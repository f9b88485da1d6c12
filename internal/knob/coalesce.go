package knob

import (
	"strconv"
	"strings"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/knob/backend"
)

// coalesceSetting is one NAME=VALUE of the coalescing knob's value.
type coalesceSetting struct {
	Name  string
	Value uint32
	index int
}

// ParseCoalesce reads "rx-usecs=50,adaptive-rx=off".
func ParseCoalesce(s string) ([]coalesceSetting, error) {
	var out []coalesceSetting
	for _, part := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' }) {
		k, v, ok := strings.Cut(part, "=")
		if !ok {
			return nil, badinput.Errorf("invalid coalescing setting %q: want NAME=VALUE, e.g. rx-usecs=50,adaptive-rx=off", part)
		}
		k = strings.ToLower(strings.TrimSpace(k))
		idx := -1
		for i, f := range backend.CoalesceFields() {
			if f.Name == k {
				idx = i
			}
		}
		if idx < 0 {
			return nil, badinput.Errorf("unknown coalescing parameter %q: accepted %s", k, strings.Join(backend.CoalesceNames(), ", "))
		}
		var n uint64
		if strings.HasPrefix(k, "adaptive-") {
			b, ok := parseBool01(v)
			if !ok {
				return nil, badinput.Errorf("invalid %s %q: accepted on|off", k, v)
			}
			n = uint64(b)
		} else {
			var err error
			n, err = strconv.ParseUint(strings.TrimSpace(v), 10, 32)
			if err != nil {
				return nil, badinput.Errorf("invalid %s %q: want a whole number 0-4294967295", k, v)
			}
		}
		out = append(out, coalesceSetting{Name: k, Value: uint32(n), index: idx})
	}
	if len(out) == 0 {
		return nil, badinput.Errorf("no coalescing setting given: want NAME=VALUE, e.g. rx-usecs=50,adaptive-rx=off")
	}
	return out, nil
}
