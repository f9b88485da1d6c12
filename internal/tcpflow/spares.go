package tcpflow

// spares is memory the scan stage makes ready for the analysis while it
// would otherwise wait for a free batch: the next chunk of closed
// connections (closedSet) and of table entries (connTable), and the
// table's next slots when the analysis asks for them. Each is allocated
// and written first (writeFirst) on the scan's core, so the page faults
// of fresh memory are taken there: with 100,497 short connections they
// were about a tenth of the analysis' time, and the analysis is the
// stage that sets the wall time. The analysis takes a spare when it
// needs one and there is one, and else allocates as before: the spares
// change nothing but where the faults are taken. At most one of each
// waits, so the memory they can waste is a closed chunk (160 kB), an
// entry chunk (112 kB) and, when the capture ends just before the table
// would have grown, its next slots.
type spares struct {
	closed  chan []closedConn
	entries chan []connSlot
	// want asks for slots of that length; slots answers.
	want  chan int
	slots chan []connIndex
}

func newSpares() *spares {
	return &spares{closed: make(chan []closedConn, 1), entries: make(chan []connSlot, 1),
		want: make(chan int, 1), slots: make(chan []connIndex, 1)}
}

// refill makes what is missing (the scan stage, between batches).
func (sp *spares) refill() {
	if len(sp.closed) == 0 {
		c := make([]closedConn, closedChunk)
		writeFirst(c)
		sp.closed <- c
	}
	if len(sp.entries) == 0 {
		c := make([]connSlot, connChunk)
		writeFirst(c)
		sp.entries <- c
	}
	select {
	case n := <-sp.want:
		s := make([]connIndex, n)
		writeFirst(s)
		select {
		case <-sp.slots: // an unused answer to an earlier request
		default:
		}
		sp.slots <- s
	default:
	}
}

// use gives a the spares: its closed set and table take them from now on.
func (a *Analyzer) use(sp *spares) {
	a.closed.spare = sp.closed
	a.table.spare = sp
}

// newChunk returns a fresh chunk of closed connections, written first.
func (s *closedSet) newChunk() []closedConn {
	select {
	case c := <-s.spare:
		return c
	default:
	}
	c := make([]closedConn, closedChunk)
	writeFirst(c) // 160 kB: the first touch must be a write (see writeFirst)
	return c
}

// newChunk returns a fresh chunk of entries, written first.
func (t *connTable) newChunk() []connSlot {
	if t.spare != nil {
		select {
		case c := <-t.spare.entries:
			return c
		default:
		}
	}
	c := make([]connSlot, connChunk)
	writeFirst(c) // the first touch must be a write (see writeFirst)
	return c
}

// newSlots returns n fresh slots, written first.
func (t *connTable) newSlots(n int) []connIndex {
	if t.spare != nil {
		select {
		case s := <-t.spare.slots:
			if len(s) == n {
				return s
			}
		default:
		}
	}
	s := make([]connIndex, n)
	writeFirst(s)
	return s
}

// askSlots asks the scan stage for the slots the table will grow to,
// once it is 5/8 full (it grows past 3/4): the 1/8 left is thousands of
// segments' time for the scan to make them.
func (t *connTable) askSlots() {
	if t.spare != nil && t.used*8 == len(t.slots)*5 {
		select {
		case t.spare.want <- 2 * len(t.slots):
		default:
		}
	}
}
