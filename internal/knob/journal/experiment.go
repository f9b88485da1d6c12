package journal

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/latlab/latlab/internal/knob/internal/safefile"
)

// ExperimentFile is the record `latlab try` keeps beside the journal while
// an experiment runs: which command made the changes the journal holds
// from which entry on. It never drives a write (the journal alone does);
// it lets the next command say that an experiment did not finish.
const ExperimentFile = "experiment.json"

// maxExperiment bounds the record: a command line and a few numbers.
const maxExperiment = 64 << 10

// WriteExperiment replaces the experiment record durably, as the journal
// is replaced. It needs the journal's lock (Open).
func (j *Journal) WriteExperiment(b []byte) error {
	if j.sd == nil {
		return errors.New("internal: the journal was read without its lock: its experiment record cannot be written")
	}
	if len(b) > maxExperiment {
		return fmt.Errorf("internal: an experiment record of %d bytes is over %s", len(b), safefile.SizeName(maxExperiment))
	}
	return j.sd.replace(ExperimentFile, b)
}

// ReadExperiment returns the experiment record in the journal's state
// directory, nil when there is none.
func (j *Journal) ReadExperiment() ([]byte, error) {
	sd := j.sd
	if sd == nil {
		var err error
		if sd, err = openStateDir(j.dir, false); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil, nil
			}
			return nil, err
		}
		defer sd.close()
	}
	b, err := sd.read(ExperimentFile, maxExperiment)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return b, err
}
