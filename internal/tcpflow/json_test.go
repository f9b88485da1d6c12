package tcpflow

import (
	"encoding/json"
	"os"
	"reflect"
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
