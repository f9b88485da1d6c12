package regfile

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/knob/backend"
)

// format writes f back as a .reg file with the writer's functions: what
// Read makes of it must be f again (the fuzz target's oracle).
func format(f *File) string {
	var b strings.Builder
	b.WriteString(Header + "\r\n")
	for _, s := range f.Sections {
		b.WriteString("\r\n")
		if s.Delete {
			b.WriteString(DeleteKey(s.Path) + "\r\n")
			continue
		}
		b.WriteString(Key(s.Path) + "\r\n")
		for _, v := range s.Values {
			name := "@"
			if !v.Default {
				name = String(v.Name)
			}
			var data string
			str := backend.UTF16String(v.Data)
			switch {
			case v.Delete:
				data = "-"
			case v.Type == 4 && len(v.Data) == 4:
				data = DWORD(binary.LittleEndian.Uint32(v.Data))
			case v.Type == 1 && bytes.Equal(backend.UTF16Bytes(str), v.Data) && !strings.ContainsAny(str, "\x00\r\n"):
				data = String(str)
			default:
				data = Hex(v.Type, v.Data)
			}
			b.WriteString(name + "=" + data + "\r\n")
		}
	}
	return b.String()
}

func sameFile(a, b *File) bool {
	if len(a.Sections) != len(b.Sections) || a.Values != b.Values {
		return false
	}
	for i, s := range a.Sections {
		t := b.Sections[i]
		if !strings.EqualFold(s.Path, t.Path) || s.Delete != t.Delete || len(s.Values) != len(t.Values) {
			return false
		}
		for j, v := range s.Values {
			w := t.Values[j]
			if v.Name != w.Name || v.Default != w.Default || v.Delete != w.Delete || v.Type != w.Type || !bytes.Equal(v.Data, w.Data) {
				return false
			}
		}
	}
	return true
}

// FuzzRead: any input is read or refused with an error, never a panic,
// and what is read, written back, reads the same.
func FuzzRead(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.reg"))
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("REGEDIT4\n[HKEY_CURRENT_USER\\A]\n\"x\"=hex(2):41,00,\\\n  00,00\n@=-\n"))
	f.Add([]byte(Header + "\n[-HKEY_LOCAL_MACHINE\\A\\]\n[HKLM\\B]\n\"\\\"q\\\\\"=\"\"\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := Read(bytes.NewReader(b))
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("error of several lines: %q", err)
			}
			return
		}
		text := format(got)
		again, err := Read(strings.NewReader(text))
		if err != nil {
			t.Fatalf("written back, it does not read: %v\n%s", err, text)
		}
		if !sameFile(got, again) {
			t.Fatalf("written back, it reads differently:\n%s", text)
		}
	})
}
