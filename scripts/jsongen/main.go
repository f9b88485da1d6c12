// Command jsongen writes internal/tcpflow/connection_json.go, the code
// that appends a connection's compact JSON (see internal/result/jsongen).
// With -check it compares the file with what it would write and fails
// when they differ; the tests of internal/tcpflow do the same. If a change
// to the types leaves the file unable to compile, delete it and run this
// again.
//
// Usage: go run ./scripts/jsongen [-check]
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"

	"github.com/latlab/latlab/internal/result/jsongen"
	"github.com/latlab/latlab/internal/tcpflow"
)

// Cmd is how the generated file names its maker.
const Cmd = "go run ./scripts/jsongen"

func main() {
	check := flag.Bool("check", false, "compare with the file instead of writing it")
	flag.Parse()
	file := filepath.Join("internal", "tcpflow", tcpflow.JSONFile)
	pkg := reflect.TypeFor[tcpflow.Connection]().PkgPath()
	b, err := jsongen.Generate(Cmd, "tcpflow", pkg, tcpflow.JSONTypes...)
	if err == nil && *check {
		var old []byte
		if old, err = os.ReadFile(file); err == nil && !bytes.Equal(old, b) {
			err = fmt.Errorf("%s is out of date: run %s", file, Cmd)
		}
	} else if err == nil {
		err = os.WriteFile(file, b, 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "jsongen:", err)
		os.Exit(1)
	}
}
