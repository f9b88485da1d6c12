package tcpflow

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// The table against a map, through random additions and changes, with
// hashes chosen to collide (few distinct home slots, runs that wrap
// around the end, growth while they do), over more keys than a chunk of
// entries holds.
func TestConnTableAgainstAMap(t *testing.T) {
	// Pure computation, each case seeded on its own: the cases run side
	// by side.
	for _, homes := range []uint64{1, 3, 64, 1 << 20} {
		t.Run(fmt.Sprintf("%d homes", homes), func(t *testing.T) {
			t.Parallel()
			rng := rand.New(rand.NewPCG(1, homes))
			tab := newConnTable()
			type val struct {
				c      *Conn
				closed int32
			}
			model := map[connKey]val{}
			hashOf := map[connKey]uint64{}
			conns := make([]Conn, 8)
			keyN := func(n int) connKey {
				var k connKey
				k.a[1], k.ports = uint64(n&0xffff), uint32(n>>16)
				if _, ok := hashOf[k]; !ok {
					// homes distinct home slots, near the end of the table so
					// that runs wrap around
					hashOf[k] = (uint64(connTableMin-2)+rng.Uint64N(homes))<<0 | 1 | rng.Uint64()<<32
				}
				return k
			}
			for op := 0; op < 20000; op++ {
				k := keyN(rng.IntN(3000))
				h := hashOf[k]
				switch rng.IntN(4) {
				case 0, 1: // set the open connection
					sl := tab.slot(h, &k)
					c := &conns[rng.IntN(len(conns))]
					tab.setConn(sl, c)
					v := model[k]
					v.c = c
					model[k] = v
				case 2: // set or clear the closed index
					sl := tab.slot(h, &k)
					idx := int32(rng.IntN(3))
					tab.setClosed(sl, idx)
					v := model[k]
					v.closed = idx
					model[k] = v
				case 3: // clear the open connection
					if sl := tab.find(h, &k); sl != nil {
						tab.setConn(sl, nil)
						v := model[k]
						v.c = nil
						model[k] = v
					} else if _, ok := model[k]; ok {
						t.Fatalf("homes %d, op %d: key %v lost", homes, op, k)
					}
				}
				if op%1000 == 0 || op == 19999 {
					open, closed := 0, 0
					for k, v := range model {
						sl := tab.find(hashOf[k], &k)
						if sl == nil || sl.conn != v.c || sl.closed != v.closed {
							t.Fatalf("homes %d, op %d: key %v holds %+v, want %+v", homes, op, k, sl, v)
						}
						if v.c != nil {
							open++
						}
						if v.closed != 0 {
							closed++
						}
					}
					visited := 0
					tab.each(func(*Conn) { visited++ })
					if visited != open {
						t.Fatalf("homes %d, op %d: each visited %d connections, want %d", homes, op, visited, open)
					}
					if tab.used != len(model) || tab.open != open || tab.closed != closed {
						t.Fatalf("homes %d, op %d: counts used %d open %d closed %d, want %d %d %d",
							homes, op, tab.used, tab.open, tab.closed, len(model), open, closed)
					}
				}
			}
		})
	}
}
