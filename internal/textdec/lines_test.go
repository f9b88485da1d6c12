package textdec

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestReadLines(t *testing.T) {
	lines, enc, err := ReadLines(strings.NewReader("a\r\nb\rc\nd\r\n"), 1<<20, "x")
	if err != nil || enc != UTF8 || !reflect.DeepEqual(lines, []string{"a", "b", "c", "d", ""}) {
		t.Errorf("%q %s %v", lines, enc, err)
	}
	lines, enc, err = ReadLines(strings.NewReader(string(le("[A]\r\nk = v", true))), 1<<20, "x")
	if err != nil || enc != UTF16LE || !reflect.DeepEqual(lines, []string{"[A]", "k = v"}) {
		t.Errorf("utf-16: %q %s %v", lines, enc, err)
	}
	for _, c := range []struct {
		name, in string
		max      int64
		want     string
		line     int
	}{
		{"empty", "", 1 << 20, "empty file: expected an INF", 1},
		{"blank", " \r\n\t\n", 1 << 20, "empty file: expected an INF", 1},
		{"blank utf-16", string(le(" \r\n", true)), 1 << 20, "empty file: expected an INF", 1},
		{"binary", "ok\n\x00", 1 << 20, "not text (byte 0x00 at offset 3): expected an INF", 2},
		{"too large", strings.Repeat("x", 3<<20), 2 << 20, "larger than 2 MiB: expected an INF", 0},
	} {
		_, _, err := ReadLines(strings.NewReader(c.in), c.max, "an INF")
		var lerr *LineError
		if !errors.As(err, &lerr) || lerr.Line != c.line || !strings.Contains(lerr.Msg, c.want) {
			t.Errorf("%s: %v (want line %d, %q)", c.name, err, c.line, c.want)
		}
	}
}

func TestClip(t *testing.T) {
	if s := Clip("short"); s != "short" {
		t.Errorf("%q", s)
	}
	long := strings.Repeat("ä", 40) // 80 bytes
	s := Clip(long)
	if len(s) > 60 || !strings.HasSuffix(s, "...") || !utf8.ValidString(s) {
		t.Errorf("%q (%d bytes)", s, len(s))
	}
}
