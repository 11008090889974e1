package plainhttp

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/url"
	"sync"
)

// Loopback forwards a port on 127.0.0.1 of this process to endpoint (http://host:port/) until
// ctx ends, and returns the loopback base URL. Shipyard's HTTP clients send plain HTTP only
// to loopback (package plainhttp), and a Dagger service's hostname is, to them, just a name;
// through the forwarder the traffic goes from this process to the service over the
// engine's network and nowhere else, and the rule stays as it is.
func Loopback(ctx context.Context, endpoint string) (string, error) {
	u, err := url.Parse(endpoint)
	if err != nil || u.Host == "" {
		return "", fmt.Errorf("endpoint %q: not a URL with a host", endpoint)
	}
	// Fail here, naming the service, rather than with a bare EOF in the first request.
	var d net.Dialer
	probe, err := d.DialContext(ctx, "tcp", u.Host)
	if err != nil {
		return "", fmt.Errorf("the service at %s is not reachable: %w", u.Host, err)
	}
	_ = probe.Close()
	var lc net.ListenConfig
	l, err := lc.Listen(ctx, "tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("forwarding to %s: %w", u.Host, err)
	}
	go func() {
		<-ctx.Done()
		_ = l.Close()
	}()
	go func() {
		for {
			in, err := l.Accept()
			if err != nil {
				return // closed
			}
			go pipe(ctx, in, u.Host)
		}
	}()
	return fmt.Sprintf("http://%s%s", l.Addr(), u.Path), nil
}

// pipe copies between in and a new connection to target until either side closes.
func pipe(ctx context.Context, in net.Conn, target string) {
	defer in.Close()
	var d net.Dialer
	out, err := d.DialContext(ctx, "tcp", target)
	if err != nil {
		return // the client sees the connection close, and reports it
	}
	defer out.Close()
	// Not a fan-out: the two directions are one connection, each ends when its source
	// closes, and neither may be skipped on a cancel (it would leave the other side open).
	var wg sync.WaitGroup
	wg.Add(2)
	copyThenClose := func(dst, src net.Conn) {
		defer wg.Done()
		_, _ = io.Copy(dst, src)
		if tc, ok := dst.(*net.TCPConn); ok {
			_ = tc.CloseWrite()
		}
	}
	go copyThenClose(out, in)
	go copyThenClose(in, out)
	wg.Wait()
}
