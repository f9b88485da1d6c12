package host

import (
	"fmt"
	"strings"

	"golang.org/x/sys/windows"
	"golang.org/x/sys/windows/registry"

	"github.com/latlab/latlab/internal/clock"
)

func collect() Facts {
	var f Facts
	v := windows.RtlGetVersion()
	f.Build = v.BuildNumber
	f.Kernel = fmt.Sprintf("%d.%d.%d", v.MajorVersion, v.MinorVersion, v.BuildNumber)
	if k, err := registry.OpenKey(registry.LOCAL_MACHINE, `SOFTWARE\Microsoft\Windows NT\CurrentVersion`, registry.QUERY_VALUE); err == nil {
		name, _, _ := k.GetStringValue("ProductName")
		disp, _, _ := k.GetStringValue("DisplayVersion")
		if ubr, _, err := k.GetIntegerValue("UBR"); err == nil {
			f.Kernel = fmt.Sprintf("%s.%d", f.Kernel, ubr)
		}
		k.Close()
		// ProductName still says "Windows 10" on Windows 11; the build tells.
		if v.BuildNumber >= 22000 && strings.Contains(name, "Windows 10") {
			name = strings.Replace(name, "Windows 10", "Windows 11", 1)
		}
		f.OSVersion = strings.TrimSpace(name + " " + disp)
	}
	if f.OSVersion == "" {
		f.OSVersion = "Windows " + f.Kernel
	}
	if k, err := registry.OpenKey(registry.LOCAL_MACHINE, `HARDWARE\DESCRIPTION\System\CentralProcessor\0`, registry.QUERY_VALUE); err == nil {
		s, _, _ := k.GetStringValue("ProcessorNameString")
		f.CPUModel = strings.TrimSpace(s)
		k.Close()
	}
	f.ClockSource = clock.Source()
	return f
}
