package knob

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/knob/backend"
)

// A network adapter's driver states, under <class key>\Ndi\Params\<kw>,
// what its Advanced tab offers for each keyword: a type, a default, a
// min/max for numbers, and for an enum its values with their names (the
// INF's %Medium% strings, resolved at install). latlab shows and accepts
// what the adapter itself declares, and checks a change against it.

// Limits on what is read from Ndi\Params: a driver's key is outside
// input, and an enum of thousands of values helps nobody.
const (
	maxNdiEnum    = 256
	maxNdiNameLen = 100
)

// EnumOpt is one value of an enum keyword: the number stored and the
// name the Advanced tab shows.
type EnumOpt struct {
	Value string `json:"value"`
	Name  string `json:"name"`
}

// NdiParam is a keyword's definition in the adapter's Ndi\Params.
type NdiParam struct {
	Keyword  string    `json:"keyword"`
	Declared bool      `json:"declared"` // the Ndi\Params\<kw> key exists
	Desc     string    `json:"param_desc,omitempty"`
	Type     string    `json:"type,omitempty"` // enum, int, long, word, dword, edit
	Default  string    `json:"default,omitempty"`
	Min      *int64    `json:"min,omitempty"`
	Max      *int64    `json:"max,omitempty"`
	Step     int64     `json:"step,omitempty"`
	Enum     []EnumOpt `json:"enum,omitempty"`
}

// numericType reports whether an Ndi\Params type is a number with a range.
func numericType(t string) bool {
	switch strings.ToLower(t) {
	case "int", "long", "word", "dword":
		return true
	}
	return false
}

func clip(s string) string {
	if len(s) <= maxNdiNameLen {
		return s
	}
	s = s[:maxNdiNameLen]
	for !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s + "..."
}

// readNdiParam reads Ndi\Params\<kw> of the adapter key through the
// registry backend (the real registry, or the in-memory one in tests).
func readNdiParam(env *Env, adapterKey, kw string) (NdiParam, error) {
	key := adapterKey + `\Ndi\Params\` + kw
	p := NdiParam{Keyword: kw}
	v, err := env.read(regLoc(key, ""))
	if err != nil {
		return p, err
	}
	if v.IsAbsent() {
		return p, nil
	}
	p.Declared = true
	p.Desc = clip(readSZ(env, key, "ParamDesc"))
	p.Type = strings.ToLower(clip(readSZ(env, key, "type")))
	p.Default = clip(readSZ(env, key, "default"))
	if numericType(p.Type) {
		if n, err := strconv.ParseInt(strings.TrimSpace(readSZ(env, key, "min")), 10, 64); err == nil {
			p.Min = &n
		}
		if n, err := strconv.ParseInt(strings.TrimSpace(readSZ(env, key, "max")), 10, 64); err == nil {
			p.Max = &n
		}
		if n, err := strconv.ParseInt(strings.TrimSpace(readSZ(env, key, "step")), 10, 64); err == nil && n > 1 {
			p.Step = n
		}
	}
	_, names, err := env.list(backend.BackendRegistry, key+`\Enum`)
	if err == nil {
		if len(names) > maxNdiEnum {
			names = names[:maxNdiEnum]
		}
		for _, n := range names {
			p.Enum = append(p.Enum, EnumOpt{Value: clip(n), Name: clip(readSZ(env, key+`\Enum`, n))})
		}
		sortEnum(p.Enum)
	}
	return p, nil
}

// sortEnum puts numbers in numeric order, anything else after them.
func sortEnum(e []EnumOpt) {
	slices.SortStableFunc(e, func(x, y EnumOpt) int {
		a, errA := strconv.ParseInt(x.Value, 10, 64)
		b, errB := strconv.ParseInt(y.Value, 10, 64)
		switch {
		case errA == nil && errB == nil:
			return cmpInt(a, b)
		case errA == nil:
			return -1
		case errB == nil:
			return 1
		}
		return strings.Compare(x.Value, y.Value)
	})
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// sameNumber compares an enum value name with a number as numbers
// ("04" is 4), falling back to the text.
func sameNumber(value string, n int64) bool {
	if m, err := strconv.ParseInt(strings.TrimSpace(value), 10, 64); err == nil {
		return m == n
	}
	return strings.TrimSpace(value) == strconv.FormatInt(n, 10)
}

// Accepted says what the definition allows, for an error message: "1
// (1 Queue), 2 (2 Queues)" or "1-16"; "" when it constrains nothing.
func (p NdiParam) Accepted() string {
	if len(p.Enum) > 0 {
		var s []string
		for _, o := range p.Enum {
			if o.Name == "" {
				s = append(s, o.Value)
			} else {
				s = append(s, fmt.Sprintf("%s (%s)", o.Value, o.Name))
			}
		}
		return strings.Join(s, ", ")
	}
	if p.Min == nil && p.Max == nil {
		return ""
	}
	var s string
	switch {
	case p.Max == nil:
		s = fmt.Sprintf("%d or more", *p.Min)
	case p.Min == nil:
		s = fmt.Sprintf("up to %d", *p.Max)
	case *p.Min < 0:
		s = fmt.Sprintf("%d to %d", *p.Min, *p.Max)
	default:
		s = fmt.Sprintf("%d-%d", *p.Min, *p.Max)
	}
	if p.Step > 1 {
		s += fmt.Sprintf(" in steps of %d", p.Step)
	}
	return s
}

// Allows reports whether the adapter's own definition admits n: one of
// its enum values, or within its min/max (and step) for a number type.
// A keyword the driver does not declare, or declares without either,
// admits anything: then only the documented ranges apply.
func (p NdiParam) Allows(n int64) bool {
	if len(p.Enum) > 0 {
		for _, o := range p.Enum {
			if sameNumber(o.Value, n) {
				return true
			}
		}
		return false
	}
	if p.Min != nil && n < *p.Min {
		return false
	}
	if p.Max != nil && n > *p.Max {
		return false
	}
	if p.Step > 1 && p.Min != nil && (n-*p.Min)%p.Step != 0 {
		return false
	}
	return true
}

// CheckAgainst is the error for a value the adapter does not offer (nil
// when it does): the one line names the keyword, the value and what the
// adapter accepts, from its Ndi\Params.
func (p NdiParam) CheckAgainst(adapterName string, n int64) error {
	if p.Allows(n) {
		return nil
	}
	return badinput.Errorf("%s=%d is not offered by %q: its Ndi\\Params\\%s accepts %s", p.Keyword, n, adapterName, p.Keyword, p.Accepted())
}
