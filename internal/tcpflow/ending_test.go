package tcpflow

import "testing"

// TestEndingQueueOrder pushes and pops across the ring's wrap and its
// growth: connections leave in the order they came, with their due times.
func TestEndingQueueOrder(t *testing.T) {
	var q endingQueue
	next, want := 0, 0
	push := func(n int) {
		for range n {
			q.push(nil, int64(next))
			next++
		}
	}
	pop := func(n int) {
		for range n {
			if q.len() == 0 {
				t.Fatalf("empty after %d pops, %d pushes", want, next)
			}
			if d := q.front().due; d != int64(want) {
				t.Fatalf("front due %d, want %d", d, want)
			}
			if e := q.pop(); e.due != int64(want) {
				t.Fatalf("popped %d, want %d", e.due, want)
			}
			want++
		}
	}
	push(50)
	pop(40)
	push(60) // wraps round the 64-slot ring, then grows it with the head inside
	pop(30)
	push(200)
	pop(q.len())
	if q.len() != 0 || want != next {
		t.Fatalf("len %d, popped %d of %d", q.len(), want, next)
	}
	for i, e := range q.ring {
		if e.c != nil || e.due != 0 {
			t.Fatalf("slot %d still holds %+v after its pop", i, e)
		}
	}
}
