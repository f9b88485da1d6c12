package netload

import (
	"runtime"
)

// pacer waits for absolute deadlines on clock.Now's timeline. It is used
// from a goroutine locked to its OS thread (the Linux pacer changes the
// thread's timer slack). Windows and Linux implementations live in
// pacer_windows.go and pacer_linux.go.
type pacer interface {
	// waitUntil returns at or after deadline (clock.Now nanoseconds).
	waitUntil(deadline int64)
	close()
}

// onPacedThread runs fn on a fresh goroutine locked to an OS thread with a
// pacer, raising GOMAXPROCS by one for the run so that the thread, which
// keeps its scheduler slot while it waits (Linux), does not starve the
// receiving goroutines. The goroutine exits locked, so the thread and its
// changed settings are discarded.
func onPacedThread(fn func(p pacer)) error {
	prev := runtime.GOMAXPROCS(0)
	runtime.GOMAXPROCS(prev + 1)
	defer runtime.GOMAXPROCS(prev)
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		p, err := newPacer()
		if err != nil {
			errc <- err
			return
		}
		defer p.close()
		fn(p)
		errc <- nil
	}()
	return <-errc
}

// PacerMethod names the wait primitive for result documents.
func PacerMethod() string { return pacerMethod }
