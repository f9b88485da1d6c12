package capture

import (
	"fmt"
	"net/netip"
	"strconv"
	"strings"
)

// FilterGrammar is the filter language, as the error messages and the
// documentation state it: the common forms of tcpdump's (pcap-filter(7)),
// matched against each packet's addresses, ports and protocol.
const FilterGrammar = `expr: term [or||| term]...; term: factor [[and|&&] factor]...; ` +
	`factor: not|! factor | ( expr ) | primitive; primitive: [ip|ip6|tcp|udp|sctp] [src|dst|src or dst|src and dst] ` +
	`host ADDR | net ADDR/BITS | port N | portrange N-M, or a protocol (ip, ip6, tcp, udp, icmp, icmp6, sctp, igmp, gre, esp, proto N); ` +
	`a bare value repeats the qualifiers before it (host 10.0.0.1 or 10.0.0.2)`

// Filter selects packets by a tcpdump-style expression over addresses,
// ports and protocol (see FilterGrammar). A nil *Filter matches every
// packet.
type Filter struct {
	root node
	text string
}

// String is the expression as given.
func (f *Filter) String() string { return f.text }

// Match reports whether a flow direction passes the filter.
func (f *Filter) Match(k FlowKey) bool {
	if f == nil || f.root == nil {
		return true
	}
	k.Src, k.Dst = k.Src.Unmap(), k.Dst.Unmap()
	return f.root.match(k)
}

type node interface{ match(FlowKey) bool }

type (
	orNode  struct{ a, b node }
	andNode struct{ a, b node }
	notNode struct{ a node }
	// addrNode: host or net; dir picks the address(es) compared.
	addrNode struct {
		dir string // "", "src", "dst", "and"
		pfx netip.Prefix
	}
	// portNode: port or portrange, of TCP, UDP or SCTP (or of proto when
	// a protocol qualified it).
	portNode struct {
		dir    string
		lo, hi uint16
	}
	protoNode struct{ p uint8 }
	// familyNode: ip (IPv4) or ip6.
	familyNode struct{ v6 bool }
)

func (n orNode) match(k FlowKey) bool  { return n.a.match(k) || n.b.match(k) }
func (n andNode) match(k FlowKey) bool { return n.a.match(k) && n.b.match(k) }
func (n notNode) match(k FlowKey) bool { return !n.a.match(k) }
func (n protoNode) match(k FlowKey) bool {
	return k.Proto == n.p
}
func (n familyNode) match(k FlowKey) bool { return k.Src.Is6() == n.v6 && k.Src.IsValid() }

func pickDir(dir string, src, dst bool) bool {
	switch dir {
	case "src":
		return src
	case "dst":
		return dst
	case "and":
		return src && dst
	}
	return src || dst
}

func (n addrNode) match(k FlowKey) bool {
	return pickDir(n.dir, n.pfx.Contains(k.Src), n.pfx.Contains(k.Dst))
}

func (n portNode) match(k FlowKey) bool {
	if k.Proto != 6 && k.Proto != 17 && k.Proto != 132 {
		return false // as tcpdump: port means TCP, UDP or SCTP
	}
	in := func(p uint16) bool { return p >= n.lo && p <= n.hi }
	return pickDir(n.dir, in(k.SrcPort), in(k.DstPort))
}

// protoNames are the protocol words of the grammar.
var protoNames = map[string]uint8{"tcp": 6, "udp": 17, "icmp": 1, "icmp6": 58, "icmpv6": 58, "sctp": 132, "igmp": 2, "gre": 47, "esp": 50, "pgm": 113}

// ParseFilter reads a filter expression in the grammar of FilterGrammar.
// An empty expression matches everything.
func ParseFilter(s string) (*Filter, error) {
	toks, err := lexFilter(s)
	if err != nil {
		return nil, err
	}
	if len(toks) == 0 {
		return &Filter{text: s}, nil
	}
	p := &filterParser{toks: toks}
	n, err := p.expr()
	if err != nil {
		return nil, err
	}
	if p.i < len(p.toks) {
		return nil, p.bad("unexpected %q", p.toks[p.i])
	}
	return &Filter{root: n, text: s}, nil
}

// lexFilter splits on spaces and commas (the older latlab form); ( ) ! are
// tokens of their own, && and || words.
func lexFilter(s string) ([]string, error) {
	if len(s) > 4096 {
		return nil, fmt.Errorf("filter of %d bytes: more than 4096", len(s))
	}
	var out []string
	cur := strings.Builder{}
	flush := func() {
		if cur.Len() > 0 {
			out = append(out, cur.String())
			cur.Reset()
		}
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == ',':
			flush()
		case c == '(' || c == ')':
			flush()
			out = append(out, string(c))
		case c == '!' && (i+1 >= len(s) || s[i+1] != '='):
			flush()
			out = append(out, "!")
		case (c == '&' || c == '|') && i+1 < len(s) && s[i+1] == c:
			flush()
			out = append(out, s[i:i+2])
			i++
		default:
			cur.WriteByte(c)
		}
	}
	flush()
	return out, nil
}

type filterParser struct {
	toks []string
	i    int
	// last are the qualifiers of the last primitive, which a bare value
	// repeats (host a or b).
	last *qualifiers
	// depth bounds the nesting of parentheses and nots.
	depth int
}

type qualifiers struct {
	proto string // ip, ip6, tcp, udp, sctp or ""
	dir   string
	typ   string // host, net, port, portrange
}

func (p *filterParser) bad(format string, a ...any) error {
	return fmt.Errorf("invalid filter: %s; accepted: %s", fmt.Sprintf(format, a...), FilterGrammar)
}

func (p *filterParser) peek() string {
	if p.i < len(p.toks) {
		return strings.ToLower(p.toks[p.i])
	}
	return ""
}

func (p *filterParser) expr() (node, error) {
	a, err := p.term()
	if err != nil {
		return nil, err
	}
	for w := p.peek(); w == "or" || w == "||"; w = p.peek() {
		p.i++
		b, err := p.term()
		if err != nil {
			return nil, err
		}
		a = orNode{a, b}
	}
	return a, nil
}

func (p *filterParser) term() (node, error) {
	a, err := p.factor()
	if err != nil {
		return nil, err
	}
	for {
		w := p.peek()
		switch w {
		case "and", "&&":
			p.i++
		case "", "or", "||", ")":
			return a, nil
		}
		// A primitive that follows another without "and" is joined by
		// "and" (latlab's earlier form: host 10.0.0.1 port 443 tcp).
		b, err := p.factor()
		if err != nil {
			return nil, err
		}
		a = andNode{a, b}
	}
}

func (p *filterParser) factor() (node, error) {
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > 100 {
		return nil, p.bad("nested more than 100 deep")
	}
	switch w := p.peek(); w {
	case "":
		return nil, p.bad("the expression ends where a term was expected")
	case "not", "!":
		p.i++
		a, err := p.factor()
		if err != nil {
			return nil, err
		}
		return notNode{a}, nil
	case "(":
		p.i++
		a, err := p.expr()
		if err != nil {
			return nil, err
		}
		if p.peek() != ")" {
			return nil, p.bad("missing )")
		}
		p.i++
		return a, nil
	case ")", "and", "or", "&&", "||":
		return nil, p.bad("%q where a term was expected", w)
	}
	return p.primitive()
}

func isDir(w string) bool { return w == "src" || w == "dst" }

func isType(w string) bool { return w == "host" || w == "net" || w == "port" || w == "portrange" }

func (p *filterParser) primitive() (node, error) {
	var q qualifiers
	start := p.i
	w := p.peek()
	// The older form's sport and dport.
	if w == "sport" || w == "dport" {
		p.i++
		q = qualifiers{dir: "src", typ: "port"}
		if w == "dport" {
			q.dir = "dst"
		}
		return p.value(q)
	}
	if w == "ip" || w == "ip6" || w == "tcp" || w == "udp" || w == "sctp" {
		q.proto = w
		p.i++
		w = p.peek()
		if w == "proto" && (q.proto == "ip" || q.proto == "ip6") {
			p.i++
			n, err := p.protoNumber()
			if err != nil {
				return nil, err
			}
			return andNode{familyNode{q.proto == "ip6"}, n}, nil
		}
		if !isDir(w) && !isType(w) {
			// The protocol alone.
			p.last = nil
			return protoAlone(q.proto), nil
		}
	}
	if isDir(w) {
		q.dir = w
		p.i++
		// src or dst / src and dst, when a type follows.
		if c := p.peek(); (c == "or" || c == "and") && p.i+2 < len(p.toks) && isDir(strings.ToLower(p.toks[p.i+1])) && isType(strings.ToLower(p.toks[p.i+2])) {
			if c == "and" {
				q.dir = "and"
			} else {
				q.dir = ""
			}
			p.i += 2
		}
		w = p.peek()
	}
	if isType(w) {
		q.typ = w
		p.i++
	} else if q.dir != "" {
		q.typ = "host" // src ADDR is src host ADDR
	}
	if p.i == start {
		switch {
		case w == "proto":
			p.i++
			return p.protoNumber()
		case protoNames[w] != 0:
			p.i++
			p.last = nil
			return protoNode{protoNames[w]}, nil
		case p.last != nil:
			// A bare value: the qualifiers of the primitive before.
			return p.value(*p.last)
		}
		return nil, p.bad("unknown term %q", p.toks[p.i])
	}
	if q.typ == "" {
		return nil, p.bad("%q needs host, net, port or portrange after it", strings.Join(p.toks[start:p.i], " "))
	}
	return p.value(q)
}

func protoAlone(name string) node {
	switch name {
	case "ip":
		return familyNode{false}
	case "ip6":
		return familyNode{true}
	}
	return protoNode{protoNames[name]}
}

func (p *filterParser) protoNumber() (node, error) {
	if p.i >= len(p.toks) {
		return nil, p.bad("proto needs a number")
	}
	a := p.toks[p.i]
	p.i++
	if v, ok := protoNames[strings.ToLower(strings.TrimPrefix(a, `\`))]; ok {
		return protoNode{v}, nil
	}
	v, err := strconv.ParseUint(a, 10, 8)
	if err != nil {
		return nil, p.bad("invalid protocol number %q", a)
	}
	return protoNode{uint8(v)}, nil
}

// value reads the ID of a primitive with qualifiers q.
func (p *filterParser) value(q qualifiers) (node, error) {
	if p.i >= len(p.toks) {
		return nil, p.bad("%s needs a value", q.typ)
	}
	a := p.toks[p.i]
	switch strings.ToLower(a) {
	case "and", "or", "not", "(", ")", "&&", "||", "!":
		return nil, p.bad("%s needs a value, not %q", q.typ, a)
	}
	p.i++
	var n node
	switch q.typ {
	case "host", "net":
		pfx, err := netip.ParsePrefix(a)
		if err != nil {
			ad, err2 := netip.ParseAddr(a)
			if err2 != nil {
				return nil, p.bad("invalid address %q (host names are not looked up)", a)
			}
			pfx = netip.PrefixFrom(ad.Unmap(), ad.Unmap().BitLen())
		} else if q.typ == "host" {
			return nil, p.bad("host %q: a network goes with net", a)
		}
		if pfx.Addr().Is4In6() {
			pfx = netip.PrefixFrom(pfx.Addr().Unmap(), pfx.Bits()-96)
		}
		if q.proto == "ip6" && pfx.Addr().Is4() || q.proto == "ip" && pfx.Addr().Is6() {
			return nil, p.bad("%s %s %s: the address is of the other family", q.proto, q.typ, a)
		}
		n = addrNode{dir: q.dir, pfx: pfx.Masked()}
	case "port", "portrange":
		lo, hi, ok := a, a, true
		if q.typ == "portrange" {
			lo, hi, ok = strings.Cut(a, "-")
		}
		l, err1 := strconv.ParseUint(lo, 10, 16)
		h, err2 := strconv.ParseUint(hi, 10, 16)
		if !ok || err1 != nil || err2 != nil || l > h {
			if q.typ == "portrange" {
				return nil, p.bad("invalid port range %q: want N-M", a)
			}
			return nil, p.bad("invalid port %q (service names are not looked up)", a)
		}
		n = portNode{dir: q.dir, lo: uint16(l), hi: uint16(h)}
		switch q.proto {
		case "tcp", "udp", "sctp":
			n = andNode{protoNode{protoNames[q.proto]}, n}
		case "ip", "ip6":
			n = andNode{familyNode{q.proto == "ip6"}, n}
		}
	}
	if q.proto == "ip" || q.proto == "ip6" {
		if _, ok := n.(addrNode); ok {
			n = andNode{familyNode{q.proto == "ip6"}, n}
		}
	}
	if (q.proto == "tcp" || q.proto == "udp" || q.proto == "sctp") && (q.typ == "host" || q.typ == "net") {
		n = andNode{protoNode{protoNames[q.proto]}, n}
	}
	qq := q
	p.last = &qq
	return n, nil
}
