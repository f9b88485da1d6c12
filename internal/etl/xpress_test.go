package etl

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"math/rand"
	"strings"
	"testing"
)

// The example of [MS-XCA] section 3.2: "abcdefghijklmnopqrstuvwxyz" as
// literals, with 4- and 5-bit codes and the end-of-file symbol.
func TestXpressSpecExample(t *testing.T) {
	in := make([]byte, 0, 276)
	in = append(in, make([]byte, 48)...)
	in = append(in, 0x50, 0x55, 0x55, 0x55, 0x55, 0x55, 0x55, 0x55, 0x55, 0x55, 0x55, 0x45, 0x44, 0x04)
	in = append(in, make([]byte, 128-48-14)...)
	in = append(in, 0x04)
	in = append(in, make([]byte, 256-129)...)
	tail, _ := hex.DecodeString("d8523ed794115be9195ff9d67cdf8d0400000000")
	in = append(in, tail...)
	got, err := xpressDecompress(in, 26)
	if err != nil || string(got) != "abcdefghijklmnopqrstuvwxyz" {
		t.Fatalf("%q, %v", got, err)
	}
}

// xpressCompress is the tests' encoder: greedy matches found by a hash of
// three bytes, every symbol coded in 9 bits (512 codes of 9 bits fill the
// code space exactly). It writes the bit stream in the order the decoder
// reads it: a 16-bit word is placed where the decoder's input position
// is when it needs the word, and the extra length bytes of a long match
// where it reads them.
func xpressCompress(data []byte) []byte {
	var out []byte
	head := map[uint32]int{}
	for p := 0; p < len(data) || len(out) == 0; {
		out, p = xpressBlockEncode(out, data, p, head)
	}
	return out
}

// xpressBlockEncode encodes one block from data[start:], which ends when
// it has produced 65536 bytes (a last match may run past), and returns
// where the next block starts.
func xpressBlockEncode(out, data []byte, start int, head map[uint32]int) ([]byte, int) {
	end := min(start+xpressBlock, len(data))
	for i := 0; i < xpressTableLen; i++ {
		out = append(out, 9|9<<4)
	}
	var bits []bool // the block's bit stream
	slots := []int{len(out), len(out) + 2}
	out = append(out, 0, 0, 0, 0)
	put := func(v, n int) {
		for i := n - 1; i >= 0; i-- {
			bits = append(bits, v>>i&1 == 1)
		}
		// the decoder reads word k once it has used more than 16(k-1) bits
		for len(bits) > 16*(len(slots)-1) {
			slots = append(slots, len(out))
			out = append(out, 0, 0)
		}
	}
	p := start
	for p < end {
		best, off := 0, 0
		if p+3 <= len(data) {
			h := uint32(data[p]) | uint32(data[p+1])<<8 | uint32(data[p+2])<<16
			if q, ok := head[h]; ok && p-q < 65536 {
				n := 0
				for p+n < len(data) && n < 65535+3 && data[q+n] == data[p+n] {
					n++
				}
				best, off = n, p-q
			}
			head[h] = p
		}
		if best < 3 {
			put(int(data[p]), 9)
			p++
			continue
		}
		l := best - 3
		offBits := 0
		for 1<<(offBits+1) <= off {
			offBits++
		}
		sym := 256 + offBits<<4 + min(l, 15)
		put(sym, 9)
		if l >= 15 {
			if l-15 < 255 {
				out = append(out, byte(l-15))
			} else {
				out = append(out, 255)
				out = binary.LittleEndian.AppendUint16(out, uint16(l))
			}
		}
		put(off-1<<offBits, offBits)
		p += best
	}
	if p >= len(data) {
		put(256, 9) // end of file
	}
	for k, s := range slots {
		var w uint16
		for i := 0; i < 16; i++ {
			if j := 16*k + i; j < len(bits) && bits[j] {
				w |= 1 << (15 - i)
			}
		}
		binary.LittleEndian.PutUint16(out[s:], w)
	}
	return out, p
}

// xpressSamples are the inputs of the round trips (and of the files
// scripts/verify-etl gives dissect.util's decoder).
func xpressSamples() map[string][]byte {
	r := rand.New(rand.NewSource(1))
	random := make([]byte, 5000)
	r.Read(random)
	text := []byte(strings.Repeat("latlab reads .etl traces; ", 400))
	var events []byte
	for i := 0; i < 3000; i++ { // event-like records: repeated headers, changing numbers
		events = binary.LittleEndian.AppendUint32(events, 0xc0110002)
		events = binary.LittleEndian.AppendUint64(events, uint64(1e9+i*37))
		events = binary.LittleEndian.AppendUint64(events, 0xfffff80241001234+uint64(i%7)*64)
	}
	long := bytes.Repeat([]byte{7}, 70000) // a match longer than 65535: the 16-bit escape, two blocks
	return map[string][]byte{"abc": []byte(strings.Repeat("abc", 100)), "random": random, "text": text, "events": events, "long": long}
}

func TestXpressRoundTrips(t *testing.T) {
	for name, data := range xpressSamples() {
		c := xpressCompress(data)
		got, err := xpressDecompress(c, len(data))
		if err != nil || !bytes.Equal(got, data) {
			t.Errorf("%s: %d bytes back of %d, %v", name, len(got), len(data), err)
		}
	}
}

func TestXpressCorruptIsAnError(t *testing.T) {
	c := xpressCompress([]byte(strings.Repeat("abc", 100)))
	for name, in := range map[string][]byte{
		"empty":          nil,
		"table only":     c[:256],
		"over-full code": append(bytes.Repeat([]byte{0x11}, 256), c[256:]...),
		"no codes":       append(make([]byte, 256), c[256:]...),
	} {
		if _, err := xpressDecompress(in, 300); !errors.Is(err, ErrXpressCorrupt) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func FuzzXpress(f *testing.F) {
	for _, d := range xpressSamples() {
		f.Add(xpressCompress(d[:min(len(d), 2000)]), 2000)
	}
	f.Fuzz(func(t *testing.T, in []byte, size int) {
		if size < 0 || size > 1<<20 {
			return
		}
		out, err := xpressDecompress(in, size)
		if err == nil && len(out) != size {
			t.Fatalf("%d bytes, want %d", len(out), size)
		}
	})
}

// TestXpressOracleFiles writes (with -update) or checks the encoders'
// output for each sample in testdata/xpress/ (LZXpress Huffman .lzhuff,
// plain LZXpress .lz77), with the size and SHA-256 of what they encode:
// scripts/verify-etl decodes them with dissect.util's decoders,
// implementations independent of these.
func TestXpressOracleFiles(t *testing.T) {
	sums := map[string]any{}
	for name, data := range xpressSamples() {
		writtenTrace(t, "xpress/"+name+".lzhuff", xpressCompress(data))
		writtenTrace(t, "xpress/"+name+".lz77", lz77Compress(data))
		h := sha256.Sum256(data)
		sums[name] = map[string]any{"size": len(data), "sha256": hex.EncodeToString(h[:])}
	}
	js, _ := json.MarshalIndent(sums, "", " ")
	writtenTrace(t, "xpress/expect.json", append(js, '\n'))
}
