package knob

import (
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/latlab/latlab/internal/regfile"
)

// Script formats: what `knob set --dry-run` prints and `knob export`
// writes, for people who would rather apply a change by hand.
const (
	FormatReg = "reg" // a .reg file for regedit (bcdedit lines as comments)
	FormatPS1 = "ps1" // PowerShell
	FormatSh  = "sh"  // POSIX shell
)

// Script renders changes (their New values) in a format.
func Script(changes []Change, format string) ([]string, error) {
	switch format {
	case FormatReg:
		return regScript(changes), nil
	case FormatPS1:
		return ps1Script(changes), nil
	case FormatSh:
		return shScript(changes), nil
	}
	return nil, inputf("unknown format %q: accepted reg, ps1, sh", format)
}

// DefaultFormat is the natural script format of the knob's OS.
func DefaultFormat(os string) string {
	if os == "windows" {
		return FormatReg
	}
	return FormatSh
}

func regData(v Value) string {
	switch v.Type {
	case TypeDWORD:
		if len(v.Data) == 4 {
			return regfile.DWORD(binary.LittleEndian.Uint32(v.Data))
		}
	case TypeSZ:
		s := v.String()
		if !strings.ContainsAny(s, "\r\n") {
			return regfile.String(s)
		}
	}
	t, _ := RegTypeNumber(v.Type)
	return regfile.Hex(t, v.Data)
}

func regScript(changes []Change) []string {
	out := []string{regfile.Header}
	cur := ""
	for _, c := range changes {
		if c.Skip != "" {
			out = append(out, "", "; "+skipped(c))
			cur = ""
			continue
		}
		switch c.Loc.Backend {
		case BackendRegistry:
		case BackendBCD:
			out = append(out, "", "; not a registry value; run in an elevated prompt:", "; "+bcdLine(c))
			cur = ""
			continue
		default:
			out = append(out, "", "; "+c.Loc.String()+": not a registry value")
			cur = ""
			continue
		}
		key := regfile.LongRoot(c.Loc.Path)
		if c.Loc.Name == "" {
			if c.New.IsAbsent() {
				out = append(out, "", regfile.DeleteKey(key))
			} else {
				out = append(out, "", regfile.Key(key))
			}
			cur = ""
			if !c.New.IsAbsent() {
				cur = key
			}
			continue
		}
		if key != cur {
			out = append(out, "", regfile.Key(key))
			cur = key
		}
		name := regfile.String(c.Loc.Name)
		if c.New.IsAbsent() {
			out = append(out, name+"=-")
		} else {
			out = append(out, name+"="+regData(c.New))
		}
	}
	return append(out, "")
}

// skipped is the comment that stands for a change not to be made.
func skipped(c Change) string { return c.Loc.String() + ": left alone: " + c.Skip }

func psQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

func psPath(p string) string {
	root, rest, _ := strings.Cut(p, `\`)
	switch strings.ToUpper(root) {
	case "HKLM", "HKEY_LOCAL_MACHINE":
		root = "HKLM:"
	case "HKCU", "HKEY_CURRENT_USER":
		root = "HKCU:"
	default:
		root = "Registry::" + root
	}
	return psQuote(root + `\` + rest)
}

func ps1Script(changes []Change) []string {
	out := []string{"# run in an elevated PowerShell", "$ErrorActionPreference = 'Stop'"}
	for _, c := range changes {
		if c.Skip != "" {
			out = append(out, "# "+skipped(c))
			continue
		}
		switch c.Loc.Backend {
		case BackendBCD:
			out = append(out, bcdLine(c))
			continue
		case BackendRegistry:
		default:
			out = append(out, "# "+c.Loc.String()+": not a registry value")
			continue
		}
		p := psPath(c.Loc.Path)
		if c.Loc.Name == "" {
			if c.New.IsAbsent() {
				out = append(out, "Remove-Item -LiteralPath "+p)
			} else {
				out = append(out, "New-Item -Path "+p+" -Force | Out-Null")
			}
			continue
		}
		n := psQuote(c.Loc.Name)
		if c.New.IsAbsent() {
			out = append(out, "Remove-ItemProperty -LiteralPath "+p+" -Name "+n)
			continue
		}
		var typ, val string
		switch c.New.Type {
		case TypeDWORD:
			typ, val = "DWord", c.New.String()
		case TypeQWORD:
			typ, val = "QWord", c.New.String()
		case TypeSZ:
			typ, val = "String", psQuote(c.New.String())
		case TypeExpandSZ:
			typ, val = "ExpandString", psQuote(c.New.String())
		case TypeMultiSZ:
			var qs []string
			for _, s := range strings.Split(c.New.String(), ";") {
				qs = append(qs, psQuote(s))
			}
			typ, val = "MultiString", "@("+strings.Join(qs, ",")+")"
		default:
			var bs []string
			for _, b := range c.New.Data {
				bs = append(bs, fmt.Sprintf("0x%02x", b))
			}
			typ, val = "Binary", "([byte[]]("+strings.Join(bs, ",")+"))"
		}
		out = append(out, fmt.Sprintf("New-ItemProperty -LiteralPath %s -Name %s -PropertyType %s -Value %s -Force | Out-Null", p, n, typ, val))
	}
	return out
}

func bcdLine(c Change) string {
	if c.New.IsAbsent() {
		return fmt.Sprintf("bcdedit /deletevalue %s %s", c.Loc.Path, c.Loc.Name)
	}
	return fmt.Sprintf("bcdedit /set %s %s %s", c.Loc.Path, c.Loc.Name, strings.ToLower(c.New.String()))
}

func shQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func shScript(changes []Change) []string {
	out := []string{"#!/bin/sh", "# run as root", "set -e"}
	for _, c := range changes {
		if c.Skip != "" {
			out = append(out, "# "+skipped(c))
			continue
		}
		switch c.Loc.Backend {
		case BackendFile:
			out = append(out, fmt.Sprintf("printf '%%s\\n' %s > %s", shQuote(strings.TrimRight(string(c.New.Data), "\n")), shQuote(c.Loc.String())))
		case BackendEthtool:
			co, err := DecodeCoalesce(c.New)
			if err != nil {
				out = append(out, "# "+c.Loc.String()+": "+err.Error())
				continue
			}
			old, _ := DecodeCoalesce(c.Old)
			args := []string{"ethtool", "-C", shQuote(c.Loc.Path)}
			for i, f := range coalesceFields {
				if c.Old.IsAbsent() || old[i] != co[i] || c.Old.Type == "" {
					v := fmt.Sprint(co[i])
					if strings.HasPrefix(f.name, "adaptive-") {
						v = onOff(co[i])
					}
					args = append(args, f.name, v)
				}
			}
			out = append(out, strings.Join(args, " "))
		default:
			out = append(out, "# "+c.Loc.String()+": not a Linux setting")
		}
	}
	return out
}
