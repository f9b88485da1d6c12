package knob

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/latlab/latlab/internal/cpuset"
)

// Every knob's Vet lives here, beside the helpers they share: it is the
// catalogue's word on where a knob writes and what it can find there.
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
// (and its guard) are values the knob could have found there.
func vetEntry(e *Entry) error {
	k, ok := catalogue[e.Knob]
	if !ok {
		return fmt.Errorf("unknown knob %q", e.Knob)
	}
	if err := k.Vet(e.Target, e.Loc, e.Original); err != nil {
		return err
	}
	if e.Guard != nil {
		if err := k.Vet(e.Target, e.Guard.Loc, e.Guard.Value); err != nil {
			return fmt.Errorf("guard: %w", err)
		}
	}
	return nil
}

func notMine(knob, target string, l Loc) error {
	if target != "" {
		return fmt.Errorf("%s is not a value %s writes for %q", l, knob, target)
	}
	return fmt.Errorf("%s is not a value %s writes", l, knob)
}

func noTarget(knob, target string) error {
	if target != "" {
		return fmt.Errorf("%s has no targets, the entry names %q", knob, target)
	}
	return nil
}

// maxSettingFile bounds a kernel setting's text: the longest, an rps mask
// of 8192 CPUs, is under 2.5 KB.
const maxSettingFile = 16 << 10

// fileText returns the text of a kernel setting file: one line of
// printable ASCII and its newline, never empty.
func fileText(v Value) (string, error) {
	if v.Type != TypeFile {
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

func fileInt(v Value) error {
	s, err := fileText(v)
	if err != nil {
		return err
	}
	if _, err := strconv.ParseInt(s, 10, 32); err != nil {
		return fmt.Errorf("%q is not an integer", s)
	}
	return nil
}

func fileUint(v Value) error {
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

func (k timerSlack) Vet(target string, l Loc, v Value) error {
	pid, ok := strings.CutPrefix(target, "pid ")
	if !ok {
		return fmt.Errorf("%s target %q is not pid N", k.Name(), target)
	}
	want, _, err := slackLoc(Selector{PID: pid})
	if err != nil {
		return err
	}
	switch l {
	case want, slackGuardLoc(pid):
		return fileUint(v)
	}
	return notMine(k.Name(), target, l)
}

func (k tcpRecovery) Vet(target string, l Loc, v Value) error {
	if err := noTarget(k.Name(), target); err != nil {
		return err
	}
	if l != recoveryLoc {
		return notMine(k.Name(), target, l)
	}
	return fileInt(v)
}

func (k tcpDsack) Vet(target string, l Loc, v Value) error {
	if err := noTarget(k.Name(), target); err != nil {
		return err
	}
	if l != dsackLoc {
		return notMine(k.Name(), target, l)
	}
	return fileInt(v)
}

func (k clocksource) Vet(target string, l Loc, v Value) error {
	if err := noTarget(k.Name(), target); err != nil {
		return err
	}
	if l != csCurrentLoc {
		return notMine(k.Name(), target, l)
	}
	s, err := fileText(v)
	if err != nil {
		return err
	}
	if len(s) > 64 || strings.ContainsFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' || r == '.')
	}) {
		return fmt.Errorf("%q is not the name of a clock source", s)
	}
	return nil
}

func (k irqAffinity) Vet(target string, l Loc, v Value) error {
	irq, ok := strings.CutPrefix(target, "irq ")
	if _, err := strconv.Atoi(irq); !ok || err != nil {
		return fmt.Errorf("%s target %q is not irq N", k.Name(), target)
	}
	if l != irqLoc(irq) {
		return notMine(k.Name(), target, l)
	}
	s, err := fileText(v)
	if err != nil {
		return err
	}
	if c, err := cpuset.ParseList(s); err != nil || len(c) == 0 {
		return fmt.Errorf("%q is not a list of CPUs", s)
	}
	return nil
}

func (k rps) Vet(target string, l Loc, v Value) error {
	iface, queue, _ := strings.Cut(target, " ")
	if !validIface(iface) || (queue != "" && !isRxQueue(queue)) {
		return fmt.Errorf("%s target %q is not an interface and an optional rx queue", k.Name(), target)
	}
	rest, ok := strings.CutPrefix(l.Path, "sys/class/net/"+iface+"/queues/")
	q, _, _ := strings.Cut(rest, "/")
	if !ok || !isRxQueue(q) || (queue != "" && q != queue) || l != rpsLoc(iface, q) {
		return notMine(k.Name(), target, l)
	}
	s, err := fileText(v)
	if err != nil {
		return err
	}
	if _, err := cpuset.ParseMask(s); err != nil {
		return fmt.Errorf("%q is not a CPU mask", s)
	}
	return nil
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

func (k coalescing) Vet(target string, l Loc, v Value) error {
	if !validIface(target) || l != coalesceLoc(target) {
		return notMine(k.Name(), target, l)
	}
	if len(v.Data) > 4096 {
		return fmt.Errorf("%d bytes, more than coalesce parameters take", len(v.Data))
	}
	_, err := DecodeCoalesce(v)
	return err
}

// --- Windows ---------------------------------------------------------------

func sameRegLoc(l, want Loc) bool {
	return l.Backend == BackendRegistry && want.Backend == BackendRegistry &&
		strings.EqualFold(l.Path, want.Path) && strings.EqualFold(l.Name, want.Name)
}

// createdKey reports whether l is a key that ensureKey may add for a value
// in one of keys: the key itself or one of its parents, never a root or a
// key right below one (HKLM\SOFTWARE always exists), with v absent or the
// key.
func createdKey(l Loc, v Value, keys ...string) bool {
	if l.Backend != BackendRegistry || l.Name != "" || !(v.IsAbsent() || v.Type == TypeKey) || len(v.Data) > 0 {
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
func regNumber(v Value) error {
	switch v.Type {
	case TypeAbsent:
		if len(v.Data) > 0 {
			return errors.New("an absent value with data")
		}
		return nil
	case TypeDWORD, TypeDWORDBE:
		if len(v.Data) != 4 {
			return fmt.Errorf("a %s of %d bytes", v.Type, len(v.Data))
		}
		return nil
	case TypeQWORD:
		if len(v.Data) != 8 {
			return fmt.Errorf("a %s of %d bytes", v.Type, len(v.Data))
		}
		return nil
	case TypeSZ, TypeExpandSZ:
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
func regAnyValue(v Value) error {
	switch v.Type {
	case TypeAbsent:
		return regNumber(v)
	case TypeDWORD, TypeQWORD:
		return regNumber(v)
	case TypeSZ, TypeExpandSZ, TypeMultiSZ:
		if len(v.Data)%2 != 0 {
			return fmt.Errorf("a %s of an odd number of bytes", v.Type)
		}
	case TypeBinary:
	default:
		return fmt.Errorf("a %s value", v.Type)
	}
	if len(v.Data) > 64<<10 {
		return fmt.Errorf("a %s of %d bytes", v.Type, len(v.Data))
	}
	return nil
}

func vetRegNumber(knob, target string, l Loc, v Value, want Loc) error {
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

func (k prioSep) Vet(target string, l Loc, v Value) error {
	return vetRegNumber(k.Name(), target, l, v, prioLoc)
}

func (k globalTimer) Vet(target string, l Loc, v Value) error {
	return vetRegNumber(k.Name(), target, l, v, globalTimerLoc)
}

func (k netThrottle) Vet(target string, l Loc, v Value) error {
	return vetRegNumber(k.Name(), target, l, v, ntiLoc)
}

func (k tscSync) Vet(target string, l Loc, v Value) error {
	if err := noTarget(k.Name(), target); err != nil {
		return err
	}
	if l != tscLoc {
		return notMine(k.Name(), target, l)
	}
	if v.IsAbsent() {
		return regNumber(v)
	}
	if _, ok := tscPolicies[strings.ToLower(string(v.Data))]; v.Type != TypeBCD || !ok {
		return fmt.Errorf("%s %q is not a tscsyncpolicy (default, legacy, enhanced)", v.Type, v.Data)
	}
	return nil
}

// cutKey returns the rest of path below key, compared as the registry
// compares names (without case).
func cutKey(path, key string) (string, bool) {
	if len(path) <= len(key)+1 || !strings.EqualFold(path[:len(key)+1], key+`\`) {
		return "", false
	}
	return path[len(key)+1:], true
}

func (k displayScaling) Vet(target string, l Loc, v Value) error {
	rest, ok := cutKey(l.Path, graphicsConfigKey)
	if !strings.EqualFold(l.Path, graphicsConfigKey) && !ok {
		return notMine(k.Name(), target, l)
	}
	var parts []string
	if rest != "" {
		parts = strings.Split(rest, `\`)
	}
	if l.Backend != BackendRegistry || !strings.EqualFold(l.Name, "Scaling") || len(parts) > 3 || (target != "" && len(parts) == 0) {
		return notMine(k.Name(), target, l)
	}
	for i, p := range parts {
		if p == "" || (i == 0 && target != "" && !strings.HasPrefix(strings.ToLower(p), strings.ToLower(target))) {
			return notMine(k.Name(), target, l)
		}
	}
	if v.IsAbsent() {
		return errors.New("absent: display-scaling changes only Scaling values that exist")
	}
	return regNumber(v)
}

// adapterValue reports whether l is a value named one of names in an
// adapter's class key (NetClassKey\NNNN).
func adapterValue(l Loc, names []string) bool {
	idx, ok := cutKey(l.Path, NetClassKey)
	if l.Backend != BackendRegistry || !ok || len(idx) != 4 {
		return false
	}
	if _, err := strconv.ParseUint(idx, 10, 16); err != nil {
		return false
	}
	for _, n := range names {
		if strings.EqualFold(l.Name, n) {
			return true
		}
	}
	return false
}

func (k rssKnob) Vet(target string, l Loc, v Value) error {
	var names []string
	for _, kw := range rssKeywords {
		names = append(names, kw.name)
	}
	if target == "" || !adapterValue(l, names) {
		return notMine(k.Name(), target, l)
	}
	return regNumber(v)
}

func (k intModeration) Vet(target string, l Loc, v Value) error {
	if target == "" || !adapterValue(l, append([]string{"*InterruptModeration"}, rateKeywords...)) {
		return notMine(k.Name(), target, l)
	}
	return regNumber(v)
}

func (k qosDSCP) Vet(target string, l Loc, v Value) error {
	if target == "" || strings.Contains(target, `\`) || hasControl(target) {
		return fmt.Errorf("%s target %q is not a policy name", k.Name(), target)
	}
	pol := QoSKey + `\` + target
	nla := regLoc(NLAKey, "Do not use NLA")
	switch {
	case createdKey(l, v, pol, NLAKey):
		return nil
	case sameRegLoc(l, nla):
		if v.IsAbsent() {
			return regNumber(v)
		}
		if v.Type != TypeSZ || len(v.Data) > 256 {
			return fmt.Errorf("%s of %d bytes: %q is a short REG_SZ", v.Type, len(v.Data), nla.Name)
		}
		return nil
	case l.Backend == BackendRegistry && strings.EqualFold(l.Path, pol) && l.Name != "" && len(l.Name) <= 16383 && !hasControl(l.Name):
		// `remove` takes every value of the policy, whatever its name.
		return regAnyValue(v)
	}
	return notMine(k.Name(), target, l)
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
