package netload

import (
	"fmt"
	"sort"
	"strings"
)

// Profile is a named UDP traffic shape: a constant packet rate of
// fixed-size datagrams, each echoed back by the peer.
type Profile struct {
	Name    string  `json:"name"`
	RatePPS float64 `json:"rate_pps"`
	Size    int     `json:"size_bytes"` // UDP payload
	About   string  `json:"about"`
}

// The profiles' numbers and where they come from (docs/commands/net.md repeats them):
//
//   - game: a fixed 128 Hz tick, the server tick rate of VALORANT and of
//     CS:GO's 128-tick servers (Counter-Strike 2 uses 64 Hz: --rate 64).
//     A 256-byte payload sits inside the 100-300 B range of per-tick state
//     updates; with IPv4 and UDP headers (28 B) that is
//     128 x 284 x 8 = 291 kbit/s in each direction, the ~300 kbit/s of
//     VALORANT deathmatch traffic PC-Tuning simulated with iperf ("How
//     many RSS Queues do you need?", valleyofdoom,
//     https://github.com/valleyofdoom/PC-Tuning/blob/main/docs/research.md#how-many-rss-queues-do-you-need).
//   - voice: G.711 with 20 ms packetisation, the VoIP default: 50 packets/s
//     of 160 bytes (8000 samples/s x 1 byte x 20 ms), 64 kbit/s of payload.
//   - bulk: 1400-byte datagrams (fits a 1500-byte MTU under IPv4 and IPv6
//     headers without fragmenting) paced at 1 Gbit/s, PC-Tuning's second
//     load; a machine that cannot keep up sends as fast as it can and the
//     result says how far behind the schedule it fell.
var profiles = map[string]Profile{
	"game": {Name: "game", RatePPS: 128, Size: 256,
		About: "128 Hz tick, 256 B payload: ~291 kbit/s each way at the IP layer"},
	"voice": {Name: "voice", RatePPS: 50, Size: 160,
		About: "G.711 / 20 ms: 50 packets/s of 160 B, 64 kbit/s of payload each way"},
	"bulk": {Name: "bulk", RatePPS: 1e9 / (1400 * 8), Size: 1400,
		About: "1400 B datagrams paced at 1 Gbit/s of payload"},
}

// Profiles lists the profile names.
func Profiles() []string {
	var n []string
	for k := range profiles {
		n = append(n, k)
	}
	sort.Strings(n)
	return n
}

// LookupProfile returns a named profile.
func LookupProfile(name string) (Profile, error) {
	p, ok := profiles[strings.ToLower(name)]
	if !ok {
		return Profile{}, fmt.Errorf("unknown profile %q: accepted %s", name, strings.Join(Profiles(), ", "))
	}
	return p, nil
}

// Override puts the rate and size the user gave in place of the profile's
// (nil keeps the profile's). Traffic changed that way is no longer the
// named profile, so it loses the name and the description: a result must
// not claim a shape it did not send.
func (p Profile) Override(rate *float64, size *int) Profile {
	if rate == nil && size == nil {
		return p
	}
	if rate != nil {
		p.RatePPS = *rate
	}
	if size != nil {
		p.Size = *size
	}
	p.Name, p.About = "", ""
	return p
}
