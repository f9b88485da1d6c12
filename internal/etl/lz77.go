package etl

import (
	"encoding/binary"
	"fmt"
)

// Plain LZ77 ("LZXpress", COMPRESSION_FORMAT_XPRESS) as [MS-XCA] section
// 2.4 specifies its decompression: 32-bit flag words, most significant bit
// first, a 0 bit for a literal byte and a 1 bit for a match (a 16-bit word:
// offset-1 in the high 13 bits, length-3 in the low 3, longer lengths in a
// shared half byte, a byte, a 16-bit or a 32-bit word). The stream ends
// where the input does, at a match flag or where flags are due.

// lz77Decompress decodes in, appending to out until out holds max bytes
// (what follows in the input is ignored: a buffer's compressed bytes may be
// followed by padding) or the input ends.
func lz77Decompress(in, out []byte, max int) ([]byte, error) {
	base := len(out)
	var flags uint32
	flagCount := 0
	pos, lastHalf := 0, -1
	for len(out) < max {
		if flagCount == 0 {
			if pos+4 > len(in) {
				return out, nil // the input ends where flags are due
			}
			flags = binary.LittleEndian.Uint32(in[pos:])
			pos += 4
			flagCount = 32
		}
		flagCount--
		if flags&(1<<uint(flagCount)) == 0 {
			if pos >= len(in) {
				return out, nil
			}
			out = append(out, in[pos])
			pos++
			continue
		}
		if pos == len(in) {
			return out, nil // a match flag at the end of the input ends the stream
		}
		if pos+2 > len(in) {
			return nil, fmt.Errorf("%w: a match runs past the input", ErrLZ77Corrupt)
		}
		m := int(binary.LittleEndian.Uint16(in[pos:]))
		pos += 2
		length, offset := m%8, m/8+1
		if length == 7 {
			if lastHalf < 0 {
				if pos >= len(in) {
					return nil, fmt.Errorf("%w: a match length runs past the input", ErrLZ77Corrupt)
				}
				length = int(in[pos] % 16)
				lastHalf = pos
				pos++
			} else {
				length = int(in[lastHalf] / 16)
				lastHalf = -1
			}
			if length == 15 {
				if pos >= len(in) {
					return nil, fmt.Errorf("%w: a match length runs past the input", ErrLZ77Corrupt)
				}
				length = int(in[pos])
				pos++
				if length == 255 {
					if pos+2 > len(in) {
						return nil, fmt.Errorf("%w: a match length runs past the input", ErrLZ77Corrupt)
					}
					length = int(binary.LittleEndian.Uint16(in[pos:]))
					pos += 2
					if length == 0 {
						if pos+4 > len(in) {
							return nil, fmt.Errorf("%w: a match length runs past the input", ErrLZ77Corrupt)
						}
						length = int(binary.LittleEndian.Uint32(in[pos:]))
						pos += 4
					}
					if length < 15+7 {
						return nil, fmt.Errorf("%w: a long match of %d bytes", ErrLZ77Corrupt, length)
					}
					length -= 15 + 7
				}
				length += 15
			}
			length += 7
		}
		length += 3
		if offset > len(out)-base {
			return nil, fmt.Errorf("%w: a match %d bytes back after only %d bytes", ErrLZ77Corrupt, offset, len(out)-base)
		}
		if length > max-len(out) {
			length = max - len(out) // the rest is past what the caller wants
		}
		for i := 0; i < length; i++ {
			out = append(out, out[len(out)-offset])
		}
	}
	return out, nil
}
