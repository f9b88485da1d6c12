package netload

import (
	"testing"

	"github.com/latlab/latlab/internal/testutil"
)

// The RSS experiment's and the servers' options are checked for every
// caller, not only the command line.
func TestRSSAndServeOptionsValidate(t *testing.T) {
	for _, c := range []struct {
		name string
		err  error
		want string // "" = valid
	}{
		{"rss local server", RSSOptions{Share: 0.05}.Validate(), ""},
		{"rss peer", RSSOptions{Peer: "10.0.0.2", EchoPort: 7, Share: 1}.Validate(), ""},
		{"rss share", RSSOptions{Share: 0}.Validate(), "invalid --share 0: accepted a fraction in (0, 1]"},
		{"rss peer port", RSSOptions{Peer: "10.0.0.2", Share: 0.5}.Validate(), "invalid --echo-port 0: accepted 1-65535"},
		{"serve", ServeOptions{Addr: "127.0.0.1", EchoPort: 0, DiscardPort: -1, SinkPort: -1}.Validate(), ""},
		{"serve addr", ServeOptions{Addr: "localhost"}.Validate(), `invalid --listen "localhost": want an IP such as 127.0.0.1`},
		{"serve addr with port", ServeOptions{Addr: "127.0.0.1:5201"}.Validate(),
			`invalid --listen "127.0.0.1:5201": give the address alone (--listen 127.0.0.1) and the ports with --echo-port and --discard-port`},
		{"serve off", ServeOptions{Addr: "::1", EchoPort: -1, DiscardPort: -1, SinkPort: -1}.Validate(), "every server is off"},
		{"serve conns", ServeOptions{Addr: "::1", MaxConns: -1}.Validate(), "invalid --max-conns -1"},
	} {
		testutil.CheckBadInput(t, c.name, c.err, c.want)
	}
}
