//go:build !latlab_nolinkname

package probe

import _ "unsafe" // for go:linkname

// The runtime's pin, which sync.Pool uses: it raises the thread's lock
// count, so neither sysmon's preemption nor a signal preempts the
// goroutine until the matching unpin. The runtime keeps both callable by
// linkname (go.dev/issue/67401). Building with the tag latlab_nolinkname
// leaves both out (pin_nolinkname_linux.go), should a Go release stop
// that.
//
//go:linkname procPin runtime.procPin
func procPin() int

//go:linkname procUnpin runtime.procUnpin
func procUnpin()
