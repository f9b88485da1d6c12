package etl

import (
	"encoding/binary"
	"fmt"
)

// Compressed buffers (BufferFlag 0x40: sessions in
// EVENT_TRACE_COMPRESSED_MODE, Windows 8 and later; pktmon, PerfView and
// wpr write them by default). Microsoft does not publish their layout;
// real traces (pktmon captures of Windows 10 and 11, see
// testdata/corpus.tsv) have it so: the 72-byte buffer header stays
// uncompressed; BufferSize is the buffer's size in the file, not rounded;
// Offset (0x30) and SavedOffset are the size the buffer had before it
// was compressed; the bytes from the end of the header to BufferSize are
// the events compressed with plain LZXpress ([MS-XCA] 2.4), and they
// decode to exactly Offset - 72 bytes.

// decompressBuffer returns a compressed buffer as an uncompressed one: its
// header, then the events, whose end is the returned slice's length. limit
// bounds the uncompressed size (the trace's own buffer size). The result
// is written into dst's array when it is large enough (the reader reuses
// one for every buffer).
func decompressBuffer(dst, b []byte, limit int) ([]byte, error) {
	size := int(binary.LittleEndian.Uint32(b[0x30:]))
	switch {
	case size < BufferHeaderSize:
		return nil, fmt.Errorf("its header says it holds %d bytes uncompressed, less than its own 72-byte header", size)
	case size > limit:
		return nil, fmt.Errorf("its header says it holds %d bytes uncompressed, more than the trace's buffers hold (%d)", size, limit)
	}
	// The output grows as it decodes: a header that claims a large size
	// costs no large allocation unless the bytes decode to it.
	full := dst[:0]
	if cap(full) < BufferHeaderSize {
		full = make([]byte, 0, min(size, BufferHeaderSize+16*len(b)))
	}
	full = append(full, b[:BufferHeaderSize]...)
	out, err := lz77Decompress(b[BufferHeaderSize:], full, size)
	if err != nil {
		return nil, err
	}
	if len(out) != size {
		return nil, fmt.Errorf("its LZXpress bytes decode to %d bytes, its header says %d", len(out)-BufferHeaderSize, size-BufferHeaderSize)
	}
	return out, nil
}
