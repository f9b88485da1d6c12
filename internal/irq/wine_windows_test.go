package irq

import "golang.org/x/sys/windows"

// underWine reports whether ntdll exports wine_get_version, which only
// Wine's does.
func underWine() bool {
	return windows.NewLazySystemDLL("ntdll.dll").NewProc("wine_get_version").Find() == nil
}
