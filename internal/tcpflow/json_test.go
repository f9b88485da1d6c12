package tcpflow

import (
	"encoding/json"
	"net/netip"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/result/jsongen"
	"github.com/latlab/latlab/internal/testutil"
	"pgregory.net/rapid"
)

// TestJSONFileCurrent: connection_json.go is what the generator writes
// for JSONTypes (go run ./scripts/jsongen rewrites it).
func TestJSONFileCurrent(t *testing.T) {
	b, err := jsongen.Generate("go run ./scripts/jsongen", "tcpflow", reflect.TypeFor[Connection]().PkgPath(), JSONTypes...)
	if err != nil {
		t.Fatal(err)
	}
	old, err := os.ReadFile(JSONFile)
	if err != nil {
		t.Fatal(err)
	}
	if string(old) != string(b) {
		t.Fatalf("%s is out of date: run go run ./scripts/jsongen", JSONFile)
	}
}

// TestConnectionJSON: a connection's generated encoder writes what
// encoding/json writes, for any values of its fields.
func TestConnectionJSON(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var c Connection
		testutil.FillRandom(t, &c, true)
		want, werr := json.Marshal(&c)
		got, gerr := c.AppendCompactJSON([]byte("x"))
		if (werr != nil) != (gerr != nil) {
			t.Fatalf("encoding/json: %v; generated: %v", werr, gerr)
		}
		if werr == nil && string(got) != "x"+string(want) {
			t.Fatalf("generated:\n%s\nencoding/json:\n%s", got[1:], want)
		}
	})
}

// An endpoint is written as Wireshark writes it: the address as netip
// writes it, in brackets for IPv6 (not for an IPv4-mapped one), and the
// port.
func TestEndpointString(t *testing.T) {
	for _, tc := range []struct {
		addr string
		port uint16
		want string
	}{
		{"10.0.0.1", 443, "10.0.0.1:443"},
		{"255.255.255.255", 65535, "255.255.255.255:65535"},
		{"0.0.0.0", 0, "0.0.0.0:0"},
		{"2001:db8::1", 80, "[2001:db8::1]:80"},
		{"::ffff:192.0.2.1", 8080, "::ffff:192.0.2.1:8080"},
		{"fe80::1%eth0", 22, "[fe80::1%eth0]:22"},
		{"fe80::1%" + strings.Repeat("z", 100), 1, "[fe80::1%" + strings.Repeat("z", 100) + "]:1"},
		{"1111:2222:3333:4444:5555:6666:7777:8888", 65535, "[1111:2222:3333:4444:5555:6666:7777:8888]:65535"},
		{"", 9, "invalid IP:9"},
	} {
		var a netip.Addr
		if tc.addr != "" {
			a = netip.MustParseAddr(tc.addr)
		}
		if got := (Endpoint{a, tc.port}).String(); got != tc.want {
			t.Errorf("%s port %d: %q, want %q", tc.addr, tc.port, got, tc.want)
		}
	}
}

// fill writes every field of the summary: Run writes it over the
// summary of an earlier connection (Options.ConnSlot), whose values must
// not show through.
func TestFillWritesEveryField(t *testing.T) {
	st := &connState{}
	c := &st.c
	c.dir[0], c.dir[1] = &st.d[0], &st.d[1]
	c.Stream, c.FirstNs, c.LastNs = 3, 10, 25
	c.A = Endpoint{netip.MustParseAddr("10.0.0.1"), 1000}
	c.B = Endpoint{netip.MustParseAddr("10.0.0.2"), 80}
	st.d[0].Stats.Packets, st.d[1].Stats.AckedBytes = 4, 5
	var fresh, reused Connection
	fresh.fill(c)
	testutil.FillNonZero(&reused)
	reused.fill(c)
	if !reflect.DeepEqual(fresh, reused) {
		t.Errorf("filled over another connection:\n%+v\nwant\n%+v", reused, fresh)
	}
	if nc := NewConnection(c); !reflect.DeepEqual(nc, fresh) {
		t.Errorf("NewConnection:\n%+v\nwant\n%+v", nc, fresh)
	}
}

// randomEndpoint: an IPv4, IPv6 (with a zone or not) or IPv4-mapped
// address, or the zero one, and any port.
func randomEndpoint(t *rapid.T, label string) Endpoint {
	var a netip.Addr
	switch rapid.IntRange(0, 4).Draw(t, label+" kind") {
	case 0:
		a = netip.AddrFrom4([4]byte(rapid.SliceOfN(rapid.Byte(), 4, 4).Draw(t, label+" v4")))
	case 1, 2:
		a = netip.AddrFrom16([16]byte(rapid.SliceOfN(rapid.Byte(), 16, 16).Draw(t, label+" v6")))
		if a.Is6() && !a.Is4In6() && rapid.Bool().Draw(t, label+" zoned") {
			a = a.WithZone(rapid.StringMatching(`[a-z0-9]{1,8}`).Draw(t, label+" zone"))
		}
	case 3:
		a = netip.AddrFrom16(netip.AddrFrom4([4]byte{10, 0, 0, 1}).As16()) // IPv4-mapped
	}
	return Endpoint{Addr: a, Port: rapid.Uint16().Draw(t, label+" port")}
}

// TestEndpointText: an endpoint's text is the same from String,
// MarshalText and AppendText, reads back as the same endpoint, and is
// written into a connection's line as encoding/json writes it.
func TestEndpointText(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		e := randomEndpoint(t, "a")
		m, err := e.MarshalText()
		if err != nil {
			t.Fatal(err)
		}
		app, _ := e.AppendText([]byte("x"))
		if string(m) != e.String() || string(app) != "x"+e.String() {
			t.Fatalf("MarshalText %q, AppendText %q, String %q", m, app, e.String())
		}
		var back Endpoint
		if err := back.UnmarshalText(m); err != nil || back != e {
			t.Fatalf("%q read back as %v (%v), want %v", m, back, err, e)
		}
		c := Connection{A: e, B: randomEndpoint(t, "b")}
		want, _ := json.Marshal(&c)
		got, _ := c.AppendCompactJSON(nil)
		if string(got) != string(want) {
			t.Fatalf("generated:\n%s\nencoding/json:\n%s", got, want)
		}
	})
}

func TestEndpointTextForms(t *testing.T) {
	for _, tc := range []struct{ in, want, err string }{
		{in: "10.0.0.1:443", want: "10.0.0.1:443"},
		{in: "[2001:db8::1]:80", want: "[2001:db8::1]:80"},
		{in: "[fe80::1%eth0]:22", want: "[fe80::1%eth0]:22"},
		{in: "::ffff:10.0.0.1:80", want: "::ffff:10.0.0.1:80"}, // IPv4-mapped: no brackets
		{in: "invalid IP:7", want: "invalid IP:7"},
		{in: "10.0.0.1", err: "no port"},
		{in: "10.0.0.1:65536", err: "port"},
		{in: "10.0.0.1:", err: "port"},
		{in: "2001:db8::1:80", err: "without brackets"},
		{in: "[10.0.0.1]:80", err: "in brackets"},
		{in: "[2001:db8::1:80", err: "endpoint"},
		{in: "host:80", err: "endpoint"},
	} {
		var e Endpoint
		err := e.UnmarshalText([]byte(tc.in))
		switch {
		case tc.err != "":
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: %v (%v), want an error with %q", tc.in, e, err, tc.err)
			}
		case err != nil || e.String() != tc.want:
			t.Errorf("%q: %q (%v), want %q", tc.in, e.String(), err, tc.want)
		}
	}
}
