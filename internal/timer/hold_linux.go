package timer

import (
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// forwardSignal sends s to the command, except a SIGINT that the terminal
// sent to the whole foreground process group: the command is in latlab's
// group and got that one already, and a second SIGINT often means "quit
// now, skip the cleanup" to programs.
func forwardSignal(p *os.Process, s os.Signal) {
	if s == os.Interrupt && terminalForegroundIsOurs() {
		return
	}
	_ = p.Signal(s)
}

// terminalForegroundIsOurs says whether latlab's process group is the
// foreground group of its controlling terminal, the group a typed Ctrl-C
// goes to. Without a controlling terminal it is false: then every SIGINT
// came from a kill, to latlab alone.
func terminalForegroundIsOurs() bool {
	fd, err := unix.Open("/dev/tty", unix.O_RDONLY|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		return false
	}
	defer unix.Close(fd)
	pg, err := unix.IoctlGetInt(fd, unix.TIOCGPGRP)
	return err == nil && pg == syscall.Getpgrp()
}
