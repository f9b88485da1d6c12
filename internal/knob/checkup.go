package knob

import (
	"strings"
	"time"

	"github.com/latlab/latlab/internal/knob/backend"
)

// What the check-up (latlab doctor) and the experiments (latlab try) know
// of a knob lives with the knob, in its own file: its default in its own
// terms, the verdict rules on what was read, and how a change of it takes
// effect. These are the types those files declare.

// Verdict is what the check-up concludes about a setting.
type Verdict string

// The verdicts, from good to bad, and unknown. There is no "harmful":
// none of the research latlab follows measures a setting's state hurting
// latency without a caveat that makes it a trade-off or unexplained
// (GamingPCSetup's NetworkThrottlingIndex, "unclear why", is suspicious),
// so no rule could earn it.
const (
	Default    Verdict = "default"    // the OS (or driver) default
	Changed    Verdict = "changed"    // changed from the default, to a value with a known meaning
	Suspicious Verdict = "suspicious" // changed without evidence of benefit, or set where it has no effect
	Unknown    Verdict = "unknown"    // could not be read
)

// Case is what a verdict rule looks at: one instance of a knob as read,
// with the host facts the knobs depend on.
type Case struct {
	Knob    string
	Target  string
	Value   string        // as the reading shows it
	Meaning string        // the reading's decoded meaning
	Raw     backend.Value // the stored value; absent when not stored
	// NotShown is the reading item's: the directory missing with the
	// absent setting file, so the kernel's having it cannot be told.
	NotShown string
	Detail   any // the reading item's detail (decoded structure)
	Extra    []Change
	Warnings []string
	Notes    []string // the reading's notes
	Build    uint32   // Windows build (0 unknown)
	Server   bool
	// Empty: the knob has no instance here (no adapter with RSS, no
	// QoS policy).
	Empty bool
	// Err: the reading failed; Privilege names what it needs when the
	// failure is a missing privilege ("Administrator", "root").
	Err       error
	Privilege string
}

// QueueGroup is the Detail of a case that stands for the queues of one
// network interface: its queue interrupts (irq-affinity) or its rx queues
// (rps).
type QueueGroup []Instance

// queueGroup is a case's group of queues (nil for any other case).
func queueGroup(c *Case) QueueGroup {
	g, _ := c.Detail.(QueueGroup)
	return g
}

// Instance is one queue of a QueueGroup.
type Instance struct {
	Name      string
	Value     string
	Allowed   string // irq: smp_affinity_list
	Delivered string // irq: effective_affinity_list
	Online    int    // CPUs online
	Steered   bool   // rps: a non-zero mask
}

// N is the stored value as a number (ok false when it is not one).
func (c *Case) N() (uint64, bool) {
	if c.Raw.IsAbsent() {
		return 0, false
	}
	n, err := c.Raw.Uint()
	return n, err == nil
}

// Text is the stored value as trimmed text.
func (c *Case) Text() string {
	if c.Raw.IsAbsent() {
		return ""
	}
	return strings.TrimSpace(c.Raw.String())
}

// NextStep is a suggested next command.
type NextStep struct {
	Command string `json:"command"`
	Why     string `json:"why"`
	// Benefit orders the steps: the expected gain, highest first (a
	// ranking, not a measurement).
	Benefit int `json:"benefit"`
}

// Rule is one row of the check-up's verdict table: for a knob ("*" for
// every knob), a condition on what was read and the verdict it gives.
// The first matching rule of a knob decides, so each knob's rules go from
// the most specific to a catch-all.
type Rule struct {
	ID      string
	Knob    string // filled in from the knob that declares the rule
	When    string // the condition in words
	Verdict Verdict
	Match   func(c *Case) bool
	Reason  func(c *Case) string
	// Evidence quotes what the verdict rests on; nil when the reason is
	// the reading itself.
	Evidence func(c *Case) string
	// Next is the step this finding suggests, if any.
	Next func(c *Case) *NextStep
	// IsDefault overrides "a default verdict is the default value".
	IsDefault func(c *Case) *bool
}

// Checkup is what the check-up knows of a knob.
type Checkup struct {
	// Default states the knob's OS default in its own terms.
	Default func(c *Case) string
	// Rules are the knob's verdict rules, most specific first, ending
	// with a catch-all.
	Rules []Rule
	// TryValue is the default to try against the current value with
	// latlab try, in the knob's terms; "" when an experiment would show
	// nothing or could not be undone. Nil for a knob never suggested.
	TryValue func(c *Case, rule string) string
	// References are the values published tuning profiles set for the
	// knob (tuned's latency-performance, network-latency, realtime...),
	// which the rules cite.
	References []Reference
}

// Scope says what a knob's value applies to during an experiment.
type Scope string

// Scopes: the probe's own thread or process (nothing outside latlab
// changes, nothing is journaled), or the whole system through the knob
// journal, as `latlab knob set` does.
const (
	ScopeProcess Scope = "process"
	ScopeSystem  Scope = "system"
)

// The probes of latlab try that show a knob's effect.
const (
	ProbeSleep = "sleep"
	ProbeUDP   = "udp"
)

// DefaultSettle is the wait after a change before a block is measured,
// when the knob names none.
const DefaultSettle = time.Second

// Experiment is what latlab try needs to know of a knob: whether a change
// takes effect while the system runs, how long to let it settle, and which
// probe shows its effect.
type Experiment struct {
	Scope Scope
	// Pending says when a change takes effect if not at once ("after a
	// reboot"); try refuses such knobs.
	Pending string
	// Restart is set when the change takes effect only once the network
	// adapter restarts.
	Restart bool
	Settle  time.Duration
	// Probe is the probe of try that shows the knob's effect ("sleep";
	// "udp" for a NIC setting, which needs an echo server), "" when none
	// does (a TCP setting).
	Probe string
	// Note, when set, is said of a run at realtime priority, where the
	// knob has no effect.
	RealtimeNote string
	// Unprobed, for a knob with no Probe, says why none shows its effect
	// and what would; "" says what fits the TCP knobs, and only them
	// (swappiness once got their "TCP loss recovery" note).
	Unprobed string
}

// CheckupRules are the verdict rules of every knob of the catalogue, in
// catalogue order, each rule's Knob filled in.
func CheckupRules() []Rule {
	var out []Rule
	for _, k := range All() {
		for _, r := range k.Checkup().Rules {
			r.Knob = k.Name()
			out = append(out, r)
		}
	}
	return out
}

func always(*Case) bool { return true }

func text(s string) func(*Case) string { return func(*Case) string { return s } }

// tryAfter is a TryValue that suggests trying value against the current
// one when the finding was decided by rule, and nothing otherwise.
func tryAfter(rule, value string) func(*Case, string) string {
	return func(_ *Case, r string) string {
		if r == rule {
			return value
		}
		return ""
	}
}

func boolPtr(b bool) *bool { return &b }

// The evidence a verdict quotes comes from the knobs themselves: their
// explanations carry the research behind each value, so the check-up
// never states a number the knob catalogue does not.

// explainText is a knob's explanation of value ("" = the general one) as
// one line of text.
func explainText(name, value string) string {
	k, err := Lookup(name)
	if err != nil {
		return ""
	}
	ex, err := k.Explain(value, ExplainOptions{})
	if err != nil {
		return ""
	}
	var parts []string
	for _, l := range ex.Text {
		parts = append(parts, strings.Join(strings.Fields(l), " "))
	}
	return strings.Join(parts, " ")
}

// quote returns the line of a knob's explanation that contains want, or
// "" when there is none (a test checks every rule's quote resolves).
func quote(name, value, want string) string {
	k, err := Lookup(name)
	if err != nil {
		return ""
	}
	ex, err := k.Explain(value, ExplainOptions{})
	if err != nil {
		return ""
	}
	for _, l := range ex.Text {
		if strings.Contains(l, want) {
			return sentence(strings.Join(strings.Fields(l), " "), want)
		}
	}
	return ""
}

// sentence cuts the sentence holding want out of a line: from after the
// previous ". " before a capital to the next one.
func sentence(line, want string) string {
	i := strings.Index(line, want)
	if i < 0 {
		return line
	}
	start := 0
	for j := i - 1; j >= 1; j-- {
		if line[j] == ' ' && line[j-1] == '.' && isUpper(line, j+1) {
			start = j + 1
			break
		}
	}
	end := len(line)
	for j := i + len(want); j < len(line)-1; j++ {
		if line[j] == '.' && line[j+1] == ' ' && isUpper(line, j+2) {
			end = j + 1
			break
		}
	}
	return line[start:end]
}

func isUpper(s string, i int) bool { return i < len(s) && s[i] >= 'A' && s[i] <= 'Z' }

// noteWith returns the first reading note containing want.
func noteWith(c *Case, want string) string {
	for _, n := range c.Notes {
		if strings.Contains(n, want) {
			return n
		}
	}
	return ""
}

// storedValue is the stored value of an adapter keyword ("" when not stored).
func storedValue(c *Case, keyword string) string {
	for _, x := range c.Extra {
		if strings.EqualFold(x.Loc.Name, keyword) {
			return strings.TrimSpace(x.Old.String())
		}
	}
	return ""
}

func adapterIndex(c *Case) string {
	idx, _, _ := strings.Cut(c.Target, " ")
	return idx
}

// ProcessScoped is the name of the knob of osName whose experiments set
// it for latlab's own measuring thread only, "" when there is none.
func ProcessScoped(osName string) string {
	for _, k := range All() {
		if k.OS() == osName && k.Experiment().Scope == ScopeProcess {
			return k.Name()
		}
	}
	return ""
}
