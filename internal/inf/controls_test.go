package inf

import (
	"slices"
	"strings"
	"testing"
)

// controlCase is a text read after "[Test]\n" and the lines of [Test] as
// SetupAPI's functions return them (readAsSetupAPI's form): what Wine's
// SetupAPI printed for it under TestINFControlsSetupAPI.
type controlCase struct {
	name, in string
	want     []string
}

// readAsSetupAPI is each line of [Test] as SetupAPI's functions show it:
// "key=field|field", its %strkey% tokens substituted (SetupGetStringFieldW
// substitutes them), "-" for a line without a key; the one field of a
// line without '=' is its key too, and a line of an empty field (latlab
// keeps none) has the key "".
func readAsSetupAPI(f *File) []string {
	var out []string
	for _, l := range f.Section("Test").Lines {
		key, fields := l.Key, slices.Clone(l.Fields)
		switch {
		case l.HasKey:
		case len(fields) == 0:
			key, fields = "", []string{""}
		case len(fields) == 1:
			key = fields[0]
		default:
			key = "-"
		}
		if key != "-" {
			key = f.Expand(key, "")
		}
		for i := range fields {
			fields[i] = f.Expand(fields[i], "")
		}
		out = append(out, key+"="+strings.Join(fields, "|"))
	}
	return out
}

// Control characters, white space at a quote left open at a line's end,
// and the white space a %strkey% brings, each read as SetupAPI reads it.
// The expected lines are what Wine's SetupAPI printed for each text under
// TestINFControlsSetupAPI (SetupGetStringFieldW of each field), which
// also compares them with latlab's reading. latlab refused every control
// character here but the white space ones (tab, FF, CR) and DEL, and
// trimmed the white space a quote left open took in, and the CR before a
// line feed with it.
var controlCases = []controlCase{
	// each control character other than NUL (TestINFNUL), LF and
	// Ctrl-Z (TestINFReadAsSetupAPI) inside a key and a value, and around
	// a key, a value and an empty field: the white space ones (tab, VT,
	// FF, CR) trimmed at the ends, the others all kept
	{"0x01", "a\x01b=c\x01d\n\x01e\x01=\x01f\x01,\x01\n", []string{"a\x01b=c\x01d", "\x01e\x01=\x01f\x01|\x01"}},
	{"0x02", "a\x02b=c\x02d\n\x02e\x02=\x02f\x02,\x02\n", []string{"a\x02b=c\x02d", "\x02e\x02=\x02f\x02|\x02"}},
	{"0x03", "a\x03b=c\x03d\n\x03e\x03=\x03f\x03,\x03\n", []string{"a\x03b=c\x03d", "\x03e\x03=\x03f\x03|\x03"}},
	{"0x04", "a\x04b=c\x04d\n\x04e\x04=\x04f\x04,\x04\n", []string{"a\x04b=c\x04d", "\x04e\x04=\x04f\x04|\x04"}},
	{"0x05", "a\x05b=c\x05d\n\x05e\x05=\x05f\x05,\x05\n", []string{"a\x05b=c\x05d", "\x05e\x05=\x05f\x05|\x05"}},
	{"0x06", "a\x06b=c\x06d\n\x06e\x06=\x06f\x06,\x06\n", []string{"a\x06b=c\x06d", "\x06e\x06=\x06f\x06|\x06"}},
	{"0x07", "a\ab=c\ad\n\ae\a=\af\a,\a\n", []string{"a\ab=c\ad", "\ae\a=\af\a|\a"}},
	{"0x08", "a\bb=c\bd\n\be\b=\bf\b,\b\n", []string{"a\bb=c\bd", "\be\b=\bf\b|\b"}},
	{"0x09", "a\tb=c\td\n\te\t=\tf\t,\t\n", []string{"a\tb=c\td", "e=f|"}},
	{"0x0B", "a\vb=c\vd\n\ve\v=\vf\v,\v\n", []string{"a\vb=c\vd", "e=f|"}},
	{"0x0C", "a\fb=c\fd\n\fe\f=\ff\f,\f\n", []string{"a\fb=c\fd", "e=f|"}},
	{"0x0D", "a\rb=c\rd\n\re\r=\rf\r,\r\n", []string{"a\rb=c\rd", "e=f|"}},
	{"0x0E", "a\x0eb=c\x0ed\n\x0ee\x0e=\x0ef\x0e,\x0e\n", []string{"a\x0eb=c\x0ed", "\x0ee\x0e=\x0ef\x0e|\x0e"}},
	{"0x0F", "a\x0fb=c\x0fd\n\x0fe\x0f=\x0ff\x0f,\x0f\n", []string{"a\x0fb=c\x0fd", "\x0fe\x0f=\x0ff\x0f|\x0f"}},
	{"0x10", "a\x10b=c\x10d\n\x10e\x10=\x10f\x10,\x10\n", []string{"a\x10b=c\x10d", "\x10e\x10=\x10f\x10|\x10"}},
	{"0x11", "a\x11b=c\x11d\n\x11e\x11=\x11f\x11,\x11\n", []string{"a\x11b=c\x11d", "\x11e\x11=\x11f\x11|\x11"}},
	{"0x12", "a\x12b=c\x12d\n\x12e\x12=\x12f\x12,\x12\n", []string{"a\x12b=c\x12d", "\x12e\x12=\x12f\x12|\x12"}},
	{"0x13", "a\x13b=c\x13d\n\x13e\x13=\x13f\x13,\x13\n", []string{"a\x13b=c\x13d", "\x13e\x13=\x13f\x13|\x13"}},
	{"0x14", "a\x14b=c\x14d\n\x14e\x14=\x14f\x14,\x14\n", []string{"a\x14b=c\x14d", "\x14e\x14=\x14f\x14|\x14"}},
	{"0x15", "a\x15b=c\x15d\n\x15e\x15=\x15f\x15,\x15\n", []string{"a\x15b=c\x15d", "\x15e\x15=\x15f\x15|\x15"}},
	{"0x16", "a\x16b=c\x16d\n\x16e\x16=\x16f\x16,\x16\n", []string{"a\x16b=c\x16d", "\x16e\x16=\x16f\x16|\x16"}},
	{"0x17", "a\x17b=c\x17d\n\x17e\x17=\x17f\x17,\x17\n", []string{"a\x17b=c\x17d", "\x17e\x17=\x17f\x17|\x17"}},
	{"0x18", "a\x18b=c\x18d\n\x18e\x18=\x18f\x18,\x18\n", []string{"a\x18b=c\x18d", "\x18e\x18=\x18f\x18|\x18"}},
	{"0x19", "a\x19b=c\x19d\n\x19e\x19=\x19f\x19,\x19\n", []string{"a\x19b=c\x19d", "\x19e\x19=\x19f\x19|\x19"}},
	{"0x1B", "a\x1bb=c\x1bd\n\x1be\x1b=\x1bf\x1b,\x1b\n", []string{"a\x1bb=c\x1bd", "\x1be\x1b=\x1bf\x1b|\x1b"}},
	{"0x1C", "a\x1cb=c\x1cd\n\x1ce\x1c=\x1cf\x1c,\x1c\n", []string{"a\x1cb=c\x1cd", "\x1ce\x1c=\x1cf\x1c|\x1c"}},
	{"0x1D", "a\x1db=c\x1dd\n\x1de\x1d=\x1df\x1d,\x1d\n", []string{"a\x1db=c\x1dd", "\x1de\x1d=\x1df\x1d|\x1d"}},
	{"0x1E", "a\x1eb=c\x1ed\n\x1ee\x1e=\x1ef\x1e,\x1e\n", []string{"a\x1eb=c\x1ed", "\x1ee\x1e=\x1ef\x1e|\x1e"}},
	{"0x1F", "a\x1fb=c\x1fd\n\x1fe\x1f=\x1ff\x1f,\x1f\n", []string{"a\x1fb=c\x1fd", "\x1fe\x1f=\x1ff\x1f|\x1f"}},
	{"0x7F", "a\x7fb=c\x7fd\n\x7fe\x7f=\x7ff\x7f,\x7f\n", []string{"a\x7fb=c\x7fd", "\x7fe\x7f=\x7ff\x7f|\x7f"}},
	// a CR alone, and the one of a CRLF
	{"cr in a crlf file", "a\rb=c\rd\r\n\re\r=\rf\r,\r\r\n", []string{"a\rb=c\rd", "e=f|"}},
	{"ctrl-z in a value", "a=b\x1ac\nd=e\n", []string{"a=b"}},
	// a quote left open keeps what the line has to its end, white space
	// and a CRLF's CR, and the key or field it is in ends there
	{"open quote, crlf", "a=\"b  \r\nc=d\r\n", []string{"a=b  \r", "c=d"}},
	{"open quote, lf", "a=\"b  \nc=d\n", []string{"a=b  ", "c=d"}},
	{"open quote, white space", "a=\"b\t\v\f \r\n", []string{"a=b\t\v\f \r"}},
	{"open quote after text", "a=x  \"b, c  ;d \r\n", []string{"a=x  b, c  ;d \r"}},
	{"open quote in a key", "\"a  \r\n", []string{"a  \r=a  \r"}},
	{"open quote in a second field", "a=b , \"c \r\n", []string{"a=b|c \r"}},
	{"open quote with a control", "a=\"b\x01 \x01\r\n", []string{"a=b\x01 \x01\r"}},
	{"open quote at the end of the file", "a=\"b  ", []string{"a=b  "}},
	{"open quote at a ctrl-z", "a=\"b  \x1a", []string{"a=b  "}},
	{"open quote after a continuation", "a=x\\\r\n  \"y  \r\n", []string{"a=xy  \r"}},
	{"closed quote", "a=\"b  \"  \r\n", []string{"a=b  "}},
	// SetupGetStringFieldW substitutes a %strkey% and trims nothing: the
	// white space of a quoted [Strings] value stays (the registry roots,
	// decorations, hardware IDs and service names install.go reads)
	{"substituted white space", "a=%s%\nb=x%s%y\nc=%s%,%t%\n%t%=d\n[Strings]\ns=\" HKR \"\nt=\"\tNTamd64 \"\n", []string{"a= HKR ", "b=x HKR y", "c= HKR |\tNTamd64 ", "\tNTamd64 =d"}},
	{"substituted control", "a=%s%\n[Strings]\ns=\x01b\x02\n", []string{"a=\x01b\x02"}},
}

func TestINFControls(t *testing.T) {
	for _, c := range controlCases {
		f, err := Parse(strings.NewReader("[Test]\n"+c.in), "x.inf")
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if got := readAsSetupAPI(f); !slices.Equal(got, c.want) {
			t.Errorf("%s: %q, want %q (Wine's)", c.name, got, c.want)
		}
	}
}

// What a %strkey% brings is not trimmed where SetupAPI reads a field
// (SetupGetStringFieldW, whose untrimmed substitution Wine printed for
// controlCases' "substituted white space"), and latlab trimmed it after
// substitution in four places, each now read as Wine's SetupAPI reads it:
//
//   - a registry root: registry_callback compares it whole with
//     get_root_key and skips the line when it is no root, as
//     TestINFRegistryRootSetupAPI saw SetupInstallFromInfSectionW do
//     (" HKR" wrote nothing);
//   - a hardware ID: enum_compat_drivers_from_file reads it with
//     SetupGetStringFieldW and device_matches_id compares it whole
//     (wcsicmp) with the device's IDs, which hold no white space, so
//     " PCI\VEN_8086&DEV_0001" installs on no device;
//   - a decoration: version_is_compatible compares the text before its
//     first '.' with NT and NT<arch> (wcsnicmp), so " NTamd64.10.0" is none;
//   - a service name: add_service gives SetupGetStringFieldW's text to
//     CreateServiceW as it is.
func TestINFSubstitutedWhiteSpace(t *testing.T) {
	const in = "[Version]\nSignature=\"$Windows NT$\"\n[Manufacturer]\n%M%=Models,NTamd64,%dec%\n" +
		"[Models.NTamd64]\n%D%=Inst,%hw%\n%D%=Inst,PCI\\VEN_8086&DEV_0002\n" +
		"[Inst.NTamd64]\nAddReg=R\n[Inst.NTamd64.Services]\nAddService=%svc%,2,SvcInst\n[SvcInst]\n" +
		"[R]\n%root%,,A,,1\nHKR,,B,,1\n" +
		"[Strings]\nM=\"Lab\"\nD=\"Nic\"\nhw=\" PCI\\VEN_8086&DEV_0001\"\nsvc=\" latsvc \"\nroot=\" HKR\"\ndec=\" NTamd64.10.0\"\n"
	f, err := Parse(strings.NewReader(in), "x.inf")
	if err != nil {
		t.Fatal(err)
	}
	tg := mustTarget(t, "10.0.22631", "workstation")
	ms, err := f.Manufacturers("")
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 1 || len(ms[0].Skipped) != 1 || ms[0].Skipped[0].Raw != " NTamd64.10.0" || len(ms[0].Decorations) != 1 {
		t.Errorf("decorations %+v, skipped %+v: want NTamd64 and \" NTamd64.10.0\" skipped", ms[0].Decorations, ms[0].Skipped)
	}
	if _, err := Analyze(f, `PCI\VEN_8086&DEV_0001`, tg, "", nil); err == nil || !strings.Contains(err.Error(), "is in no models section") {
		t.Errorf("an ID with a space matched: %v", err)
	}
	rep, err := Analyze(f, `PCI\VEN_8086&DEV_0002`, tg, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	var vals []string
	for _, v := range rep.Values {
		vals = append(vals, v.Name)
	}
	if rep.Service != " latsvc " || !slices.Equal(vals, []string{"B"}) {
		t.Errorf("service %q, values %q: want \" latsvc \" and B", rep.Service, vals)
	}
	if notes := strings.Join(rep.Notes, "\n"); !strings.Contains(notes, `unknown registry root " HKR"`) {
		t.Errorf("notes %q: want the root \" HKR\" unknown", rep.Notes)
	}
	l, err := List(f, tg, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, s := range l.Manufacturers[0].Sections {
		for _, d := range s.Devices {
			ids = append(ids, d.HardwareIDs...)
		}
	}
	if !slices.Equal(ids, []string{` PCI\VEN_8086&DEV_0001`, `PCI\VEN_8086&DEV_0002`}) {
		t.Errorf("listed IDs %q", ids)
	}
}
