package inf

import "github.com/latlab/latlab/internal/result"

// The kinds of `latlab inf --json`: without --device the listing of every
// device's install section per decoration, with it one device's keywords.
var (
	KindList   = result.Register[Listing]("inf-list", "every device ID of a driver INF with its install section per decoration (latlab inf FILE)")
	KindDevice = result.Register[DeviceReport]("inf-device", "the keywords a driver INF installs for one device, and the RSS keywords it leaves out (latlab inf FILE --device ID)")
)
