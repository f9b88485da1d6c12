package ui

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
)

// The charting library, uPlot (MIT; assets/LICENSE, THIRD_PARTY_NOTICES.md),
// as published on npm: the page loads it from the server, never from a
// CDN, so the view works offline.
var (
	//go:embed assets/uplot.iife.min.js
	uplotJS []byte
	//go:embed assets/uPlot.min.css
	uplotCSS []byte
	//go:embed web/app.js
	appJS []byte
	//go:embed web/app.css
	appCSS []byte
	//go:embed web/page.html
	pageHTML string
)

var pageTemplate = template.Must(template.New("page").Parse(pageHTML))

func (s *Server) renderPage() ([]byte, error) {
	var b bytes.Buffer
	err := pageTemplate.Execute(&b, struct {
		Token             string
		Subtitle          string
		Summary, Evidence template.HTML
		Duty              string
	}{Token: s.token, Subtitle: s.o.Subtitle, Summary: s.o.Summary, Evidence: s.o.Evidence,
		Duty: fmt.Sprintf("%g%%", s.o.Probe.Duty*100)})
	if err != nil {
		return nil, fmt.Errorf("render the live page: %w", err)
	}
	return b.Bytes(), nil
}
