package textdec

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"unicode/utf16"
	"unicode/utf8"

	"golang.org/x/text/encoding/charmap"
)

// MaxLine bounds one line of a streamed file: the longest line is all
// Lines ever holds.
const MaxLine = 1 << 20

// Scan is ReadLines for parsers that take one line at a time: it decodes r
// as ReadLines does and hands parse a *Lines to pull lines from, holding
// one line (at most MaxLine bytes) instead of the file. Whatever parse
// does, the rest of r is read (and dropped) afterwards, so the result is
// the one ReadLines would give: its error for the whole input (too large,
// binary, empty) if any, else parse's error. A line longer than MaxLine is
// an error too.
//
// ReadLines takes a file that is not valid UTF-8 as Windows-1252, which
// a stream can only learn late. Until then, lines are UTF-8; if the first
// byte that is not UTF-8 comes after lines with non-ASCII characters were
// handed out, parse runs again from the start of r with Windows-1252
// (when r can seek; otherwise that is an error).
func Scan(r io.Reader, max int64, want string, parse func(*Lines) error) error {
	start := int64(-1)
	if s, ok := r.(io.Seeker); ok {
		if off, err := s.Seek(0, io.SeekCurrent); err == nil {
			start = off
		}
	}
	l := newLines(r, max, want, false)
	err := l.finish(parse(l))
	if !errors.Is(err, errMixed) {
		return err
	}
	if start < 0 {
		return &LineError{Line: l.mixedLine, Msg: fmt.Sprintf("byte 0x%02x at offset %d is not UTF-8, yet lines before are: expected %s in one encoding",
			l.mixedByte, l.mixedOffset, want)}
	}
	if _, err := r.(io.Seeker).Seek(start, io.SeekStart); err != nil {
		return err
	}
	l = newLines(r, max, want, true)
	return l.finish(parse(l))
}

var (
	errMixed    = errors.New("mixed encodings")
	errTooLarge = errors.New("too large")
)

// Lines hands out the lines of a text file one at a time: split at CRLF,
// LF or a lone CR, as ReadLines splits them (what follows the last line
// ending is one more line).
type Lines struct {
	want string
	max  int64

	src *capped       // the raw bytes, counted against max
	raw *bufio.Reader // over src: sniffing and the byte encodings
	in  io.Reader     // what lines are split from: raw, or UTF-16 transcoded to UTF-8
	enc Encoding

	buf  []byte
	r, w int
	seen int // the search for a line ending resumes here
	eof  bool

	n         int   // lines handed out (or dropped while draining)
	ended     int   // lines ended before the next line, for BinaryError.Line
	off       int64 // raw offset of the next line, byte encodings
	afterTerm bool  // at the start of a line: a last, empty line is still due at EOF
	emptyTail bool  // that last, empty line was split off
	nonASCII  bool  // a line with bytes >= 0x80 was handed out as UTF-8
	nonSpace  bool
	stopped   bool // an error ended the lines; finish reads on
	inLong    bool // within a line longer than MaxLine
	crcrlf    bool // CR CR LF ends one line (JoinCRCRLF)
	doubled   int  // lines ended by CR CR LF

	ioErr, tooLarge, binErr, longErr, mixed error
	mixedLine                               int
	mixedByte                               byte
	mixedOffset                             int64
}

func newLines(r io.Reader, max int64, want string, forceANSI bool) *Lines {
	l := &Lines{want: want, max: max, src: &capped{r: r, left: max}, afterTerm: true}
	l.raw = bufio.NewReaderSize(l.src, 64<<10)
	l.in = l.raw
	head, _ := l.raw.Peek(512)
	switch {
	case bytes.HasPrefix(head, []byte{0xEF, 0xBB, 0xBF}):
		l.enc, l.off = UTF8BOM, 3
		l.raw.Discard(3)
	case bytes.HasPrefix(head, []byte{0xFF, 0xFE}):
		l.raw.Discard(2)
		l.enc, l.in = UTF16LE, &utf16Reader{r: l.raw, skip: 2}
	case bytes.HasPrefix(head, []byte{0xFE, 0xFF}):
		l.raw.Discard(2)
		l.enc, l.in = UTF16BE, &utf16Reader{r: l.raw, skip: 2, bigEndian: true}
	case looksUTF16LE(head):
		l.enc, l.in = UTF16LE, &utf16Reader{r: l.raw}
	case forceANSI:
		l.enc = ANSI
	default:
		l.enc = UTF8 // until a line says otherwise
	}
	l.buf = make([]byte, 64<<10)
	return l
}

// Encoding is the encoding the lines were decoded from; a file read as
// UTF-8 so far may still turn out to be Windows-1252.
func (l *Lines) Encoding() Encoding { return l.enc }

// Count is the number of lines handed out: the number of the last one.
func (l *Lines) Count() int { return l.n }

// EditorCount is the number of lines as an editor and wc -l count them
// once the input is read: the line ending that ends the last line does
// not start another, so the empty piece after it, which Count includes,
// is left out (a 56-line report that ends with a newline has 56 lines,
// not 57).
func (l *Lines) EditorCount() int {
	if l.emptyTail && l.n > 0 {
		return l.n - 1
	}
	return l.n
}

// JoinCRCRLF makes CR CR LF one line ending, not a lone CR and then a
// CRLF (an empty line between every two). Call it before the first Next.
// It is what a program gets that writes CRLF through a C runtime stream in
// text mode, which turns the LF into another CRLF: a real xperf report
// has these line ends.
func (l *Lines) JoinCRCRLF() { l.crcrlf = true }

// Doubled is the number of lines so far ended by CR CR LF as one line
// ending (with JoinCRCRLF).
func (l *Lines) Doubled() int { return l.doubled }

// Next returns the next line without its line ending; false at the end of
// the input or at an error (which Scan reports).
func (l *Lines) Next() (string, bool) {
	if l.stopped {
		return "", false
	}
	s, ok := l.next(true)
	if !ok {
		l.stopped = true
	}
	return s, ok
}

// finish reads the rest of the input and returns the error ReadLines
// would give for it, if any, else perr.
func (l *Lines) finish(perr error) error {
	for {
		if _, ok := l.next(false); !ok {
			break
		}
	}
	switch {
	case l.ioErr != nil:
		return l.ioErr
	case l.tooLarge != nil:
		return &LineError{Msg: fmt.Sprintf("larger than %d MiB: expected %s", l.max>>20, l.want)}
	case l.binErr != nil:
		var be *BinaryError
		errors.As(l.binErr, &be)
		return &LineError{Line: be.Line, Msg: fmt.Sprintf("not text (byte 0x%02x at offset %d): expected %s", be.Byte, be.Offset, l.want)}
	case l.mixed != nil:
		return l.mixed
	case l.longErr != nil:
		return l.longErr
	case !l.nonSpace:
		return &LineError{Line: 1, Msg: "empty file: expected " + l.want}
	}
	return perr
}

// next decodes and checks the next line, returning it when keep is set.
// After an error it reads on to the end (for finish) but returns nothing
// more: from then on only a control character or the size can matter.
func (l *Lines) next(keep bool) (string, bool) {
	for {
		b, term, complete, ok := l.split()
		if !ok {
			return "", false
		}
		if !complete || l.inLong { // a line longer than MaxLine: check it, keep none of it
			if !l.inLong {
				l.n++
				if l.longErr == nil {
					l.longErr = &LineError{Line: l.n, Msg: fmt.Sprintf("longer than %d MiB: expected %s", MaxLine>>20, l.want)}
				}
				l.stopped = true
			}
			l.inLong = !complete
			l.check(b)
			l.advance(b, term)
			continue
		}
		l.n++
		if l.stopped {
			l.check(b)
			l.advance(b, term)
			continue
		}
		s, good := l.decode(b, keep)
		l.advance(b, term)
		if good {
			return s, true
		}
	}
}

// split returns the next line's bytes (valid until the next call), the
// length of its ending (0 at EOF or within a long line), whether it ends
// the line (false for a MaxLine piece of a longer line), and false when
// the input is done.
func (l *Lines) split() (b []byte, term int, complete, ok bool) {
	for {
		from := max(l.r, l.seen) // buf[r:seen] holds no line ending
		if i := indexEnding(l.buf[from:l.w]); i >= 0 {
			j := from + i
			switch {
			case l.buf[j] == '\n':
				term = 1
			case l.crcrlf && j+2 < l.w && l.buf[j+1] == '\r' && l.buf[j+2] == '\n':
				term = 3
				l.doubled++
			case l.crcrlf && !l.eof && j+2 >= l.w && (j+1 >= l.w || l.buf[j+1] == '\r'):
				// "\r" or "\r\r" at the end of what is buffered: the
				// rest of a CR CR LF may follow (term stays 0: read on).
			case j+1 < l.w:
				term = 1
				if l.buf[j+1] == '\n' {
					term = 2
				}
			case l.eof:
				term = 1
			}
			if term > 0 {
				b = l.buf[l.r:j]
				l.r = j + term
				l.afterTerm = true
				return b, term, true, true
			}
			// A CR at the end of what is buffered: an LF may follow.
			l.seen = j
		} else {
			l.seen = l.w
		}
		if l.w-l.r >= MaxLine {
			b = l.buf[l.r:l.w]
			if b[len(b)-1] == '\r' {
				b = b[:len(b)-1] // it may start a CRLF: leave it for the next piece
			}
			l.r += len(b)
			return b, 0, false, true
		}
		if l.eof {
			if l.r < l.w {
				b = l.buf[l.r:l.w]
				l.r = l.w
				l.afterTerm = false
				return b, 0, true, true
			}
			if l.afterTerm {
				l.afterTerm = false
				l.emptyTail = true
				return nil, 0, true, true
			}
			return nil, 0, false, false
		}
		l.fill()
	}
}

// indexEnding is bytes.IndexAny(b, "\r\n"), quicker on the short lines
// of long files.
func indexEnding(b []byte) int {
	i := bytes.IndexByte(b, '\n')
	if i < 0 {
		i = len(b)
	}
	if j := bytes.IndexByte(b[:i], '\r'); j >= 0 {
		return j
	}
	if i == len(b) {
		return -1
	}
	return i
}

// fill reads more input after compacting the buffer, growing it up to
// MaxLine when a line does not fit.
func (l *Lines) fill() {
	if l.r > 0 {
		l.w = copy(l.buf, l.buf[l.r:l.w])
		l.seen = max(l.seen-l.r, 0)
		l.r = 0
	}
	if l.w == len(l.buf) {
		nb := make([]byte, min(2*len(l.buf), MaxLine))
		copy(nb, l.buf[:l.w])
		l.buf = nb
	}
	n, err := l.in.Read(l.buf[l.w:])
	l.w += n
	if err == nil {
		return
	}
	l.eof = true
	var be *BinaryError
	switch {
	case err == io.EOF:
		return
	case errors.Is(err, errTooLarge):
		l.tooLarge = err
	case errors.As(err, &be):
		l.binErr = err
	default:
		l.ioErr = err
	}
	l.stopped = true
}

// advance moves the raw offset and the line count past a line.
func (l *Lines) advance(b []byte, term int) {
	l.off += int64(len(b) + term)
	if term > 0 {
		l.ended++
	}
}

// check records the first control character in b, for the byte
// encodings (the UTF-16 reader checks its own).
func (l *Lines) check(b []byte) bool {
	if l.enc == UTF16LE || l.enc == UTF16BE || l.binErr != nil {
		return l.binErr == nil
	}
	for i, c := range b {
		if isBadControl(rune(c)) {
			l.binErr = &BinaryError{Offset: l.off + int64(i), Line: l.ended + 1, Byte: c}
			l.stopped = true
			return false
		}
	}
	return true
}

// ansiTable is built on first use: at start-up it would cost every command.
// The five bytes Windows-1252 leaves undefined (0x81, 0x8D, 0x8F, 0x90,
// 0x9D) are the C1 controls of the same number, as Windows' own table
// (bestfit1252.txt) and the WHATWG index map them, not U+FFFD: every byte
// keeps its own rune, so a reader can get the bytes back and read them in
// another code page (an ANSI INF's [Strings.0804] is GBK).
var ansiTable = sync.OnceValue(func() (t *[256]string) {
	t = new([256]string)
	dec := charmap.Windows1252.NewDecoder()
	for i := range t {
		s, _ := dec.Bytes([]byte{byte(i)})
		t[i] = string(s)
		if t[i] == "\uFFFD" {
			t[i] = string(rune(i))
		}
	}
	return t
})

// decode checks a whole line and, when keep is set, turns it into a
// string.
func (l *Lines) decode(b []byte, keep bool) (string, bool) {
	if !l.check(b) {
		return "", false
	}
	if l.enc == UTF8 && !utf8.Valid(b) {
		if l.nonASCII {
			i := invalidAt(b)
			l.mixed, l.mixedLine, l.mixedByte, l.mixedOffset = errMixed, l.n, b[i], l.off+int64(i)
			l.stopped = true
			return "", false
		}
		l.enc = ANSI // all before was ASCII, which reads the same either way
	}
	if l.enc == UTF8 && !l.nonASCII {
		for _, c := range b {
			if c >= 0x80 {
				l.nonASCII = true
				break
			}
		}
	}
	if l.enc == ANSI {
		table := ansiTable()
		if !l.nonSpace {
			for _, c := range b {
				if strings.TrimSpace(table[c]) != "" {
					l.nonSpace = true
					break
				}
			}
		}
		if !keep {
			return "", true
		}
		var sb strings.Builder
		sb.Grow(len(b))
		for _, c := range b {
			sb.WriteString(table[c])
		}
		return sb.String(), true
	}
	if !l.nonSpace && len(bytes.TrimSpace(b)) > 0 {
		l.nonSpace = true
	}
	if !keep {
		return "", true
	}
	return string(b), true
}

func invalidAt(b []byte) int {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return 0
}

// capped reads at most left bytes and fails with errTooLarge beyond them.
type capped struct {
	r    io.Reader
	left int64
}

func (c *capped) Read(p []byte) (int, error) {
	if c.left < 0 {
		return 0, errTooLarge
	}
	if int64(len(p)) > c.left+1 {
		p = p[:c.left+1]
	}
	n, err := c.r.Read(p)
	if int64(n) > c.left {
		n = int(c.left)
		c.left = -1
		return n, errTooLarge
	}
	c.left -= int64(n)
	return n, err
}

// utf16Reader transcodes UTF-16 to UTF-8 as it reads, with decode16's
// checks: at the first control character it stops handing out text but
// reads on, because an odd length (found only at the end) outranks it.
type utf16Reader struct {
	r         io.Reader
	bigEndian bool
	skip      int64 // bytes before the first unit (the BOM)

	in     [16 << 10]byte
	odd    byte  // the first byte of a unit split between reads
	hasOdd bool  // odd holds a byte
	high   rune  // a high surrogate waiting for its pair, or 0
	units  int64 // units read
	lines  lineCounter
	ctrl   *BinaryError
	out    []byte // decoded text
	pos    int    // out[pos:] is not handed out yet
	err    error
}

func (u *utf16Reader) Read(p []byte) (int, error) {
	for u.pos == len(u.out) && u.err == nil {
		u.decode()
	}
	if u.pos < len(u.out) {
		n := copy(p, u.out[u.pos:])
		u.pos += n
		return n, nil
	}
	return 0, u.err
}

func (u *utf16Reader) decode() {
	n, err := u.r.Read(u.in[:])
	b := u.in[:n]
	u.out, u.pos = u.out[:0], 0
	for len(b) > 0 {
		var c uint16
		if u.hasOdd {
			c = u.unit(u.odd, b[0])
			u.hasOdd = false
			b = b[1:]
		} else if len(b) == 1 {
			u.odd, u.hasOdd = b[0], true
			break
		} else {
			c = u.unit(b[0], b[1])
			b = b[2:]
		}
		u.put(c)
	}
	if err == nil {
		return
	}
	if err != io.EOF {
		u.err = err
		return
	}
	if u.high != 0 && u.ctrl == nil {
		u.out = utf8.AppendRune(u.out, utf8.RuneError)
		u.high = 0
	}
	switch {
	case u.hasOdd:
		u.err = &BinaryError{Offset: u.skip + 2*u.units, Line: u.lines.line(), Byte: u.odd}
	case u.ctrl != nil:
		u.err = u.ctrl
	default:
		u.err = io.EOF
	}
}

func (u *utf16Reader) unit(a, b byte) uint16 {
	if u.bigEndian {
		return uint16(a)<<8 | uint16(b)
	}
	return uint16(a) | uint16(b)<<8
}

// put decodes one unit as utf16.Decode would: an unpaired surrogate is
// U+FFFD.
func (u *utf16Reader) put(c uint16) {
	i := u.units
	u.units++
	u.lines.see(rune(c))
	if u.ctrl != nil {
		return
	}
	if isBadControl(rune(c)) {
		u.ctrl = &BinaryError{Offset: u.skip + 2*i, Line: u.lines.line(), Byte: byte(c)}
		u.out = u.out[:0] // no text after a control character
		return
	}
	r := rune(c)
	if u.high != 0 {
		if 0xDC00 <= r && r < 0xE000 {
			u.out = utf8.AppendRune(u.out, utf16.DecodeRune(u.high, r))
			u.high = 0
			return
		}
		u.out = utf8.AppendRune(u.out, utf8.RuneError)
		u.high = 0
	}
	switch {
	case 0xD800 <= r && r < 0xDC00:
		u.high = r
	case 0xDC00 <= r && r < 0xE000:
		u.out = utf8.AppendRune(u.out, utf8.RuneError)
	default:
		u.out = utf8.AppendRune(u.out, r)
	}
}
