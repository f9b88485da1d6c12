package dpcisr

import (
	"fmt"
	"io"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/latlab/latlab/internal/lazy"

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
	reModule    = lazy.Regexp(`(?i)^total\s*=\s*(\d+)\s*for\s+module\s+(.*)$`)
	reOverall   = lazy.Regexp(`(?i)^total\s*=\s*(\d+)\s*$`)
	reBucket    = lazy.Regexp(`(?i)^elapsed\s*time\s*,\s*>\s*(\d+)\s*usecs?\s*(?:and\s*<=\s*(\d+)\s*usecs?\s*)?,\s*(\d+)\s*(?:,\s*(?:or\s*)?(\d+(?:[.,]\d+)?)\s*%)?\s*,?$`)
	reFooter    = lazy.Regexp(`(?i)^total\s*,\s*(\d*)\s*,?$`)
	reCheck     = lazy.Regexp(`(?i)^all\s*modules?\s*=\s*(\d+)\s*,\s*total\s*=\s*(\d+)\s*,?\s*(.*)$`)
	reSpan      = lazy.Regexp(`(?i)^cpu\s*usage\s*from\s*(\d+)\s*us\s*to\s*(\d+)\s*us\s*:?$`)
	reCPUUsage  = lazy.Regexp(`(?i)cpu\s*(\d+)\s*usage`)
	reCPU       = lazy.Regexp(`(?i)cpu\s*(\d+)`)
	reIntHdr    = lazy.Regexp(`(?i)^usage\s*from\s*(\d+)\s*ms\s*to\s*(\d+)\s*ms\s*,\s*summing\s*in\s*(\d+(?:[.,]\d+)?)\s*seconds?\s*intervals?\s*\.?\s*(?:intervals\s*=\s*(\d+))?\s*$`)
	reIntRow    = lazy.Regexp(`^(\d+)\s*-\s*(\d+)\s*:?\s*,(.*)$`)
	reDistHdr   = lazy.Regexp(`(?i)^distribution\s+of\s+number\s+of\s+(\d+)\s*ms\s+intervals`)
	rePair      = lazy.Regexp(`(\d+)\s+(\d+(?:[.,]\d+)?)`)
	reRule      = lazy.Regexp(`^[-=_*#~]{3,}$`)
	reWord      = lazy.Regexp(`[a-z]+`)
	knownHeader = map[string]string{"dpc info": DPC, "interrupt info": ISR, "isr info": ISR}
)

type parser struct {
	src   *source
	rep   *Report
	sec   *Section
	cur   *Histogram // open block
	label string     // hand-added heading in force
	pend  string     // free text seen since the last structural line

	kept    int // estimated bytes of the report so far (budget)
	dropped int // notes beyond maxNotes
}

// Bounds on what a report may hold, whatever the file: the parser streams
// (one line in memory), so these bound its memory. Real reports hold a
// few hundred KiB and a handful of notes.
var (
	maxRetained = 64 << 20 // estimated bytes of sections, histograms and tables
	maxNotes    = 100
)

// Parse reads an xperf DPC/ISR report, one line at a time: its memory
// depends on what the report holds (bounded by maxRetained), not on the
// size of the file.
func Parse(r io.Reader) (*Report, error) {
	var rep *Report
	err := textdec.Scan(r, MaxInput, "the text report of 'xperf -a dpcisr', a LatencyMon report, a latlab dpcisr JSON document or an .etl trace", func(l *textdec.Lines) error {
		// xperf's CRLF, written again through a text-mode stream, reaches
		// some files as CR CR LF: one line end, not a blank line between
		// every two (which would cut every table after its first line).
		l.JoinCRCRLF()
		p := &parser{src: &source{l: l}, rep: &Report{Source: SourceXperf}}
		if err := p.run(); err != nil {
			return err
		}
		if n := l.Doubled(); n > 0 {
			p.rep.Notes = append(p.rep.Notes, fmt.Sprintf("%s end in CR CR LF, each read as one line end (line numbers count them so)", lineCount(n)))
		}
		p.rep.Lines = l.EditorCount()
		p.rep.Encoding = string(l.Encoding())
		n := 0
		for _, s := range p.rep.Sections {
			n += len(s.Modules)
			if s.Overall != nil {
				n++
			}
		}
		if n == 0 {
			return &ParseError{Line: l.EditorCount(), Msg: fmt.Sprintf("no DPC/ISR histogram in %s: %s, or a LatencyMon report (lines such as 'DPC count (execution time <250 µs): 21517')", lineCount(l.EditorCount()), expectBlock)}
		}
		rep = p.rep
		return nil
	})
	if err != nil {
		return nil, err
	}
	return rep, nil
}

func (p *parser) notef(line int, format string, a ...any) {
	if len(p.rep.Notes) >= maxNotes {
		p.dropped++
		return
	}
	n := fmt.Sprintf("line %d: ", line) + fmt.Sprintf(format, a...)
	p.kept += len(n) + 16
	p.rep.Notes = append(p.rep.Notes, n)
}

// retain counts n more bytes of report against maxRetained.
func (p *parser) retain(n, ln int) error {
	p.kept += n
	if p.kept > maxRetained {
		return &ParseError{Line: ln, Msg: fmt.Sprintf("the histograms and tables so far pass %d MiB, far more than any xperf report: %s", maxRetained>>20, expectBlock)}
	}
	return nil
}

// A line of the source: trimmed (no parser looks at the white space
// around a line). A run of n blank lines read ahead is one entry.
type srcLine struct {
	t  string
	ln int
	n  int
}

// source hands out the lines of a report in order, with the look-around
// the parser needs: the previous non-empty line, the next non-empty one,
// and one line given back.
type source struct {
	l    *textdec.Lines
	q    []srcLine // read ahead, in file order
	cur  srcLine   // the line next returned last
	prev string    // the nearest non-empty line before cur

	savedCur  srcLine
	savedPrev string
}

func (s *source) read() (srcLine, bool) {
	t, ok := s.l.Next()
	if !ok {
		return srcLine{}, false
	}
	return srcLine{t: strings.TrimSpace(t), ln: s.l.Count(), n: 1}, true
}

func (s *source) next() (srcLine, bool) {
	var e srcLine
	switch {
	case len(s.q) > 0 && s.q[0].n > 1:
		e = srcLine{t: "", ln: s.q[0].ln, n: 1}
		s.q[0].ln++
		s.q[0].n--
	case len(s.q) > 0:
		e = s.q[0]
		s.q = s.q[:copy(s.q, s.q[1:])]
	default:
		var ok bool
		if e, ok = s.read(); !ok {
			return e, false
		}
	}
	s.savedCur, s.savedPrev = s.cur, s.prev
	if s.cur.t != "" {
		s.prev = s.cur.t
	}
	s.cur = e
	return e, true
}

// unread gives back the line next just returned.
func (s *source) unread(e srcLine) {
	s.q = append(s.q, srcLine{})
	copy(s.q[1:], s.q)
	s.q[0] = e
	s.cur, s.prev = s.savedCur, s.savedPrev
}

// peekNonEmpty returns the next non-empty line after cur, leaving it to
// be read; blank lines on the way are counted, not kept.
func (s *source) peekNonEmpty() (string, bool) {
	for _, e := range s.q {
		if e.t != "" {
			return e.t, true
		}
	}
	for {
		e, ok := s.read()
		if !ok {
			return "", false
		}
		if k := len(s.q) - 1; e.t == "" && k >= 0 && s.q[k].t == "" {
			s.q[k].n++
			continue
		}
		s.q = append(s.q, e)
		if e.t != "" {
			return e.t, true
		}
	}
}

func (p *parser) run() error {
	for {
		e, ok := p.src.next()
		if !ok {
			break
		}
		t, ln := e.t, e.ln
		switch {
		case t == "":
			continue
		case isRule(t):
			continue
		}
		if m := find(reBucket(), 'e', t); m != nil {
			if err := p.bucket(m, ln); err != nil {
				return err
			}
			continue
		}
		if m := find(reModule(), 't', t); m != nil {
			if err := p.open(m[1], m[2], ln); err != nil {
				return err
			}
			continue
		}
		if m := find(reOverall(), 't', t); m != nil {
			if err := p.open(m[1], "", ln); err != nil {
				return err
			}
			continue
		}
		if m := find(reFooter(), 't', t); m != nil {
			if err := p.footer(m[1], ln); err != nil {
				return err
			}
			continue
		}
		if m := find(reCheck(), 'a', t); m != nil {
			if err := p.close(); err != nil {
				return err
			}
			s, err := p.section(ln)
			if err != nil {
				return err
			}
			s.Check = &Check{AllModule: atoi(m[1]), Total: atoi(m[2]), Verdict: strings.Clone(strings.TrimSpace(m[3])), Line: ln}
			if err := p.retain(64+len(s.Check.Verdict), ln); err != nil {
				return err
			}
			if s.Check.AllModule != s.Check.Total {
				p.notef(ln, "xperf reports the module histograms (%d) and the overall one (%d) as %s", s.Check.AllModule, s.Check.Total, s.Check.Verdict)
			}
			continue
		}
		if m := find(reSpan(), 'c', t); m != nil {
			if err := p.close(); err != nil {
				return err
			}
			s, err := p.section(ln)
			if err != nil {
				return err
			}
			if s.Span != nil || s.Overall != nil || len(s.Modules) > 0 {
				if s, err = p.newSection(s.Name, s.Heading, ln); err != nil {
					return err
				}
				p.notef(ln, "a second usage table in one %s section: taken as the start of another report", s.Name)
			}
			s.Span = &Span{FromUs: atoi(m[1]), ToUs: atoi(m[2])}
			continue
		}
		if hasCPUUsage(t) && !strings.HasPrefix(t, ",") {
			if err := p.close(); err != nil {
				return err
			}
			if err := p.usageTable(e); err != nil {
				return err
			}
			continue
		}
		if m := find(reIntHdr(), 'u', t); m != nil {
			if err := p.close(); err != nil {
				return err
			}
			if err := p.intervalTable(e, m); err != nil {
				return err
			}
			continue
		}
		if m := find(reDistHdr(), 'd', t); m != nil {
			if err := p.close(); err != nil {
				return err
			}
			if err := p.distribution(e, m); err != nil {
				return err
			}
			continue
		}
		low := strings.ToLower(t)
		if strings.HasPrefix(low, "elapsed") {
			return &ParseError{Line: ln, Msg: fmt.Sprintf("unreadable bucket line %q: %s", textdec.Clip(t), expectBucket)}
		}
		if strings.HasPrefix(low, "total") && (strings.Contains(low, "=") || strings.Contains(low, "module")) {
			return &ParseError{Line: ln, Msg: fmt.Sprintf("unreadable histogram header %q: expected 'Total = N for module NAME' or 'Total = N'", textdec.Clip(t))}
		}
		if behindMarker(t) {
			return &ParseError{Line: ln, Msg: fmt.Sprintf("a report line behind a quote or diff marker (%q): a quoted report or a diff is not what xperf wrote, and reading only its unmarked lines would give part of it; expected the report's own text", textdec.Clip(t))}
		}
		if name := p.heading(t); name != "" {
			if err := p.close(); err != nil {
				return err
			}
			if _, err := p.newSection(name, trimFrame(t), ln); err != nil {
				return err
			}
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
		p.pend = trimFrame(t)
	}
	if err := p.close(); err != nil {
		return err
	}
	p.cutShort()
	if p.dropped > 0 {
		p.rep.Notes = append(p.rep.Notes, fmt.Sprintf("%d more notes not shown", p.dropped))
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

// The patterns are tried on every line of a file that may hold millions;
// these cheap tests rule most lines out first, and rule out only lines
// the pattern could not match.

// find matches an anchored pattern whose first character is the ASCII
// letter first (which, unlike k and s, has no non-ASCII case fold).
func find(re *regexp.Regexp, first byte, t string) []string {
	if t == "" || t[0]|0x20 != first {
		return nil
	}
	return re.FindStringSubmatch(t)
}

// behindMarker reports whether t is a histogram line of a report behind
// the marks of a Markdown quote ("> "), a diff ("+", "-", "!") or a table
// ("|"). xperf starts none of these lines with such a mark, so the file
// is not its report; read on, the unmarked lines (a diff's context) would
// be read and the marked ones taken for labels: part of a report,
// silently.
func behindMarker(t string) bool {
	u := strings.TrimLeft(t, "+-!>| \t")
	if u == t || u == "" {
		return false
	}
	return find(reBucket(), 'e', u) != nil || find(reModule(), 't', u) != nil || find(reOverall(), 't', u) != nil ||
		find(reFooter(), 't', u) != nil || find(reCheck(), 'a', u) != nil
}

func isRule(t string) bool {
	return len(t) >= 3 && strings.IndexByte("-=_*#~", t[0]) >= 0 && reRule().MatchString(t)
}

func hasCPUUsage(t string) bool {
	for i := 0; i+3 <= len(t); i++ {
		if t[i]|0x20 == 'c' && t[i+1]|0x20 == 'p' && t[i+2]|0x20 == 'u' {
			return reCPUUsage().MatchString(t)
		}
	}
	return false
}

// trimFrame strips the rules and marks people frame headings with.
func trimFrame(t string) string {
	return strings.TrimFunc(t, isFrame)
}

func isFrame(r rune) bool {
	switch r {
	case '-', '=', '_', '*', '#', '~', ' ', ':':
		return true
	}
	return false
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
func (p *parser) heading(t string) string {
	core := strings.ToLower(trimFrame(t))
	if k, ok := knownHeader[core]; ok {
		return k
	}
	framed := core != strings.ToLower(strings.TrimSpace(strings.TrimSuffix(t, ":"))) // "== DPC =="
	if isRule(p.src.prev) {
		framed = true
	}
	if !framed {
		if next, ok := p.src.peekNonEmpty(); ok && isRule(next) {
			framed = true
		}
	}
	if !framed || strings.ContainsAny(core, "0123456789,") {
		return ""
	}
	var dpc, isr bool
	for _, w := range reWord().FindAllString(core, -1) {
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

func (p *parser) newSection(name, heading string, ln int) (*Section, error) {
	heading = strings.Clone(heading)
	if err := p.retain(256+len(heading), ln); err != nil {
		return nil, err
	}
	p.rep.Sections = append(p.rep.Sections, Section{Name: name, Heading: heading, Line: ln, Modules: []Histogram{}})
	p.sec = &p.rep.Sections[len(p.rep.Sections)-1]
	return p.sec, nil
}

// section returns the current section, opening an implicit DPC section
// when a block comes before any heading (xperf prints DPCs first).
func (p *parser) section(ln int) (*Section, error) {
	if p.sec == nil {
		p.notef(ln, "no section heading before this line: taken as DPC (xperf prints the DPC section first)")
		return p.newSection(DPC, "", ln)
	}
	return p.sec, nil
}

func (p *parser) open(total, module string, ln int) error {
	if err := p.close(); err != nil {
		return err
	}
	s, err := p.section(ln)
	if err != nil {
		return err
	}
	if p.pend != "" {
		p.label, p.pend = strings.Clone(p.pend), ""
		p.kept += len(p.label)
	}
	mod := ""
	if module != "" {
		f := strings.Fields(module)
		mod = strings.Clone(strings.Trim(f[0], `"'`))
		if len(f) > 1 {
			p.notef(ln, "text after the module name ignored: %q", textdec.Clip(strings.Join(f[1:], " ")))
		}
	}
	if mod == "" && s.Overall != nil {
		if s, err = p.newSection(s.Name, s.Heading, ln); err != nil {
			return err
		}
		p.notef(ln, "a second overall histogram in one %s section: taken as the start of another report", s.Name)
	}
	if err := p.retain(160+len(mod), ln); err != nil {
		return err
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
	if err := p.retain(80, ln); err != nil {
		return err
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

// usageTable reads the rows that follow the "CPU n Usage" header hdr: the
// legend and the rows up to the next blank line, which is left unread.
// cutShort notes what xperf always writes after what the report holds
// and the report lacks: a file cut short (a paste that stopped, a
// download cut off) still parses, and must not pass for a whole report.
// xperf follows a section's usage table with its histograms and the
// "All Module = N, Total = N" line; a header line says how many interval
// rows follow; the distribution ends with its "Total:" row.
func (p *parser) cutShort() {
	last := p.src.l.EditorCount()
	intervals := false
	if n := len(p.rep.Sections); n > 0 {
		if s := p.rep.Sections[n-1]; s.Overall == nil && len(s.Modules) == 0 && len(s.Usage) == 0 && s.Intervals == nil && s.Span == nil {
			p.notef(last, "the %s section (%q, line %d) holds nothing: the report may be cut short", s.Name, s.Heading, s.Line)
		}
	}
	for _, s := range p.rep.Sections {
		intervals = intervals || s.Intervals != nil
		switch {
		case s.Span == nil && len(s.Usage) == 0:
			// not xperf's whole layout (a hand-made excerpt): nothing to expect
		case s.Overall == nil && len(s.Modules) == 0:
			p.notef(last, "the %s section has xperf's usage table but no histogram after it: the report may be cut short", s.Name)
		case s.Check == nil:
			p.notef(last, "the %s section has no 'All Module = N, Total = N' line, which xperf writes after the histograms: the report may be cut short", s.Name)
		case s.Intervals == nil:
			p.notef(last, "the %s section ends at its 'All Module' line, without the interval table xperf writes after it: the report may be cut short", s.Name)
		}
	}
	if intervals && p.rep.Distribution == nil {
		p.notef(last, "no distribution of intervals, the table xperf writes last: the report may be cut short")
	}
}

func (p *parser) usageTable(hdr srcLine) error {
	s, err := p.section(hdr.ln)
	if err != nil {
		return err
	}
	cpus := cpuList(reCPUUsage(), hdr.t)
	if err := p.retain(8*len(cpus), hdr.ln); err != nil {
		return err
	}
	if e, ok := p.src.next(); ok && !strings.Contains(strings.ToLower(e.t), "usec") {
		p.src.unread(e) // no "usec %, ..., Module" legend
	}
	rows := 0
	for {
		e, ok := p.src.next()
		if !ok {
			break
		}
		t := e.t
		k := strings.LastIndex(t, ",")
		if t == "" || isRule(t) || k < 0 {
			p.src.unread(e)
			break
		}
		mod := strings.Trim(strings.TrimSpace(t[k+1:]), `"'`)
		usec, pct := pairs(t[:k])
		if len(usec) != len(cpus) || mod == "" {
			p.notef(e.ln, "usage row with %d usec/%% pairs under a header of %d CPUs skipped", len(usec), len(cpus))
			continue
		}
		mod = strings.Clone(mod)
		if err := p.retain(128+len(mod)+16*len(usec), e.ln); err != nil {
			return err
		}
		s.Usage = append(s.Usage, ModuleUsage{Module: mod, Line: e.ln, Usec: usec, Percent: pct, CPUs: cpus})
		rows++
	}
	if rows == 0 {
		p.notef(hdr.ln, "a usage table header with no module rows under it")
	}
	return nil
}

func (p *parser) intervalTable(hdr srcLine, m []string) error {
	s, err := p.section(hdr.ln)
	if err != nil {
		return err
	}
	iv, _ := strconv.ParseFloat(strings.Replace(m[3], ",", ".", 1), 64)
	tab := &IntervalTable{FromMs: atoi(m[1]), ToMs: atoi(m[2]), IntervalSec: iv, Intervals: int(atoi(m[4])), Line: hdr.ln}
	for {
		e, ok := p.src.next()
		if !ok {
			break
		}
		if e.t == "" {
			continue
		}
		if hasCPUUsage(e.t) {
			tab.CPUs = cpuList(reCPUUsage(), e.t)
		} else {
			p.src.unread(e)
		}
		break
	}
	if e, ok := p.src.next(); ok && !strings.Contains(strings.ToLower(e.t), "usec") {
		p.src.unread(e) // no "Start (ms) End (ms) , (usec) % , ..." legend
	}
	if err := p.retain(128+8*len(tab.CPUs), hdr.ln); err != nil {
		return err
	}
	for {
		e, ok := p.src.next()
		if !ok {
			break
		}
		r := reIntRow().FindStringSubmatch(e.t)
		if r == nil {
			p.src.unread(e)
			break
		}
		usec, pct := pairs(r[3])
		if tab.CPUs != nil && len(usec) != len(tab.CPUs) {
			p.notef(e.ln, "interval row with %d usec/%% pairs under a header of %d CPUs skipped", len(usec), len(tab.CPUs))
			continue
		}
		if err := p.retain(96+16*len(usec), e.ln); err != nil {
			return err
		}
		tab.Rows = append(tab.Rows, IntervalRow{StartMs: atoi(r[1]), EndMs: atoi(r[2]), Usec: usec, Percent: pct, Line: e.ln})
	}
	if tab.Intervals > 0 && len(tab.Rows) != tab.Intervals {
		p.notef(hdr.ln, "%s under a header of Intervals=%d: the table is cut short or altered", rowCount(len(tab.Rows), "interval row"), tab.Intervals)
	}
	if s.Intervals == nil {
		s.Intervals = tab
	}
	return nil
}

func (p *parser) distribution(hdr srcLine, m []string) error {
	d := &Distribution{IntervalMs: atoi(m[1]), Line: hdr.ln}
	for {
		e, ok := p.src.next()
		if !ok {
			break
		}
		if e.t != "" {
			p.src.unread(e)
			break
		}
	}
	if e, ok := p.src.next(); ok {
		if reCPU().MatchString(e.t) {
			d.CPUs = cpuList(reCPU(), e.t)
		} else {
			p.src.unread(e)
		}
	}
	if e, ok := p.src.next(); ok {
		if strings.Contains(strings.ToLower(e.t), "usage %") {
			f := strings.Split(e.t, ",")
			if len(f) > 1 {
				for _, c := range strings.Fields(f[1]) {
					d.Columns = append(d.Columns, strings.Clone(c))
				}
			}
		} else {
			p.src.unread(e)
		}
	}
	if err := p.retain(128+8*len(d.CPUs)+16*len(d.Columns), hdr.ln); err != nil {
		return err
	}
	for {
		e, ok := p.src.next()
		if !ok {
			break
		}
		t := e.t
		if t == "" || strings.HasPrefix(t, "---") || strings.HasPrefix(strings.ToLower(t), "total") {
			p.src.unread(e)
			break
		}
		f := strings.Split(t, ",")
		row := DistRow{Range: strings.Clone(strings.Join(strings.Fields(f[0]), " ")), Line: e.ln}
		ok = len(f) > 1
		for _, c := range f[1:] {
			v, err := strconv.ParseInt(strings.TrimSpace(c), 10, 64)
			if err != nil {
				ok = false
				break
			}
			row.Counts = append(row.Counts, v)
		}
		if !ok {
			p.src.unread(e)
			break
		}
		if err := p.retain(64+len(row.Range)+8*len(row.Counts), e.ln); err != nil {
			return err
		}
		d.Rows = append(d.Rows, row)
	}
	if len(d.Rows) == 0 {
		p.notef(hdr.ln, "distribution of %d ms intervals: no rows under its header", d.IntervalMs)
	}
	total := false
	for { // the "---" rule and the "Total:" row belong to the table
		e, ok := p.src.next()
		if !ok {
			break
		}
		t := strings.ToLower(e.t)
		if !strings.HasPrefix(t, "---") && !strings.HasPrefix(t, "total:") {
			p.src.unread(e)
			break
		}
		if strings.HasPrefix(t, "total:") {
			p.distTotal(d, e)
			total = true
		}
	}
	if !total && len(d.Rows) > 0 {
		p.notef(hdr.ln, "distribution of %d ms intervals: no Total: row, which xperf writes last: the report may be cut short", d.IntervalMs)
	}
	if p.rep.Distribution == nil {
		p.rep.Distribution = d
	}
	return nil
}

// distTotal checks the distribution's "Total:" row, the count of
// intervals in each column, against the sum of the column's rows: xperf
// prints the same number for every column (the intervals of the trace),
// so a column that disagrees means a row was lost or altered.
func (p *parser) distTotal(d *Distribution, e srcLine) {
	f := strings.Split(e.t, ",")[1:]
	for col, c := range f {
		want, err := strconv.ParseInt(strings.TrimSpace(c), 10, 64)
		if err != nil {
			p.notef(e.ln, "distribution of %d ms intervals: the Total: row's column %d (%q) is not a number; not checked", d.IntervalMs, col+1, textdec.Clip(strings.TrimSpace(c)))
			return
		}
		var sum int64
		for _, r := range d.Rows {
			if col < len(r.Counts) {
				sum += r.Counts[col]
			}
		}
		if sum != want {
			p.notef(e.ln, "distribution of %d ms intervals: column %d sums to %d, the Total: row says %d", d.IntervalMs, col+1, sum, want)
			return
		}
	}
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
	for _, cell := range rePair().FindAllStringSubmatch(s, -1) {
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

// lineCount is n lines in words.
// rowCount is "1 interval row" or "3 interval rows".
func rowCount(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

func lineCount(n int) string {
	if n == 1 {
		return "1 line"
	}
	return fmt.Sprintf("%d lines", n)
}
