package kube

import (
	"context"
	"net"
	"sync/atomic"
	"time"
)

// ConnectTimeout bounds how long standup waits for the API server to accept
// a connection, and then for its first answer on it (the TLS handshake).
const ConnectTimeout = 5 * time.Second

// dial connects as client-go's default dialer does, but gives up after
// ConnectTimeout when the API server does not accept, or accepts and never
// answers (a wedged server, a half-open load balancer). client-go alone
// waits 30 s to connect and 10 s more for the TLS handshake. Once the server
// has answered, the connection has no deadline: watches may idle for long.
func dial(ctx context.Context, network, addr string) (net.Conn, error) {
	d := &net.Dialer{Timeout: ConnectTimeout, KeepAlive: 30 * time.Second}
	conn, err := d.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	if err := conn.SetReadDeadline(time.Now().Add(ConnectTimeout)); err != nil {
		conn.Close()
		return nil, err
	}
	return &firstAnswerConn{Conn: conn}, nil
}

// firstAnswerConn lifts the read deadline once the server has sent anything.
type firstAnswerConn struct {
	net.Conn
	answered atomic.Bool
}

func (c *firstAnswerConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 && c.answered.CompareAndSwap(false, true) {
		_ = c.Conn.SetReadDeadline(time.Time{})
	}
	return n, err
}
