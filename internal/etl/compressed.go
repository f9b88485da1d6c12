package etl

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// Compressed buffers (BufferFlag 0x40: sessions in
// EVENT_TRACE_COMPRESSED_MODE, Windows 8 and later). Microsoft does not
// publish their layout. latlab reads them as dissect.etl does (run on
// traces written by this package's tests, it reads exactly this): the
// buffer header stays as it is, BufferSize is the buffer's size in the
// file, Offset (0x30) is where the compressed bytes end, and the bytes
// from the end of the header to there are the buffer's events compressed
// with plain LZXpress ([MS-XCA] 2.4). Should those bytes not decode so,
// they are tried as LZXpress Huffman ([MS-XCA] 2.2.4), with SavedOffset as
// the events' end. No real compressed trace was at hand to confirm either:
// see docs/commands/etl.md.

var errCompressedLayout = errors.New("its bytes decode neither as plain LZXpress nor as LZXpress Huffman")

// decompressBuffer returns a compressed buffer as an uncompressed one: its
// header, then the events, with SavedOffset their end.
func decompressBuffer(b []byte, bh Buffer) ([]byte, error) {
	end := int(binary.LittleEndian.Uint32(b[0x30:]))
	if end < BufferHeaderSize || end > len(b) {
		return nil, fmt.Errorf("its compressed bytes end at %d, outside its %d bytes", end, len(b))
	}
	in := b[BufferHeaderSize:end]
	out, err := lz77Decompress(in, MaxBufferSize-BufferHeaderSize)
	if err != nil || !eventsStart(out) {
		saved := int(bh.SavedOffset)
		if saved <= BufferHeaderSize || saved > MaxBufferSize {
			return nil, errCompressedLayout
		}
		h, herr := xpressDecompress(in, saved-BufferHeaderSize)
		if herr != nil || !eventsStart(h) {
			return nil, errCompressedLayout
		}
		out = h
	}
	full := make([]byte, 0, BufferHeaderSize+len(out))
	full = append(full, b[:BufferHeaderSize]...)
	return append(full, out...), nil
}

// eventsStart reports whether b starts with a trace header's marker (or
// is empty: a buffer without events).
func eventsStart(b []byte) bool {
	return len(b) == 0 || (len(b) >= 4 && b[3]&markerTraceHeader != 0)
}
