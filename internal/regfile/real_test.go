package regfile

import (
	"encoding/binary"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/latlab/latlab/internal/testutil"
)

var updateReal = flag.Bool("update", false, "rewrite testdata/real/*/*.golden from what the readers read")

// Real tweak files from public repositories (testdata/real, each beside
// its licence; provenance in testdata/README.md) are read as the golden
// file beside each says: every section and value with its line, type
// and data, and every line skipped with why. A change in what the
// readers make of real files shows here, line by line.
func TestReadRealFiles(t *testing.T) {
	paths, err := filepath.Glob("testdata/real/*/*")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, p := range paths {
		ext := strings.ToLower(filepath.Ext(p))
		if ext != ".reg" && ext != ".bat" && ext != ".cmd" && ext != ".ps1" && ext != ".psm1" {
			continue
		}
		n++
		t.Run(filepath.Base(filepath.Dir(p))+"/"+filepath.Base(p), func(t *testing.T) {
			in, err := os.Open(p)
			if err != nil {
				t.Fatal(err)
			}
			defer in.Close()
			var f *File
			switch ext {
			case ".reg":
				f, err = Read(in)
			case ".ps1", ".psm1":
				f, err = ReadPowerShell(in)
			default:
				f, err = ReadBatch(in)
			}
			if err != nil {
				t.Fatal(err)
			}
			got := renderFile(f)
			testutil.Golden(t, p+".golden", got, *updateReal, "-update")
		})
	}
	if n != 9 {
		t.Errorf("%d real files, want the 9 testdata/README.md lists", n)
	}
}

// renderFile writes what a reader read, one line a section, value or
// note.
func renderFile(f *File) string {
	var b strings.Builder
	fmt.Fprintf(&b, "header %q, encoding %s, %d values", f.Header, f.Encoding, f.Values)
	if f.Batch {
		fmt.Fprintf(&b, ", %d other lines", f.Other)
	}
	if f.PowerShell {
		fmt.Fprintf(&b, ", %d registry commands, %d other commands", f.Commands, f.Other)
	}
	b.WriteString("\n")
	for _, s := range f.Sections {
		del := ""
		if s.Delete {
			del = "delete key "
		}
		fmt.Fprintf(&b, "line %d: %s%s%s\n", s.Line, del, s.Path, flags(s.Asks, false, false))
		if s.Note != "" {
			fmt.Fprintf(&b, "  (%s)\n", s.Note)
		}
		for _, v := range s.Values {
			name := fmt.Sprintf("%q", v.Name)
			if v.Default {
				name = "@"
			}
			if v.Delete {
				fmt.Fprintf(&b, "  line %d: %s deleted%s\n", v.Line, name, flags(v.Asks, v.NewOnly, v.AnsweredNo))
				continue
			}
			fmt.Fprintf(&b, "  line %d: %s = %s%s\n", v.Line, name, renderData(v.Type, v.Data), flags(v.Asks, v.NewOnly, v.AnsweredNo))
			if v.TypeNote != "" {
				fmt.Fprintf(&b, "    (%s)\n", v.TypeNote)
			}
		}
	}
	for _, n := range f.Notes {
		fmt.Fprintf(&b, "skipped: %s\n", n)
	}
	return b.String()
}

func flags(asks, newOnly, answeredNo bool) string {
	var f []string
	for _, c := range []struct {
		on   bool
		name string
	}{{asks, "asks"}, {newOnly, "new only"}, {answeredNo, "answered no"}} {
		if c.on {
			f = append(f, c.name)
		}
	}
	if len(f) == 0 {
		return ""
	}
	return " (" + strings.Join(f, ", ") + ")"
}

// renderData shows data as its type holds it: strings decoded from
// UTF-16LE, a DWORD as a number, anything else as bytes.
func renderData(typ uint32, data []byte) string {
	switch {
	case (typ == 1 || typ == 2 || typ == 7) && len(data)%2 == 0:
		u := make([]uint16, len(data)/2)
		for i := range u {
			u[i] = binary.LittleEndian.Uint16(data[2*i:])
		}
		return fmt.Sprintf("type %d %q", typ, string(utf16.Decode(u)))
	case typ == 4 && len(data) == 4:
		return fmt.Sprintf("dword 0x%08x", binary.LittleEndian.Uint32(data))
	}
	return fmt.Sprintf("type %d % x", typ, data)
}
