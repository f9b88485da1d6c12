package compare

// SetExpandHistograms makes comparisons with cyclictest histograms
// rebuild their samples (true) or compare their bins (false, the
// default).
func SetExpandHistograms(on bool) { expandHistograms = on }
