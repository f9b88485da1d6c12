package etl

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// LZ77+Huffman ("LZXpress Huffman", COMPRESSION_FORMAT_XPRESS_HUFF) as
// [MS-XCA] section 2.2.4 (decompression) specifies it. No maintained Go
// module offers it (the Go module proxy serves none that is kept up), so
// it is written here from the specification and tested on its example.
//
// The stream is a sequence of blocks, each producing up to 65536 bytes:
// 256 bytes of 4-bit Huffman code lengths for 512 symbols (the low nibble
// of byte i is symbol 2i's), then a bit stream read as 16-bit
// little-endian words, most significant bit first. Symbols below 256 are
// literals; 256 at the end of the input ends the stream; the others are
// matches: length (low 4 bits, 15 escapes to a byte, 255 to a 16-bit
// word) and the bit length of the offset (high bits), whose low bits
// follow in the stream.

// ErrXpressCorrupt and ErrLZ77Corrupt are streams that do not decode.
var (
	ErrXpressCorrupt = errors.New("LZXpress Huffman stream is corrupt")
	ErrLZ77Corrupt   = errors.New("LZXpress (plain LZ77) stream is corrupt")
)

const (
	xpressSymbols  = 512
	xpressMaxLen   = 15
	xpressBlock    = 65536
	xpressTableLen = 256
)

// xpressDecompress decodes in into exactly size bytes.
func xpressDecompress(in []byte, size int) ([]byte, error) {
	out := make([]byte, 0, size)
	var table [1 << xpressMaxLen]uint16
	var lens [xpressSymbols]uint8
	pos := 0
	overrun := false
	u16 := func(p int) uint32 {
		if p+2 > len(in) {
			overrun = true // a valid stream holds every word the decoder reads
			return 0
		}
		return uint32(binary.LittleEndian.Uint16(in[p:]))
	}
	for len(out) < size {
		if pos+xpressTableLen > len(in) {
			return nil, fmt.Errorf("%w: %d of %d bytes decoded, the input ends before the next block's code lengths", ErrXpressCorrupt, len(out), size)
		}
		for i := 0; i < xpressTableLen; i++ {
			lens[2*i], lens[2*i+1] = in[pos+i]&15, in[pos+i]>>4
		}
		if err := xpressTable(&lens, &table); err != nil {
			return nil, err
		}
		cur := pos + xpressTableLen
		next := u16(cur)<<16 | u16(cur+2)
		cur += 4
		extra := 16
		refill := func() {
			if extra < 0 {
				next |= u16(cur) << uint(-extra)
				extra += 16
				cur += 2
			}
		}
		blockEnd := len(out) + xpressBlock
		for len(out) < size && len(out) < blockEnd {
			if overrun {
				return nil, fmt.Errorf("%w: the input ends after %d of %d bytes", ErrXpressCorrupt, len(out), size)
			}
			e := table[next>>(32-xpressMaxLen)]
			sym, n := int(e>>4), int(e&15)
			if n == 0 {
				return nil, fmt.Errorf("%w: a code that no symbol has, after %d bytes", ErrXpressCorrupt, len(out))
			}
			next <<= uint(n)
			extra -= n
			refill()
			if sym < 256 {
				out = append(out, byte(sym))
				continue
			}
			if sym == 256 && cur >= len(in) {
				break // the end of the stream
			}
			sym -= 256
			length, offBits := sym&15, sym>>4
			if length == 15 {
				if cur >= len(in) {
					return nil, fmt.Errorf("%w: a match length runs past the input", ErrXpressCorrupt)
				}
				length = int(in[cur])
				cur++
				if length == 255 {
					if cur+2 > len(in) {
						return nil, fmt.Errorf("%w: a match length runs past the input", ErrXpressCorrupt)
					}
					length = int(binary.LittleEndian.Uint16(in[cur:]))
					cur += 2
					if length < 15 {
						return nil, fmt.Errorf("%w: a long match of %d bytes", ErrXpressCorrupt, length)
					}
					length -= 15
				}
				length += 15
			}
			length += 3
			offset := 1 << offBits
			if offBits > 0 {
				offset += int(next >> uint(32-offBits))
			}
			next <<= uint(offBits)
			extra -= offBits
			refill()
			if offset > len(out) {
				return nil, fmt.Errorf("%w: a match %d bytes back after only %d bytes", ErrXpressCorrupt, offset, len(out))
			}
			for i := 0; i < length && len(out) < size; i++ {
				out = append(out, out[len(out)-offset])
			}
		}
		if len(out) < size && len(out) < blockEnd {
			break // the end of the stream before the size
		}
		pos = cur
	}
	if len(out) != size {
		return nil, fmt.Errorf("%w: %d bytes decoded, %d expected", ErrXpressCorrupt, len(out), size)
	}
	return out, nil
}

// xpressTable builds the canonical Huffman decoding table: each 15-bit
// prefix maps to symbol<<4 | code length. Codes are assigned by length,
// then by symbol, as [MS-XCA] 2.2.4 says; an over-full set of lengths is
// corrupt, an incomplete one leaves entries at 0 (decoding them fails).
func xpressTable(lens *[xpressSymbols]uint8, table *[1 << xpressMaxLen]uint16) error {
	clear(table[:])
	code := 0
	for l := 1; l <= xpressMaxLen; l++ {
		for sym := 0; sym < xpressSymbols; sym++ {
			if int(lens[sym]) != l {
				continue
			}
			span := 1 << (xpressMaxLen - l)
			start := code << (xpressMaxLen - l)
			if start+span > len(table) {
				return fmt.Errorf("%w: its code lengths over-fill the code space", ErrXpressCorrupt)
			}
			e := uint16(sym<<4 | l)
			for i := start; i < start+span; i++ {
				table[i] = e
			}
			code++
		}
		code <<= 1
	}
	return nil
}
