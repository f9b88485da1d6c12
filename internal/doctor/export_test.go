package doctor

// FmtDur exposes the duration format to the report package's test that
// keeps it in step with report.Duration.
var FmtDur = fmtDur
