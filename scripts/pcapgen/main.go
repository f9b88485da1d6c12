// Command pcapgen writes a synthetic capture for benchmarking `latlab pcap
// tcp`: many concurrent TCP connections (Ethernet/IPv4, timestamps option,
// MSS-sized segments, an ACK every second segment) with seeded loss (SACK
// blocks, duplicate ACKs, fast retransmissions), reordering and spurious
// retransmissions answered by D-SACKs, as seen at the sender.
//
//	go run ./scripts/pcapgen -o /tmp/bench.pcap -size 1100MB
//	go run ./scripts/pcapgen -o /tmp/many.pcap -size 100MB -active 200 -conn-bytes 3000 -gap 200us
package main

import (
	"bufio"
	"encoding/binary"
	"flag"
	"fmt"
	"math/rand"
	"os"
	"strconv"
	"strings"
	"time"
)

const mss = 1448

type conn struct {
	cli, srv     [4]byte
	cport, sport uint16
	cisn, sisn   uint32
	sent         uint32 // data bytes sent (relative)
	total        uint32
	state        int
	ts           uint32
	reorderHeld  *uint32
}

type writer struct {
	w   *bufio.Writer
	t   int64 // ns
	gap int64 // ns between packets, plus 1 ns per payload byte
	buf []byte
	n   int64
	pk  int64
}

func (w *writer) packet(src, dst [4]byte, sport, dport uint16, seq, ack uint32, flags byte, win uint16, opts []byte, payload int) {
	w.t += w.gap + int64(payload) // plus serialization
	optLen := len(opts)
	ipLen := 20 + 20 + optLen + payload
	frameLen := 14 + ipLen
	b := w.buf[:0]
	// pcap record header (µs)
	b = binary.LittleEndian.AppendUint32(b, uint32(w.t/1e9))
	b = binary.LittleEndian.AppendUint32(b, uint32(w.t%1e9/1e3))
	b = binary.LittleEndian.AppendUint32(b, uint32(frameLen))
	b = binary.LittleEndian.AppendUint32(b, uint32(frameLen))
	b = append(b, 2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1, 8, 0)
	b = append(b, 0x45, 0)
	b = binary.BigEndian.AppendUint16(b, uint16(ipLen))
	b = binary.BigEndian.AppendUint16(b, uint16(w.pk)) // IP ID: every packet differs
	b = append(b, 0x40, 0, 64, 6, 0, 0)
	b = append(b, src[:]...)
	b = append(b, dst[:]...)
	b = binary.BigEndian.AppendUint16(b, sport)
	b = binary.BigEndian.AppendUint16(b, dport)
	b = binary.BigEndian.AppendUint32(b, seq)
	b = binary.BigEndian.AppendUint32(b, ack)
	b = append(b, byte((20+optLen)/4)<<4, flags)
	b = binary.BigEndian.AppendUint16(b, win)
	b = append(b, 0, 0, 0, 0)
	b = append(b, opts...)
	b = append(b, make([]byte, payload)...)
	w.buf = b
	w.w.Write(b)
	w.n += int64(len(b))
	w.pk++
}

func tsOpt(val, ecr uint32) []byte {
	o := []byte{1, 1, 8, 10}
	o = binary.BigEndian.AppendUint32(o, val)
	return binary.BigEndian.AppendUint32(o, ecr)
}

func sackOpt(val, ecr uint32, blocks ...[2]uint32) []byte {
	o := tsOpt(val, ecr)
	o = append(o, 1, 1, 5, byte(2+8*len(blocks)))
	for _, b := range blocks {
		o = binary.BigEndian.AppendUint32(o, b[0])
		o = binary.BigEndian.AppendUint32(o, b[1])
	}
	return o
}

const (
	fSYN = 0x02
	fACK = 0x10
	fPSH = 0x08
	fFIN = 0x01
)

// step emits the next few packets of c; false when it is finished.
func (c *conn) step(w *writer, r *rand.Rand, loss, reorder, spurious float64) bool {
	c.ts++
	cs, ss := c.cisn+1, c.sisn+1
	switch c.state {
	case 0:
		syn := []byte{2, 4, 0x05, 0xb4, 4, 2, 8, 10, 0, 0, 0, 1, 0, 0, 0, 0, 1, 3, 3, 7}
		w.packet(c.cli, c.srv, c.cport, c.sport, c.cisn, 0, fSYN, 64240, syn, 0)
		w.packet(c.srv, c.cli, c.sport, c.cport, c.sisn, cs, fSYN|fACK, 65160, syn, 0)
		w.packet(c.cli, c.srv, c.cport, c.sport, cs, ss, fACK, 502, tsOpt(c.ts, c.ts), 0)
		c.state = 1
		return true
	case 1:
		if c.sent >= c.total {
			w.packet(c.cli, c.srv, c.cport, c.sport, cs+c.sent, ss, fFIN|fACK, 502, tsOpt(c.ts, c.ts), 0)
			w.packet(c.srv, c.cli, c.sport, c.cport, ss, cs+c.sent+1, fFIN|fACK, 2000, tsOpt(c.ts, c.ts), 0)
			w.packet(c.cli, c.srv, c.cport, c.sport, cs+c.sent+1, ss+1, fACK, 502, tsOpt(c.ts, c.ts), 0)
			return false
		}
		// two segments, then the receiver's ACK
		var lost []uint32
		for i := 0; i < 2 && c.sent < c.total; i++ {
			seq := c.sent
			if c.reorderHeld == nil && r.Float64() < reorder {
				h := seq
				c.reorderHeld = &h // sent after the next one
				c.sent += mss
				continue
			}
			w.packet(c.cli, c.srv, c.cport, c.sport, cs+seq, ss, fACK|fPSH, 502, tsOpt(c.ts, c.ts), mss)
			c.sent += mss
			if c.reorderHeld != nil && *c.reorderHeld != seq {
				w.packet(c.cli, c.srv, c.cport, c.sport, cs+*c.reorderHeld, ss, fACK|fPSH, 502, tsOpt(c.ts, c.ts), mss)
				c.reorderHeld = nil
			}
			if r.Float64() < loss {
				lost = append(lost, seq)
			}
		}
		if len(lost) > 0 {
			// receiver: three duplicate ACKs with SACK, then the fast
			// retransmission, then the cumulative ACK
			l := lost[0]
			for i := 0; i < 3; i++ {
				w.packet(c.srv, c.cli, c.sport, c.cport, ss, cs+l, fACK, 2000, sackOpt(c.ts, c.ts, [2]uint32{cs + l + mss, cs + c.sent}), 0)
			}
			w.packet(c.cli, c.srv, c.cport, c.sport, cs+l, ss, fACK|fPSH, 502, tsOpt(c.ts, c.ts), mss)
			w.packet(c.srv, c.cli, c.sport, c.cport, ss, cs+c.sent, fACK, 2000, tsOpt(c.ts, c.ts), 0)
			return true
		}
		if c.reorderHeld == nil {
			w.packet(c.srv, c.cli, c.sport, c.cport, ss, cs+c.sent, fACK, 2000, tsOpt(c.ts, c.ts), 0)
		}
		if r.Float64() < spurious && c.sent >= 2*mss {
			// a needless retransmission, reported by a D-SACK
			seq := c.sent - mss
			w.packet(c.cli, c.srv, c.cport, c.sport, cs+seq, ss, fACK|fPSH, 502, tsOpt(c.ts, c.ts), mss)
			w.packet(c.srv, c.cli, c.sport, c.cport, ss, cs+c.sent, fACK, 2000, sackOpt(c.ts, c.ts, [2]uint32{cs + seq, cs + seq + mss}), 0)
		}
	}
	return true
}

func parseSize(s string) (int64, error) {
	u := strings.ToUpper(s)
	mult := int64(1)
	for _, x := range []struct {
		suf string
		m   int64
	}{{"GB", 1e9}, {"MB", 1e6}, {"KB", 1e3}} {
		if strings.HasSuffix(u, x.suf) {
			mult, u = x.m, strings.TrimSuffix(u, x.suf)
			break
		}
	}
	v, err := strconv.ParseFloat(u, 64)
	return int64(v * float64(mult)), err
}

func main() {
	out := flag.String("o", "", "output pcap file")
	sizeS := flag.String("size", "1100MB", "approximate file size")
	active := flag.Int("active", 1000, "connections open at once")
	perConn := flag.Int("conn-bytes", 1<<20, "data bytes per connection (varies +-50%)")
	loss := flag.Float64("loss", 0.005, "probability a segment is lost at the receiver")
	reorder := flag.Float64("reorder", 0.003, "probability a segment is sent late")
	spurious := flag.Float64("spurious", 0.002, "probability of a needless retransmission")
	seed := flag.Int64("seed", 1, "random seed")
	gap := flag.Duration("gap", 2*time.Microsecond, "time between packets (plus 1 ns per payload byte); it sets the RTT and the capture's duration")
	flag.Parse()
	size, err := parseSize(*sizeS)
	if *out == "" || err != nil {
		fmt.Fprintln(os.Stderr, "usage: pcapgen -o FILE [-size 1100MB] [-active N] [-conn-bytes N] [-gap 2us] [-seed S]")
		os.Exit(2)
	}
	f, err := os.Create(*out)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	bw := bufio.NewWriterSize(f, 4<<20)
	hdr := []byte{0xd4, 0xc3, 0xb2, 0xa1, 2, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0, 1, 0, 0, 0}
	bw.Write(hdr)
	w := &writer{w: bw, t: 1_700_000_000 * 1e9, gap: int64(*gap), buf: make([]byte, 0, 2048)}
	r := rand.New(rand.NewSource(*seed))
	newConn := func(i int) *conn {
		c := &conn{cport: uint16(10000 + i%50000), sport: 443, cisn: r.Uint32(), sisn: r.Uint32(),
			total: uint32(*perConn/2 + r.Intn(*perConn))}
		c.cli = [4]byte{10, byte(i >> 16), byte(i >> 8), byte(i)}
		c.srv = [4]byte{192, 168, byte(i % 7), 1}
		c.total -= c.total % mss
		return c
	}
	conns := make([]*conn, *active)
	n := 0
	for i := range conns {
		conns[i] = newConn(n)
		n++
	}
	for w.n < size {
		i := r.Intn(len(conns))
		if !conns[i].step(w, r, *loss, *reorder, *spurious) {
			conns[i] = newConn(n)
			n++
		}
	}
	if err := bw.Flush(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	f.Close()
	fmt.Printf("%s: %d bytes, %d packets, %d connections\n", *out, w.n+24, w.pk, n)
}
