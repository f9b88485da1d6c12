package doctor

import (
	"time"

	"github.com/latlab/latlab/internal/units"
)

// fmtDur formats nanoseconds as latlab's tables do.
func fmtDur(ns int64) string { return units.Duration(time.Duration(ns)) }
