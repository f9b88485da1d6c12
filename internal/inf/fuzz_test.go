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
		"virtio-win/netkvm-base.txt", "netadapter-cx-samples/RtEthSample.inx", "windows-driver-samples/netvadapter.inf", "ansi-codepages.inf",
		"e1r68-like.inf", "net1ic64-like.inf", "e2f-1.1.3.34-like.inf", "el2000x-like.inf", "netrtp5-like.inf", "setupapi-syntax.inf"} {
		b, err := os.ReadFile("testdata/" + name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
	f.Add("[Manufacturer]\n%M%=A,NTamd64\n[A.NTamd64]\nd=I,X\n[I]\nNeeds=I\n")
	f.Add("[a]\nk=\"unterminated\\\n")
	// decorations Windows NT does not select, beside one it does
	f.Add("[Manufacturer]\nM=A,ME,Win64,NTmips,NTamd64.x,NTamd64\n[A.ME]\nd=I,X\n[A.NTamd64]\nd=I,X\n[I]\n")
	// empty fields between a line's IDs, and control bytes in comments
	f.Add("[Manufacturer]\nM=A,NTamd64\n[A.NTamd64]\nd=I,X,,Y\ne=I,,,Y,\n[I];\x01\nAddReg=R ;\x02\\\n[R]\nHKR,,\"a;\",,1 ;\x00\n;\x02\x02\x01\n\x1a")
	// headers as SetupAPI reads them (';', quotes, spaces, nothing
	// between the brackets, text and a '\' after), a Ctrl-Z with text and
	// binary bytes after it, and lines ended by a lone CR
	f.Add("[Manufacturer]\nM=\"A;1\",NTamd64\n[A;1.NTamd64] x \\\nd=\" I \",X\n[ I ]\n[]\nNeeds=I\n\x1a[I]\nNeeds=I\x00")
	f.Add("[Manufacturer]\rM=A,NTamd64\r[A.NTamd64]\rd=I,X\r[I]\r\n[\r]\nAddReg=R\r\n")
	f.Add(string([]byte{0xFF, 0xFE, '[', 0, 'a', 0, ']', 0, 0x1A, 0, 0x00}))
	// control characters in headers and after them, NULs in headers,
	// keys and values, a name at SetupAPI's limit and one over it, and
	// references with the white space SetupAPI trims or keeps
	f.Add("[Manufacturer]\nM=A\x00,NTamd64\n [A \x00.NTamd64] \x01\x1b\nd\x00=I\b\x00,X \x00\n[I\b]\nAddReg=R\x00, \x00R\n[R ]\n[ R]\nHKR,,A\x00,,1\n")
	f.Add("[Manufacturer]\nM=A,NTamd64\n[A.NTamd64]\nd=" + strings.Repeat("i", 255) + ",X\n[" + strings.Repeat("i", 255) + "]\n[" + strings.Repeat("j", 256) + "]\n")
	f.Add("[Manufacturer]\nM=A,NTamd64\n[A.NTamd64]\nd=I,X\n[I]\nAddReg=%q%,\u00a0R\u00a0,\"\u00a0R\",\u3000R\ufeff\n[\u00a0R]\n[R]\n[Strings]\nq=\" R \"\n")
	// '\' continuations as SetupAPI joins them: in a models line, a key,
	// a quoted value, before a comment, a blank line, a header's line, a
	// NUL and the end of the file, and a line of a '\' alone
	f.Add("[Manufacturer]\nM=A,\\\n NTamd64\n[A.NTamd64]\nd=I,PCI\\VEN_1 \\ \\ ;c\r\n  &DEV_2\n[I]\nAdd\\\nReg=\"R\"\\\n,\"S\\\"\n\\\n\n[R]\nHKR,,A\x00\\\n\x00,,1\\\n[S]\n\\ ")
	f.Add("[Manufacturer]\nM=A\\\x00\\\n\n[A]\nd=I,X\\\n;\\\n[I]\\\nNeeds=I\\\x1a")
	// control characters in keys and values, read as text, and quotes
	// left open at a CRLF, which keep the line's white space and its CR
	f.Add("[Manufacturer]\r\nM\x01=A\x02,NTamd64\x7f\r\n[A\x02.NTamd64]\r\nd=\"I \r\n[I \r]\r\nAddReg=\"R\x1b\t\r\n[R\x1b\t\r]\r\nHKR,,\x0e,,1\x0b\x0c\r\n")
	// text before the first section, a header after it on its line and
	// one in a comment, with a [Strings] section; subkeys and flags with
	// the white space and backslashes SetupAPI keeps, and an install
	// section and a decoration of white space and of nothing
	f.Add("ab \\ \"[Manufacturer]\nM=A,NTamd64,\n;x [B]\n[A.NTamd64]\nd=\" \",X\ne=,X\n[ ]\nAddReg=R\n[R]\nHKR,\\Ndi\\Params\\A,x,, 1\nHKR,%s%,y,%f%,1\nHKR,Ndi\\\\Params\\B\\,ParamDesc,010,1\n[Strings]\ns=\" Ndi\\Params\\C \"\nf=\"0x10001 \"\n")
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
		// the localized strings of an ANSI file are read in another code page
		_, _ = List(file, tg, "0804", nil)
	})
}

// FuzzINFWork: the work of following install chains is bounded in
// counted entries, not time: one install section processes each section
// of the file at most twice (once as a DDInstall or Needs section, once
// as an AddReg section), whatever the file names how often, and a
// listing or a device report stops at MaxApplied. Notes stay within
// MaxNotes.
func FuzzINFWork(f *testing.F) {
	f.Add(hostileHead + "[I]\nAddReg=R,R,R,R\nAddReg=R\nNeeds=N,N\n[N]\nAddReg=R\nNeeds=I\n[R]\nHKR,,A,,1\n")
	f.Add(needsChain(70))
	// DelReg sections deleting keys, values and choices before and
	// between AddReg sections, along a Needs chain
	f.Add(hostileHead + "[I]\nDelReg=D,D\nAddReg=R\nNeeds=N\n[N]\nDelReg=D,E\nAddReg=R\n[D]\nHKR,Ndi\\Params\nHKR,,A\nHKR,Ndi\\Params\\E,,0x2000\n[E]\nHKR,Ndi\\Params\\E\\Enum,1\nHKR,Ndi,Service\nHKR,,\n[R]\nHKR,Ndi\\Params\\E\\Enum,1,,a\nHKR,,A,,1\nHKR,,E,,1\n")
	f.Add(hostileHead + "[I]\nNeeds=N0,N1,N2\n[N0]\nAddReg=R\n[N1]\nAddReg=R\n[N2]\nNeeds=N0\n[R]\nHKR,Ndi\\Params\\E\\Enum,1,,a\nHKR,Ndi\\Params\\E\\Enum,1,4\n")
	// an install section whose AddReg and Needs lines go on over '\'
	// continuations, into a header's line and a line of a '\' alone
	f.Add(hostileHead + "[I]\nAddReg=R,\\\n R,\\ ;\n R\nNee\\\nds=N,\\\n[N]\n\\\n[N]\nAddReg=R\\\n\n[R]\nHKR,Ndi\\Params\\E\\\nnum,1,,a\\\n")
	// DelReg and AddReg lines whose flags SetupGetIntField cannot read
	// (applied with flags 0) and whose subkeys start or end with '\'
	f.Add(hostileHead + "[I]\nDelReg=D\nAddReg=R\n[D]\nHKR,Ndi\\Params\\E,,zz\nHKR,\\Ndi\\Params\nHKR,Ndi\\Params\\\\,,\" 0xA000\"\n[R]\nHKR,Ndi\\Params\\E\\Enum\\,1,1 ,a\nHKR,,E,-1,1\n")
	b, err := os.ReadFile("testdata/i225-like.inf")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(string(b))
	tg, _ := ParseTarget("10.0.22631", "workstation", "amd64")
	f.Fuzz(func(t *testing.T, in string) {
		file, err := Parse(strings.NewReader(in), "fuzz.inf")
		if err != nil {
			return
		}
		if len(file.Notes) > MaxNotes+1 {
			t.Fatalf("%d parse notes", len(file.Notes))
		}
		all := 0
		for _, s := range file.Sections {
			all += entries(file, s.Name)
		}
		for _, s := range file.Sections {
			w := &work{}
			inst, err := file.resolve(s.Name, tg, "", nil, w)
			if w.entries > 2*all {
				t.Fatalf("[%s]: %d entries processed, the file has %d", s.Name, w.entries, all)
			}
			if err == nil && len(inst.Notes) > MaxNotes+1 {
				t.Fatalf("[%s]: %d notes", s.Name, len(inst.Notes))
			}
		}
		w := &work{}
		if _, err := list(file, tg, "", nil, w); err == nil && w.entries > MaxApplied {
			t.Fatalf("listing: %d entries processed without an error", w.entries)
		}
	})
}
