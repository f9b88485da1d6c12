package knob

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/latlab/latlab/internal/knob/journal"

	"github.com/latlab/latlab/internal/knob/backend"
)

// The helpers the knobs' Vet methods share (each Vet lives in its knob's
// file): Vet is the catalogue's word on where a knob writes and what it
// can find there.
// Apply checks every change of a plan with it and Revert every journal
// entry, so a journal forged by someone who could write the state
// directory cannot make latlab write anywhere else, or write there a
// value the knob would never have recorded.

// ErrEmptyFile is a kernel setting file found empty. None of the files
// the knobs write is ever empty, so an empty one was left by a write cut
// short (by a tool that truncates before it writes).
var ErrEmptyFile = errors.New("the file is empty, which this setting never is")

// vetEntry checks a journal entry against the catalogue: its knob exists,
// its location is one the knob writes for its target, and its original
// (and its guard) are values the knob could have found there. For a knob
// whose target is tied to its locations by the machine (a liveVetter),
// env's backends are asked too.
func vetEntry(env *Env, e *journal.Entry) error {
	k, ok := catalogue()[e.Knob]
	if !ok {
		return fmt.Errorf("unknown knob %q", e.Knob)
	}
	if err := vetChange(env, k, e.Target, e.Loc, e.Original); err != nil {
		return err
	}
	if e.Guard != nil {
		if err := vetChange(env, k, e.Target, e.Guard.Loc, e.Guard.Value); err != nil {
			return fmt.Errorf("guard: %w", err)
		}
	}
	return nil
}

// liveVetter is a knob whose Vet cannot tie a location to the target by
// the location alone: the target names a network adapter by its
// DriverDesc, and which class sub-key (0007) or device instance is that
// adapter's is a fact of the machine. VetLive checks it there, through
// the backend the knob's Plan reads, after Vet has passed: a journal
// entry that names the keyword of another adapter is refused.
type liveVetter interface {
	VetLive(env *Env, target string, l backend.Loc, v backend.Value) error
}

// vetChange is Vet, then VetLive for a knob that has it.
func vetChange(env *Env, k Knob, target string, l backend.Loc, v backend.Value) error {
	if err := k.Vet(target, l, v); err != nil {
		return err
	}
	if lv, ok := k.(liveVetter); ok {
		return lv.VetLive(env, target, l, v)
	}
	return nil
}

func notMine(knob, target string, l backend.Loc) error {
	if target != "" {
		return &notMineError{fmt.Sprintf("%s is not a value %s writes for %q", l, knob, target)}
	}
	return &notMineError{fmt.Sprintf("%s is not a value %s writes", l, knob)}
}

func noTarget(knob, target string) error {
	if target != "" {
		return &notMineError{fmt.Sprintf("%s has no targets, the entry names %q", knob, target)}
	}
	return nil
}

// notMineError is Vet's word that a location (with the target given) is
// not one the knob writes at all, as against a value it would not write
// there: ExplainRegFile then asks the next knob.
type notMineError struct{ msg string }

func (e *notMineError) Error() string { return e.msg }

// isNotMine reports whether Vet's err is a notMineError.
func isNotMine(err error) bool {
	var nm *notMineError
	return errors.As(err, &nm)
}

// maxSettingFile bounds a kernel setting's text: the longest, an rps mask
// of 8192 CPUs, is under 2.5 KB.
const maxSettingFile = 16 << 10

// fileText returns the text of a kernel setting file: one line of
// printable ASCII and its newline, never empty.
func fileText(v backend.Value) (string, error) {
	if v.Type != backend.TypeFile {
		return "", fmt.Errorf("a %s value, not the content of a file", v.Type)
	}
	if len(v.Data) > maxSettingFile {
		return "", fmt.Errorf("%d bytes, more than a setting file holds", len(v.Data))
	}
	s := strings.TrimSuffix(string(v.Data), "\n")
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < 0x20 && c != '\t') || c >= 0x7f {
			return "", fmt.Errorf("byte 0x%02x at %d: a setting file holds one line of printable ASCII", c, i)
		}
	}
	s = strings.TrimSpace(s)
	if s == "" {
		return "", ErrEmptyFile
	}
	return s, nil
}

func fileInt(v backend.Value) error {
	s, err := fileText(v)
	if err != nil {
		return err
	}
	if _, err := strconv.ParseInt(s, 10, 32); err != nil {
		return fmt.Errorf("%q is not an integer", s)
	}
	return nil
}

func fileUint(v backend.Value) error {
	s, err := fileText(v)
	if err != nil {
		return err
	}
	if _, err := strconv.ParseUint(s, 10, 64); err != nil {
		return fmt.Errorf("%q is not a number of nanoseconds", s)
	}
	return nil
}

// validIface is a network interface name as the kernel allows them: no
// slash, no white space, not . or .. (dev_valid_name).
func validIface(s string) bool {
	if s == "" || s == "." || s == ".." || len(s) > 255 {
		return false
	}
	for _, r := range s {
		if r == '/' || r == ':' || r <= ' ' || r == 0x7f {
			return false
		}
	}
	return utf8.ValidString(s)
}

func isRxQueue(s string) bool {
	n, ok := strings.CutPrefix(s, "rx-")
	if !ok || n == "" || len(n) > 5 {
		return false
	}
	for _, c := range n {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// --- Windows ---------------------------------------------------------------

func sameRegLoc(l, want backend.Loc) bool {
	return l.Backend == backend.BackendRegistry && want.Backend == backend.BackendRegistry &&
		strings.EqualFold(l.Path, want.Path) && strings.EqualFold(l.Name, want.Name)
}

// createdKey reports whether l is a key that ensureKey may add for a value
// in one of keys: the key itself or one of its parents, never a root or a
// key right below one (HKLM\SOFTWARE always exists), with v absent or the
// key.
func createdKey(l backend.Loc, v backend.Value, keys ...string) bool {
	if l.Backend != backend.BackendRegistry || l.Name != "" || !(v.IsAbsent() || v.Type == backend.TypeKey) || len(v.Data) > 0 {
		return false
	}
	if strings.Count(l.Path, `\`) < 2 || strings.HasSuffix(l.Path, `\`) || strings.Contains(l.Path, `\\`) {
		return false
	}
	p := strings.ToLower(l.Path)
	for _, k := range keys {
		k = strings.ToLower(k)
		if k == p || strings.HasPrefix(k, p+`\`) {
			return true
		}
	}
	return false
}

// regNumber checks a value a numeric knob can hold: absent (the knob's
// default) or a number as a DWORD, a QWORD or a decimal string (NDIS
// keywords are REG_SZ).
func regNumber(v backend.Value) error {
	switch v.Type {
	case backend.TypeAbsent:
		if len(v.Data) > 0 {
			return errors.New("an absent value with data")
		}
		return nil
	case backend.TypeDWORD, backend.TypeDWORDBE:
		if len(v.Data) != 4 {
			return fmt.Errorf("a %s of %d bytes", v.Type, len(v.Data))
		}
		return nil
	case backend.TypeQWORD:
		if len(v.Data) != 8 {
			return fmt.Errorf("a %s of %d bytes", v.Type, len(v.Data))
		}
		return nil
	case backend.TypeSZ, backend.TypeExpandSZ:
		if len(v.Data) > 256 || len(v.Data)%2 != 0 {
			return fmt.Errorf("a %s of %d bytes, not a number", v.Type, len(v.Data))
		}
		if _, err := strconv.ParseUint(strings.TrimSpace(v.String()), 10, 64); err != nil {
			return fmt.Errorf("%s %q is not a number", v.Type, v.String())
		}
		return nil
	}
	return fmt.Errorf("a %s value, not a number", v.Type)
}

// regAnyValue checks a value of any type a QoS policy can hold.
func regAnyValue(v backend.Value) error {
	switch v.Type {
	case backend.TypeAbsent:
		return regNumber(v)
	case backend.TypeDWORD, backend.TypeQWORD:
		return regNumber(v)
	case backend.TypeSZ, backend.TypeExpandSZ, backend.TypeMultiSZ:
		if len(v.Data)%2 != 0 {
			return fmt.Errorf("a %s of an odd number of bytes", v.Type)
		}
	case backend.TypeBinary:
	default:
		return fmt.Errorf("a %s value", v.Type)
	}
	if len(v.Data) > 64<<10 {
		return fmt.Errorf("a %s of %d bytes", v.Type, len(v.Data))
	}
	return nil
}

func vetRegNumber(knob, target string, l backend.Loc, v backend.Value, want backend.Loc) error {
	if err := noTarget(knob, target); err != nil {
		return err
	}
	if createdKey(l, v, want.Path) {
		return nil
	}
	if !sameRegLoc(l, want) {
		return notMine(knob, target, l)
	}
	return regNumber(v)
}

// cutKey returns the rest of path below key, compared as the registry
// compares names (without case).
func cutKey(path, key string) (string, bool) {
	if len(path) <= len(key)+1 || !strings.EqualFold(path[:len(key)+1], key+`\`) {
		return "", false
	}
	return path[len(key)+1:], true
}

// adapterKeyOf returns the adapter class key (NetClassKey\NNNN) that l
// is in: exactly four ASCII digits below the class key, as the class
// installer names its sub-keys, and nothing further down.
func adapterKeyOf(l backend.Loc) (string, bool) {
	idx, ok := cutKey(l.Path, NetClassKey)
	if l.Backend != backend.BackendRegistry || !ok || len(idx) != 4 {
		return "", false
	}
	for i := 0; i < len(idx); i++ {
		if idx[i] < '0' || idx[i] > '9' {
			return "", false
		}
	}
	return NetClassKey + `\` + idx, true
}

// adapterValue reports whether l is a value named one of names in an
// adapter's class key (NetClassKey\NNNN). Which adapter's is for
// vetAdapterLive to say.
func adapterValue(l backend.Loc, names []string) bool {
	if _, ok := adapterKeyOf(l); !ok {
		return false
	}
	for _, n := range names {
		if strings.EqualFold(l.Name, n) {
			return true
		}
	}
	return false
}

// vetAdapterLive checks that the class key l is in belongs to the adapter
// target names: Plan takes its target from the key's DriverDesc
// (findAdapter, adapters), so the key's DriverDesc must be the target.
// Two adapters of one model share a DriverDesc, and a target cannot tell
// them apart; any other adapter's key is refused.
//
// When the key is gone (the adapter was removed), whose it was cannot be
// told: an absent v (restoring means deleting what is not there) is let
// through, as revert then writes nothing; any other value is refused
// rather than written into a key that names no adapter.
func vetAdapterLive(env *Env, knob, target string, l backend.Loc, v backend.Value) error {
	key, ok := adapterKeyOf(l)
	if !ok {
		return notMine(knob, target, l)
	}
	kv, err := env.read(regLoc(key, ""))
	if err != nil {
		return fmt.Errorf("cannot tell whose adapter key %s is: %w", key, err)
	}
	if kv.IsAbsent() {
		if v.IsAbsent() {
			return nil
		}
		return fmt.Errorf("%s: %s no longer exists (the adapter was removed), and %s writes no value where no adapter is", l, key, knob)
	}
	d, err := env.read(regLoc(key, "DriverDesc"))
	if err != nil {
		return fmt.Errorf("cannot tell whose adapter key %s is: %w", key, err)
	}
	if d.IsAbsent() || d.String() == "" {
		return fmt.Errorf("%s is not a value %s writes for %q: %s has no DriverDesc, so it is no adapter's", l, knob, target, key)
	}
	if desc := d.String(); desc != target {
		return fmt.Errorf("%s is not a value %s writes for %q: %s is the key of adapter %q", l, knob, target, key, desc)
	}
	return nil
}

// hasControl reports whether s holds a control character (C0, DEL, C1),
// a line or paragraph separator, or is not valid UTF-8: what can end a
// line or hide text in a script or a terminal.
func hasControl(s string) bool {
	if !utf8.ValidString(s) {
		return true
	}
	for _, r := range s {
		if isControl(r) {
			return true
		}
	}
	return false
}

func isControl(r rune) bool {
	return r < 0x20 || (r >= 0x7f && r <= 0x9f) || r == 0x2028 || r == 0x2029
}
