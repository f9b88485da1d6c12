package doctor

import (
	"fmt"

	"github.com/latlab/latlab/internal/host"
	"github.com/latlab/latlab/internal/result"
)

// Document wraps a check-up in a document of kind doctor on the host
// facts: the check-up (sections timer, sleep, wake, settings, next) is the
// payload.
func Document(facts host.Facts, r *Result, settings map[string]string) (*result.Document, error) {
	doc := Kind.New(facts, r)
	if settings != nil {
		doc.Settings = settings
	}
	doc.Notes = append(doc.Notes, r.Notes...)
	doc.Notes = append(doc.Notes, "the settings audit only reads: nothing was changed")
	return doc, nil
}

// FromDocument reads the check-up back out of a doctor document.
func FromDocument(d *result.Document) (*Result, error) {
	r, ok := Kind.Of(d)
	if !ok {
		return nil, fmt.Errorf("a %s document, not a %s one", d.Kind, Kind)
	}
	return r, nil
}
