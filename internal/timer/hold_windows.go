package timer

import "os"

// forwardSignal does nothing on Windows: a console Ctrl-C, Ctrl-Break or
// close event goes to every process attached to the console, so the
// command, which shares latlab's console, has it already; and Windows has
// no call that sends one process a Ctrl-C (GenerateConsoleCtrlEvent
// addresses process groups, and a command started in a group of its own
// would no longer get the user's Ctrl-C).
func forwardSignal(*os.Process, os.Signal) {}
