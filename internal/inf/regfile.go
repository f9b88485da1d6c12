package inf

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/latlab/latlab/internal/regfile"
)

// NetClassKey is the registry key of the network adapter device class;
// each adapter's driver settings live in a numbered subkey (0000, 0001 ...).
const NetClassKey = regfile.NetClassKey

// InstancePlaceholder stands for the adapter's subkey in the .reg file.
const InstancePlaceholder = "NNNN"

// WriteReg writes a Windows Registry Editor file that adds the missing RSS
// keywords of rep, as the donor install section that has them defines
// them: the Ndi\Params entries (so the adapter's Advanced tab and
// Set-NetAdapterAdvancedProperty know them: ParamDesc, type, default,
// min, max, step, base, optional, any other value, and the Enum choices)
// and the value the driver reads. It returns how many keywords it wrote.
func WriteReg(w io.Writer, rep *DeviceReport) (int, error) {
	var b strings.Builder
	b.WriteString(regfile.Header + "\r\n\r\n")
	line := func(format string, a ...any) { fmt.Fprintf(&b, format+"\r\n", a...) }
	deco := DecorationName(rep.Decoration)
	line("; Written by latlab inf from %s for %s.", rep.File, rep.Device)
	line("; Windows %d.%d.%d %s (%s) uses [%s] -> [%s], which does not install these", rep.Target.Major, rep.Target.Minor, rep.Target.Build,
		ProductName(rep.Target.ProductType), deco, rep.ModelsSection, rep.InstallSection)
	line("; standardized RSS keywords; other install sections of the same INF do (copied from them below):")
	for _, d := range rep.Donors {
		line(";   [%s] (%s):", d.InstallSection, d.RelationText())
		line(";     %s", strings.Join(d.Keywords, ", "))
	}
	line(";")
	line("; Replace %s with the adapter's subkey under the network class key before importing.", InstancePlaceholder)
	line("; To find it: Device Manager > the adapter > Details > \"Driver key\" ends in \\%s; or in PowerShell:", InstancePlaceholder)
	line(";   Get-ChildItem 'HKLM:\\SYSTEM\\CurrentControlSet\\Control\\Class\\{4d36e972-e325-11ce-bfc1-08002be10318}' -ErrorAction SilentlyContinue |")
	line(";     Where-Object { (Get-ItemProperty $_.PSPath).MatchingDeviceId -like '%s*' } | Select-Object PSChildName", strings.ToLower(rep.matchingID()))
	line("; Then disable and re-enable the adapter (or reboot) so the driver reads the values. The driver")
	line("; must implement a keyword for it to have an effect: check with Get-NetAdapterRss afterwards.")
	n := 0
	for _, name := range rep.MissingRSS {
		k, d := rep.DonorOf(name)
		if k == nil {
			continue
		}
		n++
		base := NetClassKey + `\` + InstancePlaceholder
		b.WriteString("\r\n")
		if v := instanceValue(k); v != "" {
			line("%s", regfile.Key(base))
			line("%s=%s", regfile.String(k.Name), v)
			if !k.defined() {
				// Broadcom's b57nd60a.inf: a sibling writes
				// HKR,,*RSS,0,"1" and no Ndi\Params\*RSS, so the
				// keyword is set but not in the Advanced tab. An empty
				// key here would be one the donor never made.
				line("; [%s] writes the value only, no Ndi\\Params\\%s: the Advanced tab does not show it", d.InstallSection, k.Name)
				continue
			}
			b.WriteString("\r\n")
		}
		line("%s", regfile.Key(base+`\Ndi\Params\`+k.Name))
		for _, kv := range [][2]string{{"ParamDesc", k.ParamDesc}, {"type", k.Type}, {"default", k.Default}, {"min", k.Min}, {"max", k.Max}, {"step", k.Step}, {"base", k.Base}, {"optional", k.Optional}} {
			if kv[1] != "" {
				line("%s=%s", regfile.String(kv[0]), regfile.String(kv[1]))
			}
		}
		other := make([]string, 0, len(k.Other))
		for name := range k.Other {
			other = append(other, name)
		}
		sort.Strings(other)
		for _, name := range other {
			line("%s=%s", regfile.String(name), regfile.String(k.Other[name]))
		}
		if len(k.Values) > 0 {
			b.WriteString("\r\n")
			line("%s", regfile.Key(base+`\Ndi\Params\`+k.Name+`\Enum`))
			for _, e := range k.Values {
				line("%s=%s", regfile.String(e.Value), regfile.String(e.Desc))
			}
		}
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return 0, err
	}
	return n, nil
}

// defined reports whether the INF writes anything under the keyword's
// Ndi\Params key.
func (k *Keyword) defined() bool {
	return k.ParamDesc != "" || k.Type != "" || k.Default != "" || k.Min != "" || k.Max != "" || k.Step != "" || k.Base != "" ||
		k.Optional != "" || len(k.Other) > 0 || len(k.Values) > 0
}

// matchingID is the ID Windows records as the adapter's MatchingDeviceId:
// the INF line's ID the device matched, else the ID the user gave.
func (rep *DeviceReport) matchingID() string {
	if id, ok := rep.deviceIDs[strings.ToLower(rep.ModelsSection)]; ok && id != "" {
		return id
	}
	return rep.Device
}

// instanceValue is the HKR,,Name data the INF writes (as REG_DWORD when
// its flags say so), else the keyword's default as a string, which is how
// NDIS keywords are normally stored.
func instanceValue(k *Keyword) string {
	if k.Value != nil {
		if k.Value.IsDWORD() {
			if v, err := strconv.ParseUint(strings.TrimPrefix(strings.ToLower(k.Value.Data), "0x"), baseOf(k.Value.Data), 32); err == nil {
				return regfile.DWORD(uint32(v))
			}
		}
		return regfile.String(k.Value.Data)
	}
	if k.Default != "" {
		return regfile.String(k.Default)
	}
	return ""
}

func baseOf(s string) int {
	if strings.HasPrefix(strings.ToLower(s), "0x") {
		return 16
	}
	return 10
}
