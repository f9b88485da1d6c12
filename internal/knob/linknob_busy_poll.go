package knob

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/knob/backend"
)

func init() { register(busyPoll{}) }

// busyPollName is the knob's name, written in this file only: the rest of
// latlab asks the catalogue.
const busyPollName = "busy-poll"

type busyPoll struct{ linuxKnob }

func (busyPoll) Name() string { return busyPollName }
func (busyPoll) Summary() string {
	return "busy polling: µs a socket read or a poll spins on the device queue before it sleeps (net.core.busy_read, busy_poll)"
}

var (
	busyPollLoc  = fileLoc("proc/sys/net/core/busy_poll")
	busyReadLoc  = fileLoc("proc/sys/net/core/busy_read")
	busyLacks    = "busy polling (CONFIG_NET_RX_BUSY_POLL)"
	busySetHelp  = "accepted a number of µs for both (0 off, 50 as tuned's network-latency), or poll=N,read=N"
	busyDefaults = "0 (off) for both"
)

// busyState is the two values in µs; -1 when the file is absent.
type busyState struct {
	Poll int64 `json:"busy_poll_us"`
	Read int64 `json:"busy_read_us"`
}

func busyOne(n int64) string {
	switch {
	case n < 0:
		return "absent"
	case n == 0:
		return "0 (off)"
	}
	return fmt.Sprintf("%d µs", n)
}

func busyMeaning(s busyState) string {
	switch {
	case s.Poll <= 0 && s.Read <= 0:
		return "off (the default): a read, poll or epoll that finds no packet sleeps until the interrupt brings one"
	case s.Poll > 0 && s.Read > 0:
		return fmt.Sprintf("reads spin up to %d µs and poll/select/epoll up to %d µs on the device queue before they sleep: no interrupt and wake-up on the path, at the cost of a CPU spinning (CPU time, power)", s.Read, s.Poll)
	case s.Read > 0:
		return fmt.Sprintf("blocking reads spin up to %d µs on the device queue before they sleep (CPU time, power); poll, select and epoll do not", s.Read)
	}
	return fmt.Sprintf("poll/select/epoll spin up to %d µs on the device queue, but only for sockets with SO_BUSY_POLL set (busy_read is 0, so no socket has it by default)", s.Poll)
}

func (busyPoll) Explain(value string, o ExplainOptions) (*Explanation, error) {
	ex := &Explanation{Knob: busyPollName}
	if value == "" {
		ex.Text = []string{
			"net.core.busy_read (default 0, off): µs a blocking socket read busy-loops on the device queue for packets before it sleeps; the default of the SO_BUSY_POLL socket option, which a program can set per socket instead.",
			"net.core.busy_poll (default 0, off): µs poll, select and epoll busy-loop for events; only sockets with SO_BUSY_POLL set (by the program, or through busy_read) are polled.",
			"Busy polling takes the interrupt, softirq and wake-up off the receive path, so a packet reaches a waiting program sooner. The cost: the CPU spins instead of sleeping (CPU time, power, heat), and the device needs NAPI (most do; not loopback). tuned's network-latency and hpc-compute profiles set both to 50, and realtime (which includes network-latency) inherits them.",
			"Values: one number of µs for both, or poll=N,read=N (either alone), 0 or off for off.",
		}
		return ex, nil
	}
	poll, read, err := parseBusy(value)
	if err != nil {
		return nil, err
	}
	s := busyState{Poll: -1, Read: -1}
	if poll != nil {
		s.Poll = *poll
	}
	if read != nil {
		s.Read = *read
	}
	ex.Text = []string{fmt.Sprintf("busy_poll %s, busy_read %s", busyOneOr(s.Poll), busyOneOr(s.Read))}
	if poll != nil && read != nil {
		ex.Text = append(ex.Text, busyMeaning(s))
	}
	ex.Data = s
	return ex, nil
}

// busyOneOr is a parsed value, "unchanged" when the value names none.
func busyOneOr(n int64) string {
	if n < 0 {
		return "unchanged"
	}
	return busyOne(n)
}

func parseBusyN(s string) (int64, error) {
	s = strings.TrimSpace(s)
	if s == "off" {
		return 0, nil
	}
	s = strings.TrimSuffix(strings.TrimSuffix(s, "us"), "µs")
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil || n < 0 || n > sysctlIntMax {
		return 0, fmt.Errorf("bad")
	}
	return n, nil
}

// parseBusy reads N (both), or poll=N,read=N; nil for one not named.
func parseBusy(value string) (poll, read *int64, err error) {
	v := strings.ToLower(strings.TrimSpace(value))
	if !strings.Contains(v, "=") {
		n, err := parseBusyN(v)
		if err != nil {
			return nil, nil, badinput.Errorf("invalid busy-poll %q: %s (0 to 2147483647)", value, busySetHelp)
		}
		return &n, &n, nil
	}
	for _, f := range strings.Split(v, ",") {
		k, val, _ := strings.Cut(f, "=")
		n, err := parseBusyN(val)
		if err != nil {
			return nil, nil, badinput.Errorf("invalid busy-poll %q: %q is not a number of µs from 0 to 2147483647; %s", value, strings.TrimSpace(val), busySetHelp)
		}
		var dst **int64
		switch strings.TrimSpace(k) {
		case "poll", "busy_poll":
			dst = &poll
		case "read", "busy_read":
			dst = &read
		default:
			return nil, nil, badinput.Errorf("invalid busy-poll %q: unknown %q; %s", value, strings.TrimSpace(k), busySetHelp)
		}
		if *dst != nil {
			return nil, nil, badinput.Errorf("invalid busy-poll %q: %s given twice", value, strings.TrimSpace(k))
		}
		*dst = &n
	}
	return poll, read, nil
}

// readBusy reads both files, -1 for one the kernel lacks.
func readBusy(env *Env) (busyState, backend.Value, backend.Value, error) {
	s := busyState{Poll: -1, Read: -1}
	p, pv, pok, err := sysctlInt(env, busyPollLoc)
	if err != nil {
		return s, pv, backend.Value{}, err
	}
	r, rv, rok, err := sysctlInt(env, busyReadLoc)
	if err != nil {
		return s, pv, rv, err
	}
	if pok {
		s.Poll = p
	}
	if rok {
		s.Read = r
	}
	return s, pv, rv, nil
}

func (k busyPoll) Get(env *Env, sel Selector) (*Reading, error) {
	s, pv, rv, err := readBusy(env)
	if err != nil {
		return nil, err
	}
	r := &Reading{Knob: k.Name()}
	if s.Poll < 0 && s.Read < 0 {
		it, err := sysctlAbsentItem(env, busyPollLoc, pv, busyLacks)
		if err != nil {
			return nil, err
		}
		r.Items = append(r.Items, it)
		return r, nil
	}
	it := item("", busyPollLoc, pv, busyMeaning(s))
	it.Value = "poll " + busyOne(s.Poll) + ", read " + busyOne(s.Read)
	it.Detail = s
	if !rv.IsAbsent() {
		it.Extra = []Change{{Loc: busyReadLoc, Old: backend.Absent, New: rv}}
	}
	for _, x := range []struct {
		n int64
		l backend.Loc
	}{{s.Poll, busyPollLoc}, {s.Read, busyReadLoc}} {
		if x.n < 0 {
			a, err := absenceOf(env, x.l, busyLacks)
			if err != nil {
				return nil, err
			}
			r.Notes = append(r.Notes, a.why(sysctlName(x.l)))
		} else {
			r.Notes = append(r.Notes, fmt.Sprintf("%s=%d", sysctlName(x.l), x.n))
		}
	}
	r.Items = append(r.Items, it)
	return r, nil
}

func (k busyPoll) Plan(env *Env, sel Selector, value string) (*Plan, error) {
	poll, read, err := parseBusy(value)
	if err != nil {
		return nil, err
	}
	cur, _, _, err := readBusy(env)
	if err != nil {
		return nil, err
	}
	p := &Plan{Knob: k.Name(), Request: value}
	for _, x := range []struct {
		want *int64
		have int64
		l    backend.Loc
	}{{poll, cur.Poll, busyPollLoc}, {read, cur.Read, busyReadLoc}} {
		if x.want == nil {
			continue
		}
		if x.have < 0 {
			return nil, sysctlAbsentError(env, x.l, busyLacks)
		}
		if err := p.add(env, x.l, backend.FileValue(strconv.FormatInt(*x.want, 10)+"\n")); err != nil {
			return nil, err
		}
	}
	after := cur
	if poll != nil {
		after.Poll = *poll
	}
	if read != nil {
		after.Read = *read
	}
	if after.Poll > 0 || after.Read > 0 {
		p.Notes = append(p.Notes, "the cost: a CPU spins on the device queue while a program waits (CPU time, power)")
	}
	if after.Poll > 0 && after.Read <= 0 {
		p.Notes = append(p.Notes, "busy_poll alone polls only sockets whose program sets SO_BUSY_POLL")
	}
	return p, nil
}

func (k busyPoll) Vet(target string, l backend.Loc, v backend.Value) error {
	if err := noTarget(k.Name(), target); err != nil {
		return err
	}
	if l != busyPollLoc && l != busyReadLoc {
		return notMine(k.Name(), target, l)
	}
	return vetSysctlInt(v, 0, sysctlIntMax)
}

// Checkup is what the check-up knows of busy-poll: its default, how its
// instances are read, the verdict rules and whose advice they cite.
func (busyPoll) Checkup() Checkup {
	return Checkup{Default: text(busyDefaults), Rules: busyPollRules, References: busyPollRefs}
}

// Experiment is how a change of busy-poll takes effect for latlab try:
// for the reads and polls made after it; the udp probe shows it.
func (busyPoll) Experiment() Experiment {
	return Experiment{Scope: ScopeSystem, Settle: DefaultSettle, Probe: ProbeUDP}
}

var busyPollRefs = []Reference{
	tunedRef("network-latency", "sysctl", "net.core.busy_read", "50"),
	tunedRef("network-latency", "sysctl", "net.core.busy_poll", "50"),
	tunedRef("hpc-compute", "sysctl", "net.core.busy_read", "50"),
	tunedRef("hpc-compute", "sysctl", "net.core.busy_poll", "50"),
}

// busyCite is what the rules cite: network-latency's two values.
func busyCite() string {
	return busyPollRefs[0].Cite() + " and busy_poll=50"
}

func busyOf(c *Case) (busyState, bool) {
	s, ok := c.Detail.(busyState)
	return s, ok
}

var busyPollRules = []Rule{
	{ID: "busy-absent", Verdict: Default, When: "the kernel has no busy polling",
		Match:     func(c *Case) bool { _, ok := busyOf(c); return !ok },
		Reason:    func(c *Case) string { return c.Meaning + "; nothing to tune" },
		IsDefault: func(*Case) *bool { return nil }},
	{ID: "busy-off", Verdict: Default, When: "both 0",
		Match: func(c *Case) bool { s, _ := busyOf(c); return s.Poll <= 0 && s.Read <= 0 },
		Reason: func(c *Case) string {
			return c.Meaning + "; " + busyCite() + ", trading a spinning CPU (CPU time, power) for the interrupt and wake-up"
		}},
	{ID: "busy-on", Verdict: Changed, When: "either above 0",
		Match: always,
		Reason: func(c *Case) string {
			return c.Meaning + "; " + busyCite()
		},
		Evidence: func(c *Case) string { return quote(busyPollName, "", "The cost: the CPU spins instead of sleeping") }},
}
