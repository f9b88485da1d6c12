package etl

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"strings"
	"testing"
)

// The examples of [MS-XCA] section 3.1.
func TestLZ77SpecExamples(t *testing.T) {
	alpha, _ := hex.DecodeString("3f000000" + hex.EncodeToString([]byte("abcdefghijklmnopqrstuvwxyz")))
	abc, _ := hex.DecodeString("ffffff1f61626317000fff2601")
	for in, want := range map[string]string{string(alpha): "abcdefghijklmnopqrstuvwxyz", string(abc): strings.Repeat("abc", 100)} {
		got, err := lz77Decompress([]byte(in), nil, 1<<20)
		if err != nil || string(got) != want {
			t.Errorf("%x: %q, %v", in, got, err)
		}
	}
}

// lz77Compress is the tests' encoder: greedy matches by a hash of three
// bytes, every length form (3 bits, the shared half byte, a byte, 16 and
// 32 bits), the unused flags of the last word set, as the specification's
// compressor leaves them.
func lz77Compress(data []byte) []byte {
	var out []byte
	flagPos, flagCount := -1, 0
	var flags uint32
	lastHalf := -1
	flag := func(b uint32) {
		if flagCount == 32 || flagPos < 0 {
			if flagPos >= 0 {
				binary.LittleEndian.PutUint32(out[flagPos:], flags)
			}
			flagPos, flagCount, flags = len(out), 0, 0
			out = append(out, 0, 0, 0, 0)
		}
		flags = flags<<1 | b
		flagCount++
	}
	head := map[uint32]int{}
	for p := 0; p < len(data); {
		best, off := 0, 0
		if p+3 <= len(data) {
			h := uint32(data[p]) | uint32(data[p+1])<<8 | uint32(data[p+2])<<16
			if q, ok := head[h]; ok && p-q <= 8192 {
				for best < 1<<20 && p+best < len(data) && data[q+best] == data[p+best] {
					best++
				}
				off = p - q
			}
			head[h] = p
		}
		if best < 3 {
			flag(0)
			out = append(out, data[p])
			p++
			continue
		}
		flag(1)
		l := best - 3
		m := uint16((off - 1) << 3)
		if l < 7 {
			out = binary.LittleEndian.AppendUint16(out, m|uint16(l))
		} else {
			out = binary.LittleEndian.AppendUint16(out, m|7)
			l -= 7
			nib := min(l, 15)
			if lastHalf < 0 {
				lastHalf = len(out)
				out = append(out, byte(nib))
			} else {
				out[lastHalf] |= byte(nib) << 4
				lastHalf = -1
			}
			if l >= 15 {
				l -= 15
				switch {
				case l < 255:
					out = append(out, byte(l))
				case l+15+7 < 65536:
					out = append(out, 255)
					out = binary.LittleEndian.AppendUint16(out, uint16(l+15+7))
				default:
					out = append(out, 255, 0, 0)
					out = binary.LittleEndian.AppendUint32(out, uint32(l+15+7))
				}
			}
		}
		p += best
	}
	if flagPos < 0 {
		flag(1)
	}
	flags = flags<<(32-flagCount) | (1<<(32-flagCount) - 1)
	binary.LittleEndian.PutUint32(out[flagPos:], flags)
	return out
}

func TestLZ77RoundTrips(t *testing.T) {
	samples := xpressSamples()
	samples["huge-run"] = bytes.Repeat([]byte{9}, 100000) // the 32-bit length
	for name, data := range samples {
		got, err := lz77Decompress(lz77Compress(data), nil, 1<<20)
		if err != nil || !bytes.Equal(got, data) {
			t.Errorf("%s: %d bytes back of %d, %v", name, len(got), len(data), err)
		}
	}
	// The output stops at the bound: a buffer's compressed bytes may be
	// followed by padding, and the caller checks the length it wanted.
	if got, err := lz77Decompress(lz77Compress(samples["text"]), nil, 100); err != nil || !bytes.Equal(got, samples["text"][:100]) {
		t.Errorf("output bound: %d bytes, %v", len(got), err)
	}
}

func FuzzLZ77(f *testing.F) {
	f.Add(lz77Compress([]byte(strings.Repeat("abc", 100))))
	f.Fuzz(func(t *testing.T, in []byte) {
		out, err := lz77Decompress(in, nil, 1<<16)
		if err == nil && len(out) > 1<<16 {
			t.Fatalf("%d bytes", len(out))
		}
	})
}
