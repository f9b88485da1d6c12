package knob_test

import "os"

func testPID() int { return os.Getpid() }
