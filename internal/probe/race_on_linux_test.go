//go:build race

package probe

// raceDetector: the tests run with -race, whose shadow memory takes page
// faults of its own.
const raceDetector = true
