package knob

import (
	"os"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/knob/backend"
)

// realBCDCaptures are bcdedit outputs printed by real Windows machines and
// copied unchanged from public repositories (testdata/bcdedit.PROVENANCE
// says which lines of which file). Each entry says what the output holds.
var realBCDCaptures = []struct {
	file     string
	headings []string
	elements []int             // elements per object
	current  int               // index of the object whose identifier is {current}
	loader   map[string]string // elements of that object
	other    map[string]string // elements of the first object
}{
	{
		// `bcdedit` (no argument: /enum ACTIVE) on an English Windows 10,
		// UEFI, with kernel debugging on; LF line ends as the file stores them.
		file:     "testdata/bcdedit-packt-win10.txt",
		headings: []string{"Windows Boot Manager", "Windows Boot Loader"},
		elements: []int{11, 17},
		current:  1,
		loader: map[string]string{
			"identifier":              "{current}",
			"path":                    `\WINDOWS\system32\winload.efi`,
			"description":             "Windows 10",
			"recoverysequence":        "{92f49998-fef7-11e8-a8e2-e508765ab07c}",
			"recoveryenabled":         "Yes",
			"allowedinmemorysettings": "0x15000075",
			"nx":                      "OptIn",
			"debug":                   "Yes",
		},
		other: map[string]string{
			"identifier":   "{bootmgr}",
			"device":       `partition=\Device\HarddiskVolume1`,
			"path":         `\EFI\MICROSOFT\BOOT\BOOTMGFW.EFI`,
			"displayorder": "{current}", // one value: no continuation line
			"timeout":      "0",
		},
	},
}

func TestParseBCDEnumRealCaptures(t *testing.T) {
	for _, c := range realBCDCaptures {
		t.Run(c.file, func(t *testing.T) {
			out, err := os.ReadFile(c.file)
			if err != nil {
				t.Fatal(err)
			}
			objs, err := backend.ParseBCDEnum(strings.NewReader(string(out)))
			if err != nil {
				t.Fatal(err)
			}
			var heads []string
			var counts []int
			for _, o := range objs {
				heads = append(heads, o.Heading)
				counts = append(counts, len(o.Elements))
			}
			if strings.Join(heads, "|") != strings.Join(c.headings, "|") {
				t.Fatalf("headings %q, want %q", heads, c.headings)
			}
			for i, n := range c.elements {
				if counts[i] != n {
					t.Errorf("object %d (%s): %d elements, want %d", i, heads[i], counts[i], n)
				}
			}
			for objIdx, want := range map[int]map[string]string{c.current: c.loader, 0: c.other} {
				for name, v := range want {
					if got, ok := objs[objIdx].Get(name); !ok || got != v {
						t.Errorf("%s: %s = %q (%v), want %q", heads[objIdx], name, got, ok, v)
					}
				}
			}
			if id := objs[c.current].Elements[0]; id.Value != "{current}" {
				t.Errorf("first element of the loader %+v, want its identifier {current}", id)
			}

			// The backend, fed this output as bcdedit's, reads the loader's
			// elements, and tsc-sync-policy reads the element as absent.
			b := &backend.BCD{Run: func(args ...string) ([]byte, error) { return out, nil }}
			for name, v := range c.loader {
				got, err := b.Read(backend.Loc{Backend: backend.BackendBCD, Path: "{current}", Name: name})
				if err != nil || string(got.Data) != v {
					t.Errorf("Read %s: %q, %v; want %q", name, got.Data, err, v)
				}
			}
			env := &Env{Backends: map[string]backend.Backend{backend.BackendBCD: b}}
			r := get(t, env, "tsc-sync-policy", Selector{})
			if len(r.Items) != 1 || r.Items[0].Raw == nil || !r.Items[0].Raw.IsAbsent() || !strings.HasPrefix(r.Items[0].Meaning, "absent: default") {
				t.Errorf("tsc-sync-policy reading %+v", r.Items)
			}
		})
	}
}

// bcdedit translates the identifier's label (a German Windows 10 prints
// "Bezeichner", a French one "identificateur", a Chinese one "标识符") and
// a Japanese capture has no blank line between objects
// (testdata/bcdedit.PROVENANCE). The backend finds {current} by the value
// of each object's first element, not by the English label: reading the
// boot manager in its place would report the loader's elements as absent.
func TestBCDCurrentAmongTranslatedObjects(t *testing.T) {
	real, err := os.ReadFile("testdata/bcdedit-packt-win10.txt")
	if err != nil {
		t.Fatal(err)
	}
	de := strings.ReplaceAll(string(real), "identifier  ", "Bezeichner  ")
	de = strings.NewReplacer("Windows Boot Manager\n", "Windows-Start-Manager\n", "Windows Boot Loader\n", "Windows-Startladeprogramm\n").Replace(de)
	for name, out := range map[string]string{
		"de":            de,
		"de, no blanks": strings.ReplaceAll(de, "\n\n", "\n"),
		"zh":            strings.ReplaceAll(string(real), "identifier              ", "标识符                  "),
	} {
		b := &backend.BCD{Run: func(args ...string) ([]byte, error) { return []byte(out), nil }}
		v, err := b.Read(backend.Loc{Backend: backend.BackendBCD, Path: "{current}", Name: "path"})
		if err != nil || string(v.Data) != `\WINDOWS\system32\winload.efi` {
			t.Errorf("%s: path of {current} %q, %v; want the loader's", name, v.Data, err)
		}
		if v, err := b.Read(backend.Loc{Backend: backend.BackendBCD, Path: "{current}", Name: "debug"}); err != nil || string(v.Data) != "Yes" {
			t.Errorf("%s: debug of {current} %q, %v", name, v.Data, err)
		}
	}
	// Several objects and none is {current}: an error, not the first one.
	b := &backend.BCD{Run: func(args ...string) ([]byte, error) { return real, nil }}
	if _, err := b.Read(backend.Loc{Backend: backend.BackendBCD, Path: "{default}", Name: "path"}); err == nil {
		t.Error("read {default} from objects that do not hold it")
	}
}
