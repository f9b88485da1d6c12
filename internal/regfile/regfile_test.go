package regfile

import (
	"bytes"
	"testing"
	"unicode/utf16"
)

func TestSpelling(t *testing.T) {
	for in, want := range map[string]string{
		`HKLM\SOFTWARE\x`:                `HKEY_LOCAL_MACHINE\SOFTWARE\x`,
		`hklm\SOFTWARE`:                  `HKEY_LOCAL_MACHINE\SOFTWARE`,
		`HKEY_LOCAL_MACHINE\SYSTEM`:      `HKEY_LOCAL_MACHINE\SYSTEM`,
		`HKCU\Console`:                   `HKEY_CURRENT_USER\Console`,
		`HKU\.DEFAULT`:                   `HKEY_USERS\.DEFAULT`,
		`HKLM`:                           `HKEY_LOCAL_MACHINE`,
		`Unknown\Root`:                   `Unknown\Root`,
		NetClassKey + `\0007\Ndi\Params`: `HKEY_LOCAL_MACHINE\SYSTEM\CurrentControlSet\Control\Class\{4d36e972-e325-11ce-bfc1-08002be10318}\0007\Ndi\Params`,
	} {
		if got := LongRoot(in); got != want {
			t.Errorf("LongRoot(%q) = %q, want %q", in, got, want)
		}
	}
	if Key(`HKLM\A`) != `[HKEY_LOCAL_MACHINE\A]` || DeleteKey(`HKLM\A`) != `[-HKEY_LOCAL_MACHINE\A]` {
		t.Errorf("Key %q DeleteKey %q", Key(`HKLM\A`), DeleteKey(`HKLM\A`))
	}
	if got := String(`C:\Games\"x".exe`); got != `"C:\\Games\\\"x\".exe"` {
		t.Errorf("String = %s", got)
	}
	if DWORD(0x26) != "dword:00000026" || DWORD(0xFFFFFFFF) != "dword:ffffffff" {
		t.Errorf("DWORD %s %s", DWORD(0x26), DWORD(0xFFFFFFFF))
	}
	if got := Hex(3, []byte{1, 0xab}); got != "hex:01,ab" {
		t.Errorf("binary %s", got)
	}
	if got := Hex(11, []byte{1, 0, 0, 0, 0, 0, 0, 0}); got != "hex(b):01,00,00,00,00,00,00,00" {
		t.Errorf("qword %s", got)
	}
	if got := Hex(7, nil); got != "hex(7):" {
		t.Errorf("empty multi-string %s", got)
	}
}

func TestEncode(t *testing.T) {
	text := Header + "\n\n[HKEY_CURRENT_USER\\x]\r\n\"Name\"=\"Grüße €\"\n"
	b := Encode(text)
	if !bytes.HasPrefix(b, []byte{0xFF, 0xFE}) || len(b)%2 != 0 {
		t.Fatalf("no UTF-16LE byte order mark: % x", b[:4])
	}
	u := make([]uint16, (len(b)-2)/2)
	for i := range u {
		u[i] = uint16(b[2+2*i]) | uint16(b[3+2*i])<<8
	}
	want := Header + "\r\n\r\n[HKEY_CURRENT_USER\\x]\r\n\"Name\"=\"Grüße €\"\r\n"
	if got := string(utf16.Decode(u)); got != want {
		t.Errorf("decoded %q, want %q (every line end CRLF, none doubled)", got, want)
	}
}
