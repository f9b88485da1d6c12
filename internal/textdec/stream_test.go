package textdec

import (
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
)

// chunky reads a string in pieces of 1, 2, 3 ... 7 bytes, so that line
// endings, UTF-8 sequences and UTF-16 units are split between reads; it
// can seek, as files can.
type chunky struct {
	*strings.Reader
	i int
}

func (c *chunky) Read(p []byte) (int, error) {
	c.i++
	n := 1 + c.i%7
	if len(p) > n {
		p = p[:n]
	}
	return c.Reader.Read(p)
}

// noSeek hides the Seek method of a reader (a pipe).
type noSeek struct{ io.Reader }

func scanAll(r io.Reader, max int64) ([]string, Encoding, error) {
	var lines []string
	var enc Encoding
	err := Scan(r, max, "x", func(l *Lines) error {
		lines = lines[:0] // a second pass starts again
		for {
			s, ok := l.Next()
			if !ok {
				break
			}
			lines = append(lines, s)
			if l.Count() != len(lines) {
				return fmt.Errorf("Count %d after %d lines", l.Count(), len(lines))
			}
		}
		enc = l.Encoding()
		return nil
	})
	return lines, enc, err
}

// sameAsReadLines says how Scan's view of in differs from ReadLines'.
func sameAsReadLines(in string, max int64) error {
	want, wenc, werr := ReadLines(strings.NewReader(in), max, "x")
	for _, r := range []io.Reader{strings.NewReader(in), &chunky{Reader: strings.NewReader(in)}, noSeek{strings.NewReader(in)}} {
		got, genc, gerr := scanAll(r, max)
		if _, ok := r.(noSeek); ok && gerr != nil && strings.Contains(gerr.Error(), "in one encoding") {
			if werr != nil || wenc != ANSI {
				return fmt.Errorf("pipe: mixed encodings reported for %s input (%v)", wenc, werr)
			}
			continue // a pipe cannot be read twice
		}
		if fmt.Sprint(gerr) != fmt.Sprint(werr) {
			return fmt.Errorf("%T: error %v, ReadLines %v", r, gerr, werr)
		}
		if werr != nil {
			continue
		}
		if genc != wenc || !reflect.DeepEqual(got, append([]string{}, want...)) {
			return fmt.Errorf("%T: %s %q, ReadLines %s %q", r, genc, got, wenc, want)
		}
	}
	return nil
}

var streamCases = []string{
	"", "\n", " \r\n\t\n", "a", "a\n", "a\r\nb\rc\nd\r\n", "a\r", "a\r\r\n\n\rb",
	"ok\n\x00", "ok\r\nok\rx\x01\n", "caf\xe9\n", "ascii\nthen caf\xe9\n", "caf\xc3\xa9\nthen caf\xe9\n",
	"\xc2\xa0\n", "\xa0\n", "\xef\xbb\xbfbom \xff ok\n", "\xef\xbb\xbf", "x\n\x1a",
	string(le("a\r\nb\x00c", true)), string(le("ab", true)) + "c", string(le("a\x00", true)) + "c",
	string(le("[V]\r\nk = v\r\n", false)), string(le("\U0001F600 \r\n", true)), "\xff\xfe\x00\xd8a\x00",
	"\xff\xfe\x00\xd8", "\xfe\xff\x00a\x00\n\x00b", strings.Repeat("x", 3000), strings.Repeat("é\n", 800) + "\xe9",
	// binary bytes after lines ended by a lone CR: the error's line
	"a\rb\r\x00", "a\r\nb\rc\x00", "a\r\r\n\x00", string(le("a\rb\r\x00", true)), string(le("a\r", true)) + "x",
}

func TestScanMatchesReadLines(t *testing.T) {
	for _, in := range streamCases {
		for _, max := range []int64{1 << 20, 2048} {
			if err := sameAsReadLines(in, max); err != nil {
				t.Errorf("%q (max %d): %v", clipTest(in), max, err)
			}
		}
	}
}

// A line longer than MaxLine is refused, and only after the whole input
// was checked: a control character later on still wins.
func TestScanLongLine(t *testing.T) {
	long := "head\n" + strings.Repeat("y", MaxLine+10) + "\r\ntail\n"
	lines, _, err := scanAll(strings.NewReader(long), 64<<20)
	var le *LineError
	if !errors.As(err, &le) || le.Line != 2 || !strings.Contains(le.Msg, "longer than 1 MiB") {
		t.Fatalf("long line: %v", err)
	}
	if len(lines) != 1 || lines[0] != "head" {
		t.Errorf("lines before the long one: %q", lines)
	}
	_, _, err = scanAll(strings.NewReader(long+"\x00"), 64<<20)
	if !errors.As(err, &le) || le.Line != 4 || !strings.Contains(le.Msg, "not text (byte 0x00") {
		t.Fatalf("long line, then NUL: %v", err)
	}
}

// The parser's own error loses to one about the file, as with ReadLines.
func TestScanFileErrorsWin(t *testing.T) {
	perr := errors.New("parse error")
	err := Scan(strings.NewReader("bad\n"+strings.Repeat("z", 4000)+"\x02"), 1<<20, "x", func(l *Lines) error {
		l.Next()
		return perr
	})
	if err == nil || !strings.Contains(err.Error(), "line 2: not text (byte 0x02 at offset 4004)") {
		t.Errorf("binary after a parse error: %v", err)
	}
	err = Scan(strings.NewReader("bad\nrest\n"), 1<<20, "x", func(l *Lines) error {
		l.Next()
		return perr
	})
	if err != perr {
		t.Errorf("parse error: %v", err)
	}
}

func FuzzScan(f *testing.F) {
	for _, s := range streamCases {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		for _, max := range []int64{1 << 20, 64} {
			if err := sameAsReadLines(in, max); err != nil {
				t.Fatalf("max %d: %v", max, err)
			}
		}
	})
}

func clipTest(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}

// EditorCount counts lines as wc -l does for a text ending in a line
// ending, and as an editor shows them otherwise: the ending of the last
// line starts no other, while a blank line before it is one.
func TestEditorCount(t *testing.T) {
	for _, c := range []struct {
		in          string
		count, edit int
	}{
		{"a\nb\n", 3, 2},
		{"a\nb", 2, 2},
		{"a\r\nb\r\n", 3, 2},
		{"a\rb\r", 3, 2},
		{"a\nb\n\n", 4, 3},
		{"a", 1, 1},
		{"\xff\xfea\x00\n\x00", 2, 1}, // UTF-16LE "a\n"
	} {
		err := Scan(strings.NewReader(c.in), 1<<20, "text", func(l *Lines) error {
			for {
				if _, ok := l.Next(); !ok {
					break
				}
			}
			if l.Count() != c.count || l.EditorCount() != c.edit {
				t.Errorf("%q: Count %d, EditorCount %d; want %d, %d", c.in, l.Count(), l.EditorCount(), c.count, c.edit)
			}
			return nil
		})
		if err != nil {
			t.Errorf("%q: %v", c.in, err)
		}
	}
}

// JoinCRCRLF: CR CR LF is one line ending (a real xperf report has them),
// wherever the reads cut it; a lone CR and CRLF stay line endings of
// their own, and without JoinCRCRLF CR CR LF is two, as before.
func TestJoinCRCRLF(t *testing.T) {
	for _, c := range []struct {
		in      string
		join    bool
		want    []string
		doubled int
	}{
		{"a\r\r\nb\r\r\nc", true, []string{"a", "b", "c"}, 2},
		{"a\r\r\nb\r\r\n", true, []string{"a", "b", ""}, 2},
		{"a\r\r\n\r\r\nb", true, []string{"a", "", "b"}, 2},
		{"a\r\nb\rc\nd", true, []string{"a", "b", "c", "d"}, 0},
		{"a\r\r\r\nb", true, []string{"a", "", "b"}, 1},
		{"a\r\r", true, []string{"a", "", ""}, 0},
		{"a\r\r\nb", false, []string{"a", "", "b"}, 0},
		{string(le("a\r\r\nb", true)), true, []string{"a", "b"}, 1},
		// Past the first 512 bytes (sniffed in one read), one byte a read
		// cuts the CR CR LF between reads.
		{strings.Repeat("x", 600) + "\na\r\r\nb", true, []string{strings.Repeat("x", 600), "a", "b"}, 1},
	} {
		for _, oneByte := range []bool{false, true} {
			var r io.Reader = strings.NewReader(c.in)
			if oneByte {
				r = iotest.OneByteReader(r)
			}
			var got []string
			var doubled int
			err := Scan(r, 1<<20, "text", func(l *Lines) error {
				if c.join {
					l.JoinCRCRLF()
				}
				for {
					s, ok := l.Next()
					if !ok {
						break
					}
					got = append(got, s)
				}
				doubled = l.Doubled()
				return nil
			})
			if err != nil || !slices.Equal(got, c.want) || doubled != c.doubled {
				t.Errorf("%q (join %v, one byte a read %v): %q, %d doubled, %v; want %q, %d", c.in, c.join, oneByte, got, doubled, err, c.want, c.doubled)
			}
		}
	}
}
