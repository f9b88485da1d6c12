// Command sbom writes a CycloneDX 1.5 SBOM (JSON) of a Go binary from the
// module list the Go toolchain embeds in it (what `go version -m` shows),
// so a release's bill of materials describes exactly what was linked and
// needs no network. GoReleaser calls it once per binary (.goreleaser.yaml).
//
// Usage: go run ./scripts/sbom [-version V] -o DOC.cdx.json BINARY
package main

import (
	"debug/buildinfo"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"
)

type component struct {
	Type       string     `json:"type"`
	BOMRef     string     `json:"bom-ref"`
	Name       string     `json:"name"`
	Version    string     `json:"version"`
	PURL       string     `json:"purl"`
	Properties []property `json:"properties,omitempty"`
}

type property struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

type dependency struct {
	Ref       string   `json:"ref"`
	DependsOn []string `json:"dependsOn"`
}

type bom struct {
	BOMFormat    string       `json:"bomFormat"`
	SpecVersion  string       `json:"specVersion"`
	Version      int          `json:"version"`
	Metadata     metadata     `json:"metadata"`
	Components   []component  `json:"components"`
	Dependencies []dependency `json:"dependencies"`
}

type metadata struct {
	Component  component  `json:"component"`
	Properties []property `json:"properties"`
}

func purl(path, version string) string {
	return "pkg:golang/" + path + "@" + version
}

func main() {
	out := flag.String("o", "", "file to write (default standard output)")
	version := flag.String("version", "", "the release version (a release build stamps it with -ldflags, which the build info does not record)")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: sbom [-o FILE] BINARY")
		os.Exit(2)
	}
	bi, err := buildinfo.ReadFile(flag.Arg(0))
	if err != nil {
		fmt.Fprintf(os.Stderr, "sbom: %s: %v\n", flag.Arg(0), err)
		os.Exit(1)
	}
	mainVer := bi.Main.Version
	if *version != "" {
		mainVer = strings.TrimPrefix(*version, "v")
	}
	if mainVer == "" {
		mainVer = "(devel)"
	}
	root := component{Type: "application", Name: bi.Main.Path, Version: mainVer, PURL: purl(bi.Main.Path, mainVer)}
	root.BOMRef = root.PURL
	doc := bom{BOMFormat: "CycloneDX", SpecVersion: "1.5", Version: 1, Components: []component{}}
	doc.Metadata.Component = root
	doc.Metadata.Properties = []property{{"go:version", bi.GoVersion}}
	for _, s := range bi.Settings {
		if s.Key == "GOOS" || s.Key == "GOARCH" || s.Key == "CGO_ENABLED" || s.Key == "-trimpath" || strings.HasPrefix(s.Key, "vcs") {
			doc.Metadata.Properties = append(doc.Metadata.Properties, property{"go:build:" + s.Key, s.Value})
		}
	}
	dep := dependency{Ref: root.BOMRef, DependsOn: []string{}}
	for _, m := range bi.Deps {
		if m.Replace != nil {
			m = m.Replace
		}
		c := component{Type: "library", Name: m.Path, Version: m.Version, PURL: purl(m.Path, m.Version)}
		c.BOMRef = c.PURL
		if m.Sum != "" {
			// the go.sum hash: a SHA-256 over the module's files (dirhash
			// h1), not a plain file digest, so a property, not a hash
			c.Properties = []property{{"go:module:sum", m.Sum}}
		}
		doc.Components = append(doc.Components, c)
		dep.DependsOn = append(dep.DependsOn, c.BOMRef)
	}
	doc.Dependencies = []dependency{dep}
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		fmt.Fprintln(os.Stderr, "sbom:", err)
		os.Exit(1)
	}
	b = append(b, '\n')
	if *out == "" {
		os.Stdout.Write(b)
		return
	}
	if err := os.WriteFile(*out, b, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "sbom:", err)
		os.Exit(1)
	}
}
