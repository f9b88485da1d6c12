package winapi

// UnderWine reports whether ntdll exports wine_get_version, which only
// Wine's does. Wine has many procedures with nothing behind them (kernel
// tracing, for one), so callers say "unavailable under Wine" instead of
// reporting a failure Windows would not have.
func UnderWine() bool { return procwine_get_version.Find() == nil }
