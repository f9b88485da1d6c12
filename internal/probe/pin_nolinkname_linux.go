//go:build latlab_nolinkname

package probe

// Built with the tag latlab_nolinkname: no runtime pin. HoldThread still
// blocks the runtime's preemption signal for the thread, so that it does
// not interrupt a wait, but sysmon's request to give way takes effect at
// the goroutine's next function call, as it does for any goroutine.
func procPin() int { return 0 }

func procUnpin() {}
