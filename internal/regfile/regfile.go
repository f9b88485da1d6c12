// Package regfile writes Windows Registry Editor files (.reg, version 5)
// the way regedit exports them: one spelling of keys and data, and one
// encoding (UTF-16LE with a byte order mark, CRLF line ends). Every .reg
// latlab writes goes through it.
package regfile

import (
	"encoding/binary"
	"fmt"
	"strings"
	"unicode/utf16"
)

// Header is the first line of a version 5 .reg file.
const Header = "Windows Registry Editor Version 5.00"

// NetClassKey is the device class key of network adapters; each adapter's
// driver settings live in a numbered sub-key (0000, 0001 ...).
const NetClassKey = `HKLM\SYSTEM\CurrentControlSet\Control\Class\{4d36e972-e325-11ce-bfc1-08002be10318}`

// rootNames are the five root keys, short and long: latlab's paths spell
// them short, a .reg file needs them long.
var rootNames = [...]struct{ short, long string }{
	{"HKLM", "HKEY_LOCAL_MACHINE"}, {"HKCU", "HKEY_CURRENT_USER"}, {"HKU", "HKEY_USERS"},
	{"HKCR", "HKEY_CLASSES_ROOT"}, {"HKCC", "HKEY_CURRENT_CONFIG"},
}

// withRoot respells the root of path as pick chooses from its names;
// false when the root is none of the five.
func withRoot(path string, pick func(short, long string) string) (string, bool) {
	root, rest, ok := strings.Cut(path, `\`)
	for _, r := range rootNames {
		if strings.EqualFold(root, r.short) || strings.EqualFold(root, r.long) {
			if !ok {
				return pick(r.short, r.long), true
			}
			return pick(r.short, r.long) + `\` + rest, true
		}
	}
	return path, false
}

// LongRoot spells the root of a key path in full (HKLM\X ->
// HKEY_LOCAL_MACHINE\X), as regedit requires in a .reg file.
func LongRoot(path string) string {
	p, _ := withRoot(path, func(_, long string) string { return long })
	return p
}

// Key is the line that opens (creates) a key.
func Key(path string) string { return "[" + LongRoot(path) + "]" }

// DeleteKey is the line that deletes a key.
func DeleteKey(path string) string { return "[-" + LongRoot(path) + "]" }

// String quotes a value name or REG_SZ data: backslashes and quotes are
// escaped.
func String(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}

// DWORD is REG_DWORD data.
func DWORD(n uint32) string { return fmt.Sprintf("dword:%08x", n) }

// Hex is data of registry type typ as bytes: hex: for REG_BINARY,
// hex(N): for every other type.
func Hex(typ uint32, b []byte) string {
	parts := make([]string, len(b))
	for i, c := range b {
		parts[i] = fmt.Sprintf("%02x", c)
	}
	if typ == 3 { // REG_BINARY
		return "hex:" + strings.Join(parts, ",")
	}
	return fmt.Sprintf("hex(%x):%s", typ, strings.Join(parts, ","))
}

// Encode turns the text of a .reg file into its bytes: line ends made
// CRLF (whatever they were), UTF-16LE with a byte order mark, as regedit
// writes version 5 files and reads them back without losing characters
// outside ASCII.
func Encode(text string) []byte {
	text = strings.ReplaceAll(text, "\r\n", "\n")
	text = strings.ReplaceAll(text, "\n", "\r\n")
	u := utf16.Encode([]rune(text))
	b := make([]byte, 2, 2+2*len(u))
	b[0], b[1] = 0xFF, 0xFE
	for _, c := range u {
		b = binary.LittleEndian.AppendUint16(b, c)
	}
	return b
}
