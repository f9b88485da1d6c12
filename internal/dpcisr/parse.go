package dpcisr

import (
	"fmt"
	"io"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/latlab/latlab/internal/textdec"
)

// ParseError says which line could not be read and what was expected there.
type ParseError = textdec.LineError

// MaxInput bounds what Parse reads; real reports are a few hundred KiB.
const MaxInput = 64 << 20

const (
	expectBlock  = "expected 'Total = N for module NAME' followed by lines 'Elapsed Time, > A usecs AND <= B usecs, COUNT, or P%'"
	expectBucket = "expected 'Elapsed Time, > A usecs AND <= B usecs, COUNT, or P%'"
)

var (
	reModule    = regexp.MustCompile(`(?i)^total\s*=\s*(\d+)\s*for\s+module\s+(.*)$`)
	reOverall   = regexp.MustCompile(`(?i)^total\s*=\s*(\d+)\s*$`)
	reBucket    = regexp.MustCompile(`(?i)^elapsed\s*time\s*,\s*>\s*(\d+)\s*usecs?\s*(?:and\s*<=\s*(\d+)\s*usecs?\s*)?,\s*(\d+)\s*(?:,\s*(?:or\s*)?(\d+(?:[.,]\d+)?)\s*%)?\s*,?$`)
	reFooter    = regexp.MustCompile(`(?i)^total\s*,\s*(\d*)\s*,?$`)
	reCheck     = regexp.MustCompile(`(?i)^all\s*modules?\s*=\s*(\d+)\s*,\s*total\s*=\s*(\d+)\s*,?\s*(.*)$`)
	reSpan      = regexp.MustCompile(`(?i)^cpu\s*usage\s*from\s*(\d+)\s*us\s*to\s*(\d+)\s*us\s*:?$`)
	reCPUUsage  = regexp.MustCompile(`(?i)cpu\s*(\d+)\s*usage`)
	reCPU       = regexp.MustCompile(`(?i)cpu\s*(\d+)`)
	reIntHdr    = regexp.MustCompile(`(?i)^usage\s*from\s*(\d+)\s*ms\s*to\s*(\d+)\s*ms\s*,\s*summing\s*in\s*(\d+(?:[.,]\d+)?)\s*seconds?\s*intervals?\s*\.?\s*(?:intervals\s*=\s*(\d+))?\s*$`)
	reIntRow    = regexp.MustCompile(`^(\d+)\s*-\s*(\d+)\s*:?\s*,(.*)$`)
	reDistHdr   = regexp.MustCompile(`(?i)^distribution\s+of\s+number\s+of\s+(\d+)\s*ms\s+intervals`)
	rePair      = regexp.MustCompile(`(\d+)\s+(\d+(?:[.,]\d+)?)`)
	reRule      = regexp.MustCompile(`^[-=_*#~]{3,}$`)
	reWord      = regexp.MustCompile(`[a-z]+`)
	knownHeader = map[string]string{"dpc info": DPC, "interrupt info": ISR, "isr info": ISR}
)

type parser struct {
	lines []string
	rep   *Report
	sec   *Section
	cur   *Histogram // open block
	label string     // hand-added heading in force
	pend  string     // free text seen since the last structural line
}

// Parse reads an xperf DPC/ISR report.
func Parse(r io.Reader) (*Report, error) {
	lines, enc, err := textdec.ReadLines(r, MaxInput, "the text report of 'xperf -a dpcisr'")
	if err != nil {
		return nil, err
	}
	p := &parser{lines: lines, rep: &Report{Encoding: string(enc)}}
	p.rep.Lines = len(p.lines)
	if err := p.run(); err != nil {
		return nil, err
	}
	n := 0
	for _, s := range p.rep.Sections {
		n += len(s.Modules)
		if s.Overall != nil {
			n++
		}
	}
	if n == 0 {
		return nil, &ParseError{Line: len(p.lines), Msg: fmt.Sprintf("no DPC/ISR histogram in %d lines: %s", len(p.lines), expectBlock)}
	}
	return p.rep, nil
}

func (p *parser) notef(line int, format string, a ...any) {
	p.rep.Notes = append(p.rep.Notes, fmt.Sprintf("line %d: ", line)+fmt.Sprintf(format, a...))
}

func (p *parser) line(i int) string { return strings.TrimSpace(p.lines[i]) }

// nonEmpty returns the index of the nearest non-empty line from i in
// direction d, or -1.
func (p *parser) nonEmpty(i, d int) int {
	for j := i + d; j >= 0 && j < len(p.lines); j += d {
		if p.line(j) != "" {
			return j
		}
	}
	return -1
}

func (p *parser) run() error {
	for i := 0; i < len(p.lines); i++ {
		t := p.line(i)
		ln := i + 1
		switch {
		case t == "":
			continue
		case reRule.MatchString(t):
			continue
		}
		if m := reBucket.FindStringSubmatch(t); m != nil {
			if err := p.bucket(m, ln); err != nil {
				return err
			}
			continue
		}
		if m := reModule.FindStringSubmatch(t); m != nil {
			if err := p.open(m[1], m[2], ln); err != nil {
				return err
			}
			continue
		}
		if m := reOverall.FindStringSubmatch(t); m != nil {
			if err := p.open(m[1], "", ln); err != nil {
				return err
			}
			continue
		}
		if m := reFooter.FindStringSubmatch(t); m != nil {
			if err := p.footer(m[1], ln); err != nil {
				return err
			}
			continue
		}
		if m := reCheck.FindStringSubmatch(t); m != nil {
			if err := p.close(); err != nil {
				return err
			}
			s := p.section(ln)
			s.Check = &Check{AllModule: atoi(m[1]), Total: atoi(m[2]), Verdict: strings.TrimSpace(m[3]), Line: ln}
			if s.Check.AllModule != s.Check.Total {
				p.notef(ln, "xperf reports the module histograms (%d) and the overall one (%d) as %s", s.Check.AllModule, s.Check.Total, s.Check.Verdict)
			}
			continue
		}
		if m := reSpan.FindStringSubmatch(t); m != nil {
			if err := p.close(); err != nil {
				return err
			}
			s := p.section(ln)
			if s.Span != nil || s.Overall != nil || len(s.Modules) > 0 {
				s = p.newSection(s.Name, s.Heading, ln)
				p.notef(ln, "a second usage table in one %s section: taken as the start of another report", s.Name)
			}
			s.Span = &Span{FromUs: atoi(m[1]), ToUs: atoi(m[2])}
			continue
		}
		if reCPUUsage.MatchString(t) && !strings.HasPrefix(t, ",") {
			if err := p.close(); err != nil {
				return err
			}
			j, err := p.usageTable(i)
			if err != nil {
				return err
			}
			i = j
			continue
		}
		if m := reIntHdr.FindStringSubmatch(t); m != nil {
			if err := p.close(); err != nil {
				return err
			}
			j, err := p.intervalTable(i, m)
			if err != nil {
				return err
			}
			i = j
			continue
		}
		if m := reDistHdr.FindStringSubmatch(t); m != nil {
			if err := p.close(); err != nil {
				return err
			}
			i = p.distribution(i, m)
			continue
		}
		low := strings.ToLower(t)
		if strings.HasPrefix(low, "elapsed") {
			return &ParseError{Line: ln, Msg: fmt.Sprintf("unreadable bucket line %q: %s", textdec.Clip(t), expectBucket)}
		}
		if strings.HasPrefix(low, "total") && (strings.Contains(low, "=") || strings.Contains(low, "module")) {
			return &ParseError{Line: ln, Msg: fmt.Sprintf("unreadable histogram header %q: expected 'Total = N for module NAME' or 'Total = N'", textdec.Clip(t))}
		}
		if name := p.heading(i); name != "" {
			if err := p.close(); err != nil {
				return err
			}
			p.newSection(name, strings.Trim(t, "-=_*#~ :"), ln)
			p.label, p.pend = "", ""
			continue
		}
		if skipPhrase(low) {
			if err := p.close(); err != nil {
				return err
			}
			continue
		}
		// Free text: a heading someone added above the next block.
		if err := p.close(); err != nil {
			return err
		}
		p.pend = strings.Trim(t, "-=_*#~ :")
	}
	if err := p.close(); err != nil {
		return err
	}
	// Drop sections that hold nothing (a heading repeated by hand).
	kept := p.rep.Sections[:0]
	for _, s := range p.rep.Sections {
		if s.Overall != nil || len(s.Modules) > 0 || len(s.Usage) > 0 || s.Intervals != nil {
			kept = append(kept, s)
		}
	}
	p.rep.Sections = kept
	return nil
}

func skipPhrase(low string) bool {
	for _, s := range []string{"cpu usage summing by module", "start (ms)", "dpc/isr usage %"} {
		if strings.HasPrefix(low, s) {
			return true
		}
	}
	return strings.Contains(low, "usec") && strings.Contains(low, "%") && strings.HasSuffix(low, "module")
}

// heading recognises a section heading: xperf's own ("DPC Info",
// "Interrupt Info") or a line naming DPCs or interrupts (not both) framed
// by rule lines, as people write them ("====\nDPC Latency\n====").
func (p *parser) heading(i int) string {
	t := p.line(i)
	core := strings.ToLower(strings.Trim(t, "-=_*#~ :"))
	if k, ok := knownHeader[core]; ok {
		return k
	}
	framed := core != strings.ToLower(strings.TrimSpace(strings.TrimSuffix(t, ":"))) // "== DPC =="
	for _, d := range []int{-1, 1} {
		if j := p.nonEmpty(i, d); j >= 0 && reRule.MatchString(p.line(j)) {
			framed = true
		}
	}
	if !framed || strings.ContainsAny(core, "0123456789,") {
		return ""
	}
	var dpc, isr bool
	for _, w := range reWord.FindAllString(core, -1) {
		switch w {
		case "dpc", "dpcs":
			dpc = true
		case "isr", "isrs", "interrupt", "interrupts":
			isr = true
		}
	}
	switch {
	case dpc && !isr:
		return DPC
	case isr && !dpc:
		return ISR
	}
	return ""
}

func (p *parser) newSection(name, heading string, ln int) *Section {
	p.rep.Sections = append(p.rep.Sections, Section{Name: name, Heading: heading, Line: ln, Modules: []Histogram{}})
	p.sec = &p.rep.Sections[len(p.rep.Sections)-1]
	return p.sec
}

// section returns the current section, opening an implicit DPC section
// when a block comes before any heading (xperf prints DPCs first).
func (p *parser) section(ln int) *Section {
	if p.sec == nil {
		p.notef(ln, "no section heading before this line: taken as DPC (xperf prints the DPC section first)")
		return p.newSection(DPC, "", ln)
	}
	return p.sec
}

func (p *parser) open(total, module string, ln int) error {
	if err := p.close(); err != nil {
		return err
	}
	s := p.section(ln)
	if p.pend != "" {
		p.label, p.pend = p.pend, ""
	}
	mod := ""
	if module != "" {
		f := strings.Fields(module)
		mod = strings.Trim(f[0], `"'`)
		if len(f) > 1 {
			p.notef(ln, "text after the module name ignored: %q", textdec.Clip(strings.Join(f[1:], " ")))
		}
	}
	if mod == "" && s.Overall != nil {
		s = p.newSection(s.Name, s.Heading, ln)
		p.notef(ln, "a second overall histogram in one %s section: taken as the start of another report", s.Name)
	}
	h := &Histogram{Module: mod, Label: p.label, Line: ln, Total: atoi(total), Buckets: []Bucket{}}
	if mod == "" {
		s.Overall = h
	} else {
		s.Modules = append(s.Modules, *h)
		h = &s.Modules[len(s.Modules)-1]
	}
	p.cur = h
	return nil
}

func (p *parser) bucket(m []string, ln int) error {
	if p.cur == nil {
		return &ParseError{Line: ln, Msg: "bucket line outside a histogram: " + expectBlock}
	}
	b := Bucket{GtUs: atoi(m[1]), Count: atoi(m[3]), Line: ln}
	if m[2] != "" {
		le := atoi(m[2])
		if le <= b.GtUs {
			return &ParseError{Line: ln, Msg: fmt.Sprintf("bucket upper bound %d is not above its lower bound %d: %s", le, b.GtUs, expectBucket)}
		}
		b.LeUs = &le
	}
	if m[4] != "" {
		b.Percent, _ = strconv.ParseFloat(strings.Replace(m[4], ",", ".", 1), 64)
		b.printed = true
	}
	p.cur.Buckets = append(p.cur.Buckets, b)
	return nil
}

func (p *parser) footer(n string, ln int) error {
	if p.cur == nil {
		p.notef(ln, "'Total,' line outside a histogram ignored")
		return nil
	}
	if n != "" {
		v := atoi(n)
		p.cur.Footer = &v
	}
	return p.close()
}

// close ends the open block and checks it against itself.
func (p *parser) close() error {
	h := p.cur
	if h == nil {
		return nil
	}
	p.cur = nil
	sortBuckets(h.Buckets)
	for i := 1; i < len(h.Buckets); i++ {
		a, b := h.Buckets[i-1], h.Buckets[i]
		if a.Open() || float64(b.GtUs) < a.Upper() {
			first, second := a, b
			if second.Line < first.Line {
				first, second = second, first
			}
			return &ParseError{Line: second.Line, Msg: fmt.Sprintf("bucket %s overlaps bucket %s of line %d in the %s block of line %d: each bucket once per block", second.Range(), first.Range(), first.Line, h.Name(), h.Line)}
		}
	}
	sum := h.Sum()
	switch {
	case len(h.Buckets) == 0 && h.Total > 0:
		p.notef(h.Line, "%s: 'Total = %d' but no bucket lines", h.Name(), h.Total)
	case sum != h.Total:
		p.notef(h.Line, "%s: buckets sum to %d, the header says Total = %d; the buckets are used", h.Name(), sum, h.Total)
	}
	if h.Footer != nil && *h.Footer != h.Total {
		p.notef(h.Line, "%s: 'Total, %d' disagrees with 'Total = %d'", h.Name(), *h.Footer, h.Total)
	}
	if h.Total > 0 {
		for _, b := range h.Buckets {
			want := 100 * float64(b.Count) / float64(h.Total)
			if b.printed {
				if d := b.Percent - want; d > 0.011 || d < -0.011 {
					p.notef(b.Line, "%s: %d of %d is %.2f%%, the file says %.2f%%", h.Name(), b.Count, h.Total, want, b.Percent)
					break
				}
			}
		}
	}
	return nil
}

func sortBuckets(bs []Bucket) {
	sort.SliceStable(bs, func(i, j int) bool {
		if bs[i].GtUs != bs[j].GtUs {
			return bs[i].GtUs < bs[j].GtUs
		}
		return bs[i].Upper() < bs[j].Upper()
	})
}

// usageTable reads the "CPU n Usage" header at i, the legend and the rows
// up to the next blank line; it returns the index of the last line read.
func (p *parser) usageTable(i int) (int, error) {
	s := p.section(i + 1)
	cpus := cpuList(reCPUUsage, p.line(i))
	j := i + 1
	if j < len(p.lines) && strings.Contains(strings.ToLower(p.line(j)), "usec") {
		j++ // the "usec %, ..., Module" legend
	}
	for ; j < len(p.lines); j++ {
		t := p.line(j)
		if t == "" || reRule.MatchString(t) {
			break
		}
		k := strings.LastIndex(t, ",")
		if k < 0 {
			break
		}
		mod := strings.Trim(strings.TrimSpace(t[k+1:]), `"'`)
		usec, pct := pairs(t[:k])
		if len(usec) != len(cpus) || mod == "" {
			p.notef(j+1, "usage row with %d usec/%% pairs under a header of %d CPUs skipped", len(usec), len(cpus))
			continue
		}
		s.Usage = append(s.Usage, ModuleUsage{Module: mod, Line: j + 1, Usec: usec, Percent: pct, CPUs: cpus})
	}
	return j - 1, nil
}

func (p *parser) intervalTable(i int, m []string) (int, error) {
	s := p.section(i + 1)
	iv, _ := strconv.ParseFloat(strings.Replace(m[3], ",", ".", 1), 64)
	tab := &IntervalTable{FromMs: atoi(m[1]), ToMs: atoi(m[2]), IntervalSec: iv, Intervals: int(atoi(m[4])), Line: i + 1}
	j := i + 1
	for ; j < len(p.lines); j++ {
		t := p.line(j)
		if t == "" {
			continue
		}
		if reCPUUsage.MatchString(t) {
			tab.CPUs = cpuList(reCPUUsage, t)
			j++
		}
		break
	}
	if j < len(p.lines) && strings.Contains(strings.ToLower(p.line(j)), "usec") {
		j++ // "Start (ms) End (ms) , (usec) % , ..."
	}
	for ; j < len(p.lines); j++ {
		t := p.line(j)
		r := reIntRow.FindStringSubmatch(t)
		if r == nil {
			break
		}
		usec, pct := pairs(r[3])
		if tab.CPUs != nil && len(usec) != len(tab.CPUs) {
			p.notef(j+1, "interval row with %d usec/%% pairs under a header of %d CPUs skipped", len(usec), len(tab.CPUs))
			continue
		}
		tab.Rows = append(tab.Rows, IntervalRow{StartMs: atoi(r[1]), EndMs: atoi(r[2]), Usec: usec, Percent: pct, Line: j + 1})
	}
	if s.Intervals == nil {
		s.Intervals = tab
	}
	return j - 1, nil
}

func (p *parser) distribution(i int, m []string) int {
	d := &Distribution{IntervalMs: atoi(m[1]), Line: i + 1}
	j := i + 1
	for ; j < len(p.lines) && p.line(j) == ""; j++ {
	}
	if j < len(p.lines) && reCPU.MatchString(p.line(j)) {
		d.CPUs = cpuList(reCPU, p.line(j))
		j++
	}
	if j < len(p.lines) && strings.Contains(strings.ToLower(p.line(j)), "usage %") {
		f := strings.Split(p.line(j), ",")
		if len(f) > 1 {
			d.Columns = strings.Fields(f[1])
		}
		j++
	}
	for ; j < len(p.lines); j++ {
		t := p.line(j)
		if t == "" || strings.HasPrefix(t, "---") || strings.HasPrefix(strings.ToLower(t), "total") {
			break
		}
		f := strings.Split(t, ",")
		row := DistRow{Range: strings.Join(strings.Fields(f[0]), " "), Line: j + 1}
		ok := len(f) > 1
		for _, c := range f[1:] {
			v, err := strconv.ParseInt(strings.TrimSpace(c), 10, 64)
			if err != nil {
				ok = false
				break
			}
			row.Counts = append(row.Counts, v)
		}
		if !ok {
			break
		}
		d.Rows = append(d.Rows, row)
	}
	for ; j < len(p.lines); j++ { // the "---" rule and the "Total:" row belong to the table
		t := strings.ToLower(p.line(j))
		if !strings.HasPrefix(t, "---") && !strings.HasPrefix(t, "total:") {
			break
		}
	}
	if p.rep.Distribution == nil {
		p.rep.Distribution = d
	}
	return j - 1
}

func cpuList(re *regexp.Regexp, t string) []int {
	var cpus []int
	for _, m := range re.FindAllStringSubmatch(t, -1) {
		cpus = append(cpus, int(atoi(m[1])))
	}
	return cpus
}

func pairs(s string) ([]int64, []float64) {
	var usec []int64
	var pct []float64
	for _, cell := range rePair.FindAllStringSubmatch(s, -1) {
		usec = append(usec, atoi(cell[1]))
		f, _ := strconv.ParseFloat(strings.Replace(cell[2], ",", ".", 1), 64)
		pct = append(pct, f)
	}
	return usec, pct
}

// atoi parses digits the regexes matched; values beyond int64 saturate.
func atoi(s string) int64 {
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil && s != "" {
		return 1<<63 - 1
	}
	return v
}
