package knob

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// What RSS does on a Windows machine is decided in three places: the
// global TCP/IP offload setting (MSFT_NetOffloadGlobalSetting's
// ReceiveSideScaling, the state `netsh int tcp show global` and
// Get-NetOffloadGlobalSetting show: off, no adapter spreads receive
// processing whatever its keywords), the adapter's keywords (the rss knob), and what NDIS made of
// them (Get-NetAdapterRss: the base and maximum processor, the profile,
// the processors and the indirection table that maps hash buckets to
// CPUs). The I225-V procedure of the research (GamingPCSetup, djdallmann;
// PC-Tuning, valleyofdoom: "the amount of RSS queues determines the amount
// of consecutive CPUs that the network driver is scheduled on") is
// checked against the last. The parsers are pure functions over the
// commands' output; rssstate_windows.go runs the commands. No parser reads
// a label Windows translates: netsh prints its names in the display
// language ("Receive-Side Scaling State" is another phrase on a German
// Windows), so the global state comes from the CIM class as JSON, whose
// property names and numbers are the same in every language, and
// Get-NetAdapterRss's list view shows property names, never translated.

// maxStateOutput bounds what is read of a command's output.
const maxStateOutput = 1 << 20

// RSSState is the machine's RSS state as Windows reports it.
type RSSState struct {
	// Offload is the global TCP/IP offload setting.
	Offload  *OffloadGlobal `json:"offload_global,omitempty"`
	Adapters []AdapterRSS   `json:"adapters,omitempty"`
	// Errors say which command failed and why.
	Errors []string `json:"errors,omitempty"`
}

// OffloadGlobal is MSFT_NetOffloadGlobalSetting (root/StandardCimv2), the
// class behind Get-NetOffloadGlobalSetting: "enabled", "disabled", or the
// number when it is neither.
type OffloadGlobal struct {
	ReceiveSideScaling       string `json:"receive_side_scaling,omitempty"`
	ReceiveSegmentCoalescing string `json:"receive_segment_coalescing,omitempty"`
}

// GlobalRSS is the global Receive-Side Scaling state ("enabled",
// "disabled"), "" when unknown.
func (s *RSSState) GlobalRSS() string {
	if s == nil || s.Offload == nil {
		return ""
	}
	return s.Offload.ReceiveSideScaling
}

// OffloadGlobalScript prints MSFT_NetOffloadGlobalSetting as JSON. The
// CIM instance gives the properties' numbers, not the names the NetTCPIP
// module's enumerations map them to, and ConvertTo-Json writes them as
// they are, in any display language.
const OffloadGlobalScript = `Get-CimInstance -Namespace root/StandardCimv2 -ClassName MSFT_NetOffloadGlobalSetting -ErrorAction Stop | Select-Object ReceiveSideScaling,ReceiveSegmentCoalescing | ConvertTo-Json -Compress`

// ParseOffloadGlobal reads OffloadGlobalScript's output: one JSON object
// (or an array of one) whose ReceiveSideScaling and
// ReceiveSegmentCoalescing are EnabledDisabledEnum numbers, Disabled 0 and
// Enabled 1 (Microsoft, MSFT_NetOffloadGlobalSetting and
// Set-NetOffloadGlobalSetting: "-ReceiveSideScaling <EnabledDisabledEnum>
// {Disabled | Enabled}").
func ParseOffloadGlobal(r io.Reader) (*OffloadGlobal, error) {
	b, err := io.ReadAll(io.LimitReader(r, maxStateOutput))
	if err != nil {
		return nil, fmt.Errorf("MSFT_NetOffloadGlobalSetting: %w", err)
	}
	b = bytes.TrimSpace(bytes.TrimPrefix(b, []byte("\ufeff")))
	type raw struct {
		ReceiveSideScaling       *json.Number
		ReceiveSegmentCoalescing *json.Number
	}
	var one raw
	if len(b) > 0 && b[0] == '[' {
		var all []raw
		if err := json.Unmarshal(b, &all); err != nil || len(all) != 1 {
			return nil, fmt.Errorf("MSFT_NetOffloadGlobalSetting: want one JSON object, got %q", clip(string(b)))
		}
		one = all[0]
	} else if err := json.Unmarshal(b, &one); err != nil {
		return nil, fmt.Errorf("MSFT_NetOffloadGlobalSetting: want a JSON object, got %q", clip(string(b)))
	}
	if one.ReceiveSideScaling == nil {
		return nil, fmt.Errorf("MSFT_NetOffloadGlobalSetting: no ReceiveSideScaling in %q", clip(string(b)))
	}
	return &OffloadGlobal{
		ReceiveSideScaling:       enabledDisabled(one.ReceiveSideScaling),
		ReceiveSegmentCoalescing: enabledDisabled(one.ReceiveSegmentCoalescing),
	}, nil
}

// enabledDisabled names an EnabledDisabledEnum number.
func enabledDisabled(n *json.Number) string {
	if n == nil {
		return ""
	}
	switch n.String() {
	case "0":
		return "disabled"
	case "1":
		return "enabled"
	}
	return clip(n.String())
}

// AdapterRSS is one adapter of Get-NetAdapterRss.
type AdapterRSS struct {
	Name                 string   `json:"name"`
	InterfaceDescription string   `json:"interface_description"`
	Enabled              string   `json:"enabled,omitempty"`
	Queues               string   `json:"receive_queues,omitempty"`
	Profile              string   `json:"profile,omitempty"`
	BaseProcessor        string   `json:"base_processor,omitempty"` // group:number
	MaxProcessor         string   `json:"max_processor,omitempty"`
	MaxProcessors        string   `json:"max_processors,omitempty"`
	Processors           []string `json:"processors,omitempty"`        // group:number/NUMA distance
	IndirectionTable     []string `json:"indirection_table,omitempty"` // group:number per bucket
}

// IndirectionCPUs are the distinct processors of the indirection table in
// order of first use.
func (a AdapterRSS) IndirectionCPUs() []string {
	var out []string
	seen := map[string]bool{}
	for _, p := range a.IndirectionTable {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out
}

// Summary is the adapter's RSS state in one line.
func (a AdapterRSS) Summary() string {
	var parts []string
	if a.Enabled != "" {
		parts = append(parts, "enabled "+strings.ToLower(a.Enabled))
	}
	if a.Queues != "" {
		parts = append(parts, a.Queues+" queues")
	}
	if a.Profile != "" {
		parts = append(parts, "profile "+a.Profile)
	}
	if a.BaseProcessor != "" {
		parts = append(parts, "base "+a.BaseProcessor)
	}
	if a.MaxProcessors != "" {
		parts = append(parts, "max "+a.MaxProcessors+" processors")
	}
	if cpus := a.IndirectionCPUs(); len(cpus) > 0 {
		parts = append(parts, fmt.Sprintf("indirection table: %d entries over %s", len(a.IndirectionTable), strings.Join(cpus, " ")))
	}
	return strings.Join(parts, ", ")
}

// ParseNetAdapterRSS reads Get-NetAdapterRss in PowerShell's list format:
// one block of "Name : value" lines per adapter, blank lines between, and
// the processor array and the indirection table continued on lines that
// start with spaces (Microsoft's Get-NetAdapterRss reference shows the
// layout). Output with no adapter in it is an error, unless it is empty
// (no adapter supports RSS): text in another layout (Format-Table, a
// transcript kept as comments, an error message) must not read as "no
// adapter". So are processor entries on an indented line that continues
// neither the array nor the table: the tuning guide's example elides rows
// with "…" lines, after which its last row was dropped and the table read
// short without a word.
func ParseNetAdapterRSS(r io.Reader) ([]AdapterRSS, error) {
	var out []AdapterRSS
	var cur *AdapterRSS
	last := ""
	first := "" // the first line that is not blank
	stray := "" // the last line that is not blank and not "name : value"
	n := 0
	sc := bufio.NewScanner(io.LimitReader(r, maxStateOutput))
	sc.Buffer(make([]byte, 4096), 64<<10)
	const maxEntries = 4096
	add := func(field, v string) {
		if cur == nil {
			return
		}
		switch field {
		case "processors":
			for _, f := range strings.Fields(v) {
				if len(cur.Processors) < maxEntries {
					cur.Processors = append(cur.Processors, clip(f))
				}
			}
		case "indirection":
			for _, f := range strings.Fields(v) {
				if len(cur.IndirectionTable) < maxEntries {
					cur.IndirectionTable = append(cur.IndirectionTable, clip(f))
				}
			}
		}
	}
	for sc.Scan() {
		n++
		line := strings.TrimRight(sc.Text(), "\r")
		if n == 1 {
			// A byte-order mark, as ParseOffloadGlobal allows for PowerShell's output.
			line = strings.TrimPrefix(line, "\ufeff")
		}
		if strings.TrimSpace(line) == "" {
			last = ""
			continue
		}
		if first == "" {
			first = strings.TrimSpace(line)
		}
		if line[0] == ' ' || line[0] == '\t' {
			if last == "" && cur != nil && entriesOnly(line) {
				after := ""
				if stray != "" {
					after = fmt.Sprintf(" (after %q, not a line of the list view)", clip(stray))
				}
				return nil, fmt.Errorf("Get-NetAdapterRss output line %d: entries %q continue neither RssProcessorArray nor IndirectionTable%s", n, clip(strings.TrimSpace(line)), after)
			}
			add(last, line) // a continuation of the array or the table
			continue
		}
		k, v, ok := cutListField(line)
		if !ok {
			last = ""
			stray = strings.TrimSpace(line)
			continue
		}
		stray = ""
		if k == "Name" {
			if len(out) >= 256 {
				break
			}
			out = append(out, AdapterRSS{Name: clip(v)})
			cur = &out[len(out)-1]
			last = ""
			continue
		}
		if cur == nil {
			continue
		}
		last = ""
		switch {
		case k == "InterfaceDescription":
			cur.InterfaceDescription = clip(v)
		case k == "Enabled":
			cur.Enabled = clip(v)
		case k == "NumberOfReceiveQueues":
			cur.Queues = clip(v)
		case k == "Profile":
			cur.Profile = clip(v)
		case strings.HasPrefix(k, "BaseProcessor"):
			cur.BaseProcessor = clip(v)
		case strings.HasPrefix(k, "MaxProcessor:") || k == "MaxProcessor":
			cur.MaxProcessor = clip(v)
		case k == "MaxProcessors":
			cur.MaxProcessors = clip(v)
		case strings.HasPrefix(k, "RssProcessorArray"):
			last = "processors"
			add(last, v)
		case strings.HasPrefix(k, "IndirectionTable"):
			last = "indirection"
			add(last, v)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("Get-NetAdapterRss output: %w", err)
	}
	if len(out) == 0 && first != "" {
		return nil, fmt.Errorf("Get-NetAdapterRss output: no adapter in it (no \"Name : ...\" line of the list view); it starts %q", clip(first))
	}
	return out, nil
}

// entriesOnly says whether a line holds only processor entries,
// group:number with or without /NUMA distance (the group may be empty, as
// in "BaseProcessor: [Group:Number] : :0" of an Intel 82574L).
func entriesOnly(line string) bool {
	fs := strings.Fields(line)
	for _, f := range fs {
		g, rest, ok := strings.Cut(f, ":")
		num, dist, hasDist := strings.Cut(rest, "/")
		if !ok || !digits(g, true) || !digits(num, false) || (hasDist && !digits(dist, false)) {
			return false
		}
	}
	return len(fs) > 0
}

// digits says whether s is decimal digits (or empty, when that is allowed).
func digits(s string, emptyOK bool) bool {
	if s == "" {
		return emptyOK
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// cutListField splits a list-format line at the " : " that ends its name
// (names such as "BaseProcessor: [Group:Number]" hold colons themselves).
// The Windows Server tuning guide's example and its translations print
// "IndirectionTable: [Group:Number]:" with the entries on the lines below,
// and "Mastering Windows Server 2016 Hyper-V" prints
// "RssProcessorArray: [Group:Number/NUMA Distance]:" so: a name that ends in
// "]" may have its colon right after it.
func cutListField(line string) (string, string, bool) {
	if i := strings.Index(line, " : "); i >= 0 {
		return strings.TrimSpace(line[:i]), strings.TrimSpace(line[i+3:]), true
	}
	if t := strings.TrimRight(line, " \t"); strings.HasSuffix(t, " :") {
		return strings.TrimSpace(strings.TrimSuffix(t, ":")), "", true
	}
	if i := strings.Index(line, "]:"); i > 0 && strings.Contains(line[:i], "[") {
		if v := line[i+2:]; v == "" || v[0] == ' ' || v[0] == '\t' {
			return strings.TrimSpace(line[:i+1]), strings.TrimSpace(v), true
		}
	}
	return "", "", false
}

// forAdapter is the Get-NetAdapterRss entry of the adapter whose
// InterfaceDescription is its DriverDesc (Windows adds " #2" to the
// second of two alike).
func (s *RSSState) forAdapter(desc string) (AdapterRSS, bool) {
	if s == nil {
		return AdapterRSS{}, false
	}
	for _, a := range s.Adapters {
		if strings.EqualFold(a.InterfaceDescription, desc) {
			return a, true
		}
	}
	return AdapterRSS{}, false
}

// addRSSState puts the machine's RSS state into an rss reading: the global
// state as a note, each adapter's Get-NetAdapterRss in its item.
func addRSSState(env *Env, r *Reading) {
	if env.RSSState == nil {
		return
	}
	s, err := env.RSSState()
	if err != nil {
		r.Notes = append(r.Notes, "RSS state not read: "+err.Error())
		return
	}
	if g := s.GlobalRSS(); g != "" {
		r.Notes = append(r.Notes, globalRSSNote+g)
		if g != "enabled" {
			r.Notes = append(r.Notes, "RSS is off for every adapter whatever its keywords: netsh int tcp set global rss=enabled turns it on")
		}
	}
	if s.Offload != nil && s.Offload.ReceiveSegmentCoalescing != "" {
		r.Notes = append(r.Notes, "global Receive Segment Coalescing (MSFT_NetOffloadGlobalSetting): "+s.Offload.ReceiveSegmentCoalescing)
	}
	r.Notes = append(r.Notes, s.Errors...)
	for i := range r.Items {
		it := &r.Items[i]
		_, desc, _ := strings.Cut(it.Target, " ") // "0007 Intel(R) ..."
		a, ok := s.forAdapter(desc)
		if !ok {
			continue
		}
		it.Meaning += "; Get-NetAdapterRss: " + a.Summary()
		if m, ok := it.Detail.(map[string]any); ok {
			m["adapter_rss"] = a
		} else if it.Detail == nil {
			it.Detail = map[string]any{"adapter_rss": a}
		}
		if strings.EqualFold(a.Enabled, "False") && storedKeyword(it, "*RSS") == "1" {
			it.Warnings = append(it.Warnings, "*RSS is 1 but Get-NetAdapterRss says Enabled False: the driver or the global state keeps RSS off")
		}
		if w := emptyTableWarning(a); w != "" {
			it.Warnings = append(it.Warnings, w)
		}
	}
}

// globalRSSNote starts the note of the global RSS state, which the rule
// rss-global-off reads back.
const globalRSSNote = "global Receive-Side Scaling (MSFT_NetOffloadGlobalSetting): "

// storedKeyword is the stored value of an adapter keyword of an item.
func storedKeyword(it *Item, kw string) string {
	for _, x := range it.Extra {
		if strings.EqualFold(x.Loc.Name, kw) {
			return strings.TrimSpace(x.Old.String())
		}
	}
	return ""
}

// rssStateExplain is what rss's explanation says of the state outside
// the keywords.
func rssStateExplain() []string {
	return []string{
		"Outside the keywords: the global ReceiveSideScaling of",
		"  MSFT_NetOffloadGlobalSetting (Get-NetOffloadGlobalSetting; netsh int tcp",
		"  show global): Disabled keeps RSS off for every adapter; and Get-NetAdapterRss",
		"  (base and max processor, profile, the processors NDIS chose and the",
		"  indirection table of hash buckets to CPUs); knob get rss shows both.",
		"PC-Tuning (valleyofdoom): the number of RSS queues is the number of",
		"  consecutive CPUs from the base the driver runs on; at ~300 kb/s of game",
		"  traffic one CPU did the work, two at 1 Gbit/s.",
	}
}

// emptyTableWarning is the I225-V symptom GamingPCSetup describes (its
// question: the adapter "supports RSS, MSI and MSI-X but why is my
// indirection table missing"): RSS enabled and no indirection table, so
// NDIS spreads nothing across CPUs. Its cause there was the INF leaving out
// the RSS keys NDIS 6.x needs for the table; "" when the adapter does not
// show the symptom.
func emptyTableWarning(a AdapterRSS) string {
	if !strings.EqualFold(a.Enabled, "True") || len(a.IndirectionTable) > 0 {
		return ""
	}
	w := "RSS is enabled but Get-NetAdapterRss shows no indirection table: received packets are not spread over CPUs. GamingPCSetup saw this on the I225-V, whose INF leaves out RSS keys; its procedure enables RSS and TaskOffload globally and adds the RSS keys (*NumRssQueues, *RSSProfile, *RssBaseProcNumber, *MaxRssProcessors and others) to the adapter's key (latlab knob set rss), then restarts the adapter"
	if strings.TrimSpace(a.Queues) == "0" {
		// Real outputs show NIC teams ("Microsoft Network Adapter
		// Multiplexor Driver") so: Enabled True, 0 queues, no table.
		w += ". It also reports 0 receive queues, as Get-NetAdapterRss does for a NIC team's multiplexor adapter, whose member adapters do the receiving: if this adapter is a team, look at its members' tables instead"
	}
	return w
}
