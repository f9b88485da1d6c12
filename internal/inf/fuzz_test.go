package inf

import (
	"os"
	"strings"
	"testing"
)

// FuzzINFParse: any input parses or fails with a one-line error, and the
// install chain of whatever parses never panics or loops.
func FuzzINFParse(f *testing.F) {
	for _, name := range []string{"i225-like.inf", "loop.inf", "rtl-like-utf16.inf", "common-ndi.inf", "e2f-like.inf", "e1r63-like.inf",
		"virtio-win/netkvm-base.txt", "netadapter-cx-samples/RtEthSample.inx", "windows-driver-samples/netvadapter.inf"} {
		b, err := os.ReadFile("testdata/" + name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
	f.Add("[Manufacturer]\n%M%=A,NTamd64\n[A.NTamd64]\nd=I,X\n[I]\nNeeds=I\n")
	f.Add("[a]\nk=\"unterminated\\\n")
	tg, _ := ParseTarget("10.0.22631", "workstation", "amd64")
	f.Fuzz(func(t *testing.T, in string) {
		file, err := Parse(strings.NewReader(in), "fuzz.inf")
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("multi-line error %q", err)
			}
			return
		}
		l, err := List(file, tg, "", nil)
		if err != nil {
			return
		}
		for _, m := range l.Manufacturers {
			for _, s := range m.Sections {
				for _, d := range s.Devices {
					for _, id := range d.HardwareIDs {
						rep, err := Analyze(file, id, tg, "", nil)
						if err == nil && rep.Model != nil && rep.Device != id {
							t.Fatal("device changed")
						}
						if err == nil {
							_, _ = WriteReg(&strings.Builder{}, rep)
						}
					}
				}
			}
		}
	})
}
