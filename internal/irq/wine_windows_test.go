package irq

import "github.com/latlab/latlab/internal/winapi"

// underWine reports whether ntdll exports wine_get_version, which only
// Wine's does.
func underWine() bool {
	return winapi.UnderWine()
}
