package knob

import (
	"errors"
	"fmt"
	"net"
	"path"
	"strconv"
	"strings"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/knob/backend"
)

// qosDscpName is the knob's name, written in this file only: the rest of
// latlab asks the catalogue.
const qosDscpName = "qos-dscp"

func init() { register(qosDSCP{}) }

// QoSKey holds the Group Policy QoS policies, one sub-key each.
const QoSKey = `HKLM\SOFTWARE\Policies\Microsoft\Windows\QoS`

// NLAKey holds "Do not use NLA".
const NLAKey = `HKLM\SYSTEM\CurrentControlSet\Services\Tcpip\QoS`

type qosDSCP struct{ windowsKnob }

func (qosDSCP) Name() string { return qosDscpName }

// Selectors are the selector flags qosDSCP reads.
func (qosDSCP) Selectors() []string { return []string{SelPolicy} }

func (qosDSCP) Summary() string {
	return "Group Policy QoS: the DSCP value Windows marks an application's packets with"
}

// regInput is what Explain takes for a value a .reg file writes
// (ExplainRegFile): a policy's DSCP Value; its other values say which
// packets it marks.
func (qosDSCP) regInput(l backend.Loc, v backend.Value) (string, string) {
	if !strings.EqualFold(l.Name, "DSCP Value") {
		return "", ""
	}
	return v.String(), ""
}

// qosValueNames are the values of a policy, in the order gpedit writes them.
var qosValueNames = []string{"Version", "Application Name", "Protocol", "Local Port", "Local IP", "Local IP Prefix Length",
	"Remote Port", "Remote IP", "Remote IP Prefix Length", "DSCP Value", "Throttle Rate"}

func (qosDSCP) Explain(value string, o ExplainOptions) (*Explanation, error) {
	ex := &Explanation{Knob: qosDscpName}
	if value == "" {
		ex.Text = []string{
			`Policy-based QoS under HKLM\SOFTWARE\Policies\Microsoft\Windows\QoS\<name>: REG_SZ values Version "1.0", Application Name, Protocol, Local/Remote Port, IP and prefix length, DSCP Value 0-63, Throttle Rate "-1".`,
			`Off a domain Windows applies the policies only with "Do not use NLA"="1" under HKLM\SYSTEM\CurrentControlSet\Services\Tcpip\QoS (--no-nla sets it).`,
			"Common values: 46 EF (voice, games), 34 AF41, 26 AF31, 18 AF21, 8 CS1 (background), 0 best effort.",
		}
		return ex, nil
	}
	n, err := parseDSCP(value)
	if err != nil {
		return nil, err
	}
	ex.Text = []string{fmt.Sprintf("DSCP %d (%s): the TOS byte is 0x%02X", n, dscpName(n), n<<2)}
	ex.Data = map[string]any{"dscp": n, "name": dscpName(n), "tos": n << 2}
	return ex, nil
}

func parseDSCP(s string) (uint64, error) {
	n, err := strconv.ParseUint(strings.TrimSpace(s), 10, 8)
	if err != nil || n > 63 {
		return 0, badinput.Errorf("DSCP value %q is out of range: accepted 0-63 (or remove)", s)
	}
	return n, nil
}

func dscpName(n uint64) string {
	switch {
	case n == 46:
		return "EF"
	case n == 44:
		return "VOICE-ADMIT"
	case n == 0:
		return "best effort"
	case n%8 == 0:
		return fmt.Sprintf("CS%d", n/8)
	case n >= 10 && n <= 38 && n%2 == 0 && (n%8)/2 >= 1 && (n%8)/2 <= 3:
		return fmt.Sprintf("AF%d%d", n/8, (n%8)/2)
	}
	return "unnamed"
}

func (k qosDSCP) Get(env *Env, sel Selector) (*Reading, error) {
	r := &Reading{Knob: k.Name()}
	names, _, err := env.list(backend.BackendRegistry, QoSKey)
	if err != nil && !errors.Is(err, backend.ErrNotFound) {
		return nil, err
	}
	for _, n := range names {
		if sel.Policy != "" && !strings.EqualFold(sel.Policy, n) {
			continue
		}
		key := QoSKey + `\` + n
		vals := map[string]string{}
		it := Item{Target: n}
		for _, vn := range qosValueNames {
			l := regLoc(key, vn)
			v, err := env.read(l)
			if err != nil {
				return nil, err
			}
			if !v.IsAbsent() {
				vals[vn] = v.String()
				it.Extra = append(it.Extra, Change{Loc: l, Old: v, New: v})
				if v.Type != backend.TypeSZ {
					it.Warnings = append(it.Warnings, fmt.Sprintf("%q is %s; Windows reads REG_SZ", vn, v.Type))
				}
			}
		}
		app := vals["Application Name"]
		if app == "" {
			app = "*"
		}
		it.Value = "DSCP " + vals["DSCP Value"]
		it.Meaning = fmt.Sprintf("%s %s, local port %s, remote %s port %s", app, orStar(vals["Protocol"]), orStar(vals["Local Port"]), orStar(vals["Remote IP"]), orStar(vals["Remote Port"]))
		if d, err := strconv.ParseUint(vals["DSCP Value"], 10, 8); err != nil || d > 63 {
			it.Warnings = append(it.Warnings, fmt.Sprintf("DSCP Value %q is not 0-63: the policy is ignored", vals["DSCP Value"]))
		} else {
			it.Value += " (" + dscpName(d) + ")"
		}
		if vals["Version"] != "1.0" {
			it.Warnings = append(it.Warnings, fmt.Sprintf("Version is %q, not \"1.0\": the policy is ignored", vals["Version"]))
		}
		r.Items = append(r.Items, it)
	}
	if sel.Policy != "" && len(r.Items) == 0 {
		return nil, badinput.Errorf("no QoS policy %q under %s", sel.Policy, QoSKey)
	}
	nla := readSZ(env, NLAKey, "Do not use NLA")
	if nla == "1" {
		r.Notes = append(r.Notes, `"Do not use NLA" is "1": the policies apply on every network`)
	} else {
		r.Notes = append(r.Notes, `"Do not use NLA" is not set: off a domain the policies are not applied (set it with --no-nla)`)
	}
	return r, nil
}

func orStar(s string) string {
	if s == "" {
		return "*"
	}
	return s
}

func qosPort(s string) (string, error) {
	if s == "" || s == "*" {
		return "*", nil
	}
	lo, hi, isRange := strings.Cut(s, ":")
	a, err := strconv.ParseUint(lo, 10, 16)
	if err != nil || a == 0 {
		return "", badinput.Errorf("invalid port %q: accepted *, N or N:M (1-65535)", s)
	}
	if isRange {
		b, err := strconv.ParseUint(hi, 10, 16)
		if err != nil || b < a {
			return "", badinput.Errorf("invalid port range %q: accepted N:M with N <= M", s)
		}
	}
	return s, nil
}

func qosIP(s string) (ip, prefix string, err error) {
	if s == "" || s == "*" {
		return "*", "*", nil
	}
	if _, n, err := net.ParseCIDR(s); err == nil {
		ones, _ := n.Mask.Size()
		return n.IP.String(), strconv.Itoa(ones), nil
	}
	if net.ParseIP(s) != nil {
		return s, "*", nil
	}
	return "", "", badinput.Errorf("invalid IP %q: accepted *, an address or address/prefix", s)
}

func (k qosDSCP) Plan(env *Env, sel Selector, value string) (*Plan, error) {
	name := sel.Policy
	if name == "" && sel.App != "" {
		name = "latlab " + path.Base(strings.ReplaceAll(sel.App, `\`, "/"))
	}
	if name == "" {
		return nil, badinput.Errorf("qos-dscp needs --policy NAME or --app EXE")
	}
	if strings.ContainsAny(name, `\`) {
		return nil, badinput.Errorf("invalid policy name %q: it must not contain a backslash", name)
	}
	key := QoSKey + `\` + name
	exists, err := env.read(regLoc(key, ""))
	if err != nil {
		return nil, err
	}
	p := &Plan{Knob: k.Name(), Target: name, Request: value}
	if strings.EqualFold(strings.TrimSpace(value), "remove") {
		if exists.IsAbsent() {
			return nil, badinput.Errorf("no QoS policy %q under %s", name, QoSKey)
		}
		_, vals, err := env.list(backend.BackendRegistry, key)
		if err != nil {
			return nil, err
		}
		for _, vn := range vals {
			if err := p.add(env, regLoc(key, vn), backend.Absent); err != nil {
				return nil, err
			}
		}
		return p, p.add(env, regLoc(key, ""), backend.Absent)
	}
	dscp, err := parseDSCP(value)
	if err != nil {
		return nil, err
	}
	if exists.IsAbsent() && sel.App == "" {
		return nil, badinput.Errorf("a new QoS policy needs --app EXE (the program's file name, or * for all)")
	}
	proto := strings.ToUpper(sel.Protocol)
	switch proto {
	case "", "*", "BOTH":
		proto = "*"
	case "TCP", "UDP":
	default:
		return nil, badinput.Errorf("invalid --protocol %q: accepted tcp, udp or *", sel.Protocol)
	}
	lport, err := qosPort(sel.LocalPort)
	if err != nil {
		return nil, err
	}
	rport, err := qosPort(sel.RemotePort)
	if err != nil {
		return nil, err
	}
	lip, lpre, err := qosIP(sel.LocalIP)
	if err != nil {
		return nil, err
	}
	rip, rpre, err := qosIP(sel.RemoteIP)
	if err != nil {
		return nil, err
	}
	// The values the user gave; the rest of an existing policy stays as
	// it is, so changing its DSCP value keeps its filters.
	want := map[string]string{"DSCP Value": strconv.FormatUint(dscp, 10)}
	if sel.App != "" {
		want["Application Name"] = sel.App
	}
	if sel.Protocol != "" {
		want["Protocol"] = proto
	}
	if sel.LocalPort != "" {
		want["Local Port"] = lport
	}
	if sel.RemotePort != "" {
		want["Remote Port"] = rport
	}
	if sel.LocalIP != "" {
		want["Local IP"], want["Local IP Prefix Length"] = lip, lpre
	}
	if sel.RemoteIP != "" {
		want["Remote IP"], want["Remote IP Prefix Length"] = rip, rpre
	}
	if exists.IsAbsent() {
		// A new policy gets every value, as gpedit writes them.
		for vn, v := range map[string]string{"Version": "1.0", "Protocol": proto, "Local Port": lport, "Local IP": lip, "Local IP Prefix Length": lpre,
			"Remote Port": rport, "Remote IP": rip, "Remote IP Prefix Length": rpre, "Throttle Rate": "-1"} {
			if _, ok := want[vn]; !ok {
				want[vn] = v
			}
		}
	}
	for _, vn := range qosValueNames {
		if w, ok := want[vn]; ok {
			if err := p.add(env, regLoc(key, vn), backend.SZ(w)); err != nil {
				return nil, err
			}
		}
	}
	if sel.NoNLA {
		if err := p.add(env, regLoc(NLAKey, "Do not use NLA"), backend.SZ("1")); err != nil {
			return nil, err
		}
	} else if readSZ(env, NLAKey, "Do not use NLA") != "1" {
		p.Notes = append(p.Notes, `"Do not use NLA" is not set: off a domain Windows ignores the policy; add --no-nla to set it`)
	}
	p.Notes = append(p.Notes, "Group Policy applies it at the next refresh (gpupdate /force) or sign-in; verify with latlab pcap dscp on a capture")
	return p, nil
}

func (k qosDSCP) Vet(target string, l backend.Loc, v backend.Value) error {
	if target == "" || strings.Contains(target, `\`) || hasControl(target) {
		return &notMineError{fmt.Sprintf("%s target %q is not a policy name", k.Name(), target)}
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
		if v.Type != backend.TypeSZ || len(v.Data) > 256 {
			return fmt.Errorf("%s of %d bytes: %q is a short REG_SZ", v.Type, len(v.Data), nla.Name)
		}
		return nil
	case l.Backend == backend.BackendRegistry && strings.EqualFold(l.Path, pol) && l.Name != "" && len(l.Name) <= 16383 && !hasControl(l.Name):
		// `remove` takes every value of the policy, whatever its name.
		return regAnyValue(v)
	}
	return notMine(k.Name(), target, l)
}

// Checkup is what the check-up knows of qos-dscp: its default, how its
// instances are read and the verdict rules.
func (qosDSCP) Checkup() Checkup {
	return Checkup{Default: text("no policy"), Rules: qosDscpRules}
}

// Experiment is how a change of qos-dscp takes effect for latlab try.
func (qosDSCP) Experiment() Experiment {
	return Experiment{Scope: ScopeSystem, Pending: "Group Policy applies it at the next refresh (gpupdate /force) or sign-in"}
}

var qosDscpRules = []Rule{
	{ID: "qos-none", Verdict: Default, When: "no policy",
		Match:  func(c *Case) bool { return c.Empty },
		Reason: text("no QoS policy: Windows marks no packets")},
	{ID: "qos-ignored", Verdict: Suspicious, When: "a policy Windows ignores (bad DSCP, Version, type)",
		Match:  func(c *Case) bool { return len(c.Warnings) > 0 },
		Reason: func(c *Case) string { return c.Value + ": " + strings.Join(c.Warnings, "; ") }},
	{ID: "qos-no-nla", Verdict: Suspicious, When: `a policy without "Do not use NLA"`,
		Match: func(c *Case) bool { return noteWith(c, "is not set") != "" },
		Reason: func(c *Case) string {
			return c.Value + " for " + c.Meaning + `, but "Do not use NLA" is not set: off a domain Windows does not apply it`
		},
		Evidence: func(c *Case) string { return noteWith(c, "is not set") }},
	{ID: "qos-policy", Verdict: Changed, When: "a policy that applies",
		Match:  always,
		Reason: func(c *Case) string { return c.Value + " for " + c.Meaning }},
}
