package testenv

import (
	"fmt"
	"io"
	"net"
	"net/url"
	"path/filepath"
	"sync"

	"k8s.io/client-go/tools/clientcmd"
)

// Proxy is a TCP proxy in front of kube-apiserver, standing in for the load
// balancer of a real control plane. Clients that use its Kubeconfig reach
// the same API server with the same credentials (TLS passes through; the
// serving certificate is valid for 127.0.0.1 on any port), and the test can
// cut their connections.
type Proxy struct {
	// Kubeconfig is a copy of the world's admin kubeconfig whose server is
	// the proxy.
	Kubeconfig string
	// Addr is the proxy's host:port.
	Addr string

	target string
	ln     net.Listener
	mu     sync.Mutex
	conns  map[net.Conn]struct{}
	held   chan struct{} // closed when not blocked
	closed bool
	wg     sync.WaitGroup
}

// StartProxy starts a proxy to the world's kube-apiserver on a free
// loopback port. It stops with the world.
func (w *World) StartProxy() (*Proxy, error) {
	u, err := url.Parse(w.Config.Host)
	if err != nil {
		return nil, fmt.Errorf("proxy: API server address %q: %w", w.Config.Host, err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("proxy: %w", err)
	}
	p := &Proxy{Addr: ln.Addr().String(), target: u.Host, ln: ln, conns: map[net.Conn]struct{}{}, held: make(chan struct{})}
	close(p.held)
	p.Kubeconfig = filepath.Join(w.Dir, fmt.Sprintf("kubeconfig-proxy-%d", ln.Addr().(*net.TCPAddr).Port))
	if err := writeKubeconfigFor(w.Kubeconfig, p.Kubeconfig, "https://"+p.Addr); err != nil {
		ln.Close()
		return nil, err
	}
	p.wg.Add(1)
	go p.serve()
	life := w.Context() // the world's, or the test's holding it
	go func() {
		<-life.Done()
		p.Close()
	}()
	return p, nil
}

// writeKubeconfigFor copies the kubeconfig at from to to, pointing every
// cluster at server.
func writeKubeconfigFor(from, to, server string) error {
	cfg, err := clientcmd.LoadFromFile(from)
	if err != nil {
		return fmt.Errorf("kubeconfig %s: %w", from, err)
	}
	for _, c := range cfg.Clusters {
		c.Server = server
	}
	if err := clientcmd.WriteToFile(*cfg, to); err != nil {
		return fmt.Errorf("kubeconfig %s: %w", to, err)
	}
	return nil
}

func (p *Proxy) serve() {
	defer p.wg.Done()
	for {
		conn, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.wg.Add(1)
		go p.handle(conn)
	}
}

// handle waits while the proxy is blocked, then pipes conn to the API server.
func (p *Proxy) handle(conn net.Conn) {
	defer p.wg.Done()
	upstream := p.connect(conn)
	if upstream == nil {
		conn.Close()
		return
	}
	done := make(chan struct{}, 2)
	pipe := func(dst, src net.Conn) {
		_, _ = io.Copy(dst, src)
		done <- struct{}{}
	}
	go pipe(upstream, conn)
	go pipe(conn, upstream)
	<-done
	conn.Close()
	upstream.Close()
	<-done
	p.untrack(conn, upstream)
}

// connect dials the API server once the proxy is not blocked, and tracks
// both ends; nil when the proxy closed or the dial failed. A dial that
// raced with Block is dropped and retried after Unblock: nothing has been
// forwarded yet.
func (p *Proxy) connect(conn net.Conn) net.Conn {
	for {
		p.mu.Lock()
		held, closed := p.held, p.closed
		p.mu.Unlock()
		if closed {
			return nil
		}
		<-held
		upstream, err := net.Dial("tcp", p.target)
		if err != nil {
			return nil
		}
		p.mu.Lock()
		switch {
		case p.closed:
			p.mu.Unlock()
			upstream.Close()
			return nil
		case p.held == held:
			p.conns[conn], p.conns[upstream] = struct{}{}, struct{}{}
			p.mu.Unlock()
			return upstream
		}
		p.mu.Unlock()
		upstream.Close()
	}
}

func (p *Proxy) untrack(conns ...net.Conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range conns {
		delete(p.conns, c)
	}
}

// Cut closes every open connection through the proxy, as a load balancer
// that drops long-lived connections does. Clients reconnect at once.
func (p *Proxy) Cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for c := range p.conns {
		c.Close()
	}
}

// Block cuts every connection and holds new ones (accepted, not forwarded)
// until Unblock.
func (p *Proxy) Block() {
	p.mu.Lock()
	select {
	case <-p.held:
		p.held = make(chan struct{})
	default:
	}
	p.mu.Unlock()
	p.Cut()
}

// Unblock lets held and new connections through again.
func (p *Proxy) Unblock() {
	p.mu.Lock()
	defer p.mu.Unlock()
	select {
	case <-p.held:
	default:
		close(p.held)
	}
}

// Close stops the proxy and closes every connection. It is safe to call
// more than once.
func (p *Proxy) Close() {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return
	}
	p.closed = true
	p.mu.Unlock()
	p.Unblock()
	_ = p.ln.Close()
	p.Cut()
	p.wg.Wait()
}
