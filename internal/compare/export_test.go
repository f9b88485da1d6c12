package compare

// SetExpandHistograms makes comparisons of histograms alone rebuild their
// samples (true) or compare their bins (false, the default).
func SetExpandHistograms(on bool) { expandHistograms = on }
