package doctor

import (
	"encoding/json"
	"fmt"

	"github.com/latlab/latlab/internal/result"
)

// Document wraps a check-up in a latlab.result/1 document of kind
// doctor: the timer status and the tool's overhead in the envelope's
// fields, the check-up itself (sections timer, sleep, wake, settings,
// next) as the payload in data.
func Document(r *Result, settings map[string]string) (*result.Document, error) {
	doc := result.New(Kind)
	if settings != nil {
		doc.Settings = settings
	}
	doc.Timer = r.Timer.Status
	doc.Overhead = r.Overhead
	doc.Notes = append(doc.Notes, r.Notes...)
	doc.Notes = append(doc.Notes, "the settings audit only reads: nothing was changed")
	b, err := json.Marshal(r)
	if err != nil {
		return nil, fmt.Errorf("doctor document: %w", err)
	}
	doc.Data = b
	return doc, nil
}

// FromDocument reads the check-up back out of a doctor document.
func FromDocument(d *result.Document) (*Result, error) {
	if d.Kind != Kind {
		return nil, fmt.Errorf("a %s document, not a %s one", d.Kind, Kind)
	}
	var r Result
	if err := json.Unmarshal(d.Data, &r); err != nil {
		return nil, fmt.Errorf("doctor document: %w", err)
	}
	return &r, nil
}
