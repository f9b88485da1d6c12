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
