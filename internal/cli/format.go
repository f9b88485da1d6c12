package cli

import (
	"time"

	"github.com/latlab/latlab/internal/report"
)

func fmtNs(ns int64) string { return report.Duration(time.Duration(ns)) }
