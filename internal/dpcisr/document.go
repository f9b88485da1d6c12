package dpcisr

import "github.com/latlab/latlab/internal/result"

// The kinds of the dpcisr commands' documents. Before they were
// latlab.result/1 documents, `latlab dpcisr FILE --json` wrote the report
// view alone, with "schema": "latlab.dpcisr/1"; Formerly reads those.
var (
	Kind = result.Register[ReportView]("dpcisr", "an xperf DPC/ISR report analysed: histograms and percentiles per module (latlab dpcisr, dpcisr capture)",
		result.Formerly("latlab.dpcisr/1"))
	KindCompare = result.Register[Comparison]("dpcisr-compare", "DPC/ISR execution times of two or more reports compared, chi-squared per section (latlab dpcisr compare)")
)
