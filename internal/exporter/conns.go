package exporter

import (
	"context"
	"net"
	"net/http"
	"sync"
	"time"
)

// The exporter's connection slots. Go's http.Server bounds the time a
// request header may take (ReadHeaderTimeout) and a keep-alive
// connection may idle (IdleTimeout), and exporter-toolkit adds TLS, basic
// auth and a request rate limit, but neither bounds the connections one
// peer holds: 64 keep-alive connections from one local user (each after
// one /healthz), or 400 that never finish their header, held every slot
// of netutil.LimitListener and made every scrape wait past its timeout.
// So:
//
//   - a response to anything but /metrics closes its connection
//     (Connection: close): only a scraper has a reason to keep one;
//   - one address holds at most max - max/4 connections, so a quarter of
//     the slots is always kept for other addresses;
//   - a connection that is not being answered (idle between requests, or
//     still sending its header) gives its slot to a newcomer when its
//     address, or the whole server, has none left: the one of the
//     busiest address that has waited longest goes first. A scrape's
//     header comes in one packet and is answered at once, so the
//     connections that lose their slots are those that hold them without
//     asking for anything;
//   - only when every slot is being answered does a newcomer wait, as it
//     did before, for one to free.

// connLimiter is a listener that hands out the slots.
type connLimiter struct {
	net.Listener
	max, perAddr int

	mu     sync.Mutex
	conns  map[*limitedConn]struct{}
	byAddr map[string]int
	freed  chan struct{} // a token when a slot frees
	closed chan struct{}
	once   sync.Once
}

type limitedConn struct {
	net.Conn
	l       *connLimiter
	addr    string
	since   time.Time // when it last began to wait (accepted, or a response ended); under l.mu
	serving int       // requests being answered; under l.mu
	once    sync.Once
}

func newConnLimiter(l net.Listener, n int) *connLimiter {
	return &connLimiter{Listener: l, max: n, perAddr: max(1, n-n/4),
		conns: map[*limitedConn]struct{}{}, byAddr: map[string]int{},
		freed: make(chan struct{}, 1), closed: make(chan struct{})}
}

func (l *connLimiter) Close() error {
	l.once.Do(func() { close(l.closed) })
	return l.Listener.Close()
}

// Accept returns the next connection that has a slot.
func (l *connLimiter) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		addr := c.RemoteAddr().String()
		if h, _, err := net.SplitHostPort(addr); err == nil {
			addr = h
		}
		if lc := l.admit(c, addr); lc != nil {
			return lc, nil
		}
		select {
		case <-l.closed:
			c.Close()
			return nil, net.ErrClosed
		default:
		}
	}
}

// admit finds c a slot, evicting or waiting as the rules above say; nil
// when c was closed instead.
func (l *connLimiter) admit(c net.Conn, addr string) *limitedConn {
	for {
		l.mu.Lock()
		switch {
		case l.byAddr[addr] >= l.perAddr:
			if !l.evict(addr) {
				// Every connection of this address is being answered.
				l.mu.Unlock()
				c.Close()
				return nil
			}
		case len(l.conns) >= l.max:
			if !l.evict("") {
				l.mu.Unlock()
				select {
				case <-l.freed:
				case <-l.closed:
					c.Close()
					return nil
				case <-time.After(100 * time.Millisecond):
					// A connection may have gone idle meanwhile.
				}
				continue
			}
		}
		lc := &limitedConn{Conn: c, l: l, addr: addr, since: time.Now()}
		l.conns[lc] = struct{}{}
		l.byAddr[addr]++
		l.mu.Unlock()
		return lc
	}
}

// evict closes the connection not being answered that has waited longest,
// of addr, or ("") of the address holding the most; it says whether it
// found one. Called with l.mu held.
func (l *connLimiter) evict(addr string) bool {
	var victim *limitedConn
	for c := range l.conns {
		if c.serving > 0 || addr != "" && c.addr != addr {
			continue
		}
		if victim == nil || l.byAddr[c.addr] > l.byAddr[victim.addr] ||
			l.byAddr[c.addr] == l.byAddr[victim.addr] && c.since.Before(victim.since) {
			victim = c
		}
	}
	if victim == nil {
		return false
	}
	l.drop(victim)
	victim.Conn.Close()
	return true
}

// drop frees c's slot. Called with l.mu held.
func (l *connLimiter) drop(c *limitedConn) {
	if _, ok := l.conns[c]; !ok {
		return
	}
	delete(l.conns, c)
	if l.byAddr[c.addr]--; l.byAddr[c.addr] <= 0 {
		delete(l.byAddr, c.addr)
	}
	select {
	case l.freed <- struct{}{}:
	default:
	}
}

func (c *limitedConn) Close() error {
	c.once.Do(func() {
		c.l.mu.Lock()
		c.l.drop(c)
		c.l.mu.Unlock()
	})
	return c.Conn.Close()
}

// connKey is the context key of the request's *limitedConn.
type connKey struct{}

// connContext is the http.Server's ConnContext: it finds the slot under
// a TLS connection too.
func connContext(ctx context.Context, c net.Conn) context.Context {
	if t, ok := c.(interface{ NetConn() net.Conn }); ok {
		c = t.NetConn()
	}
	if lc, ok := c.(*limitedConn); ok {
		return context.WithValue(ctx, connKey{}, lc)
	}
	return ctx
}

// slotHandler marks a connection as being answered while h runs, and
// closes every connection after a response to anything but /metrics.
func slotHandler(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/metrics" {
			w.Header().Set("Connection", "close")
		}
		lc, _ := r.Context().Value(connKey{}).(*limitedConn)
		if lc == nil {
			h.ServeHTTP(w, r)
			return
		}
		lc.l.mu.Lock()
		lc.serving++
		lc.l.mu.Unlock()
		defer func() {
			lc.l.mu.Lock()
			lc.serving--
			lc.since = time.Now()
			lc.l.mu.Unlock()
		}()
		h.ServeHTTP(w, r)
	})
}
