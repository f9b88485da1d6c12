// Command schemagen writes schema/latlab.result.schema.json, the JSON
// Schema of latlab's result document, from the Go types of the envelope
// and of every registered kind's payload. With -check it compares the
// file with what it would write and fails when they differ; the tests of
// internal/cli do the same.
//
// Usage: go run ./scripts/schemagen [-check] [-o schema/latlab.result.schema.json]
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"

	_ "github.com/latlab/latlab/internal/cli" // registers every command's kinds
	"github.com/latlab/latlab/internal/result/resultschema"
)

func main() {
	check := flag.Bool("check", false, "compare with the file instead of writing it")
	out := flag.String("o", resultschema.File, "file to write or check")
	flag.Parse()
	b, err := resultschema.Generate()
	if err != nil {
		fmt.Fprintln(os.Stderr, "schemagen:", err)
		os.Exit(1)
	}
	if *check {
		old, err := os.ReadFile(*out)
		if err != nil {
			fmt.Fprintln(os.Stderr, "schemagen:", err)
			os.Exit(1)
		}
		if !bytes.Equal(old, b) {
			fmt.Fprintf(os.Stderr, "schemagen: %s is out of date: run go run ./scripts/schemagen\n", *out)
			os.Exit(1)
		}
		return
	}
	if err := os.WriteFile(*out, b, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "schemagen:", err)
		os.Exit(1)
	}
}
