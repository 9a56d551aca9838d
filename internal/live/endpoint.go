package live

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/rumbench/rumbench/internal/input"
	"github.com/rumbench/rumbench/internal/openmetrics"
)

// Path is where the endpoint serves the exposition.
const Path = "/metrics"

// CheckAddr says what is wrong with a listen address: it must be HOST:PORT with HOST an IP
// address or "localhost" (empty: every interface) and PORT 0 to 65535 (0: a free port); a
// HOST that is not a loopback address needs any (--metrics-listen-any, serve --listen-any).
// flag names the flag in the message.
func CheckAddr(flag, addr string, any bool) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("%s %q: want HOST:PORT, e.g. 127.0.0.1:9400 (127.0.0.1:0 picks a free port)", flag, input.Short(addr))
	}
	if p, err := strconv.Atoi(port); err != nil || p < 0 || p > 65535 {
		return fmt.Errorf("%s %q: the port must be a number from 0 to 65535 (0 picks a free port)", flag, input.Short(addr))
	}
	loopback := host == "localhost"
	if !loopback && host != "" {
		ip := net.ParseIP(host)
		if ip == nil {
			return fmt.Errorf("%s %q: the host must be an IP address or localhost", flag, input.Short(addr))
		}
		loopback = ip.IsLoopback()
	}
	if !loopback && !any {
		return fmt.Errorf("%s %q listens beyond this host: add %s-any to allow it (the pages carry no secrets, but anyone who reaches the port reads them)", flag, input.Short(addr), flag)
	}
	return nil
}

// Listener is a small HTTP server on loopback or, when asked, beyond: the metrics endpoint and
// rumbench serve share it. Its limits bound what a client can make it hold (headers, time).
type Listener struct {
	ln  net.Listener
	srv *http.Server
	// served is closed once Serve has returned.
	served chan struct{}
}

// Listen listens on addr (checked with CheckAddr first) and serves h there until Close.
func Listen(flag, addr string, any bool, h http.Handler) (*Listener, error) {
	if err := CheckAddr(flag, addr, any); err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %v", flag, input.Short(addr), errors.Unwrap(err))
	}
	l := &Listener{ln: ln, served: make(chan struct{}), srv: &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       10 * time.Second,
		WriteTimeout:      time.Minute,
		IdleTimeout:       time.Minute,
		MaxHeaderBytes:    16 << 10,
		ErrorLog:          log.New(io.Discard, "", 0),
	}}
	go func() {
		defer close(l.served)
		l.srv.Serve(ln)
	}()
	return l, nil
}

// Addr returns the address listened on (the port chosen when 0 was asked for).
func (l *Listener) Addr() string { return l.ln.Addr().String() }

// URL returns http://ADDR + path.
func (l *Listener) URL(path string) string { return "http://" + l.Addr() + path }

// closeGrace is how long Close lets the requests in flight finish.
const closeGrace = 2 * time.Second

// Close stops listening, lets the requests in flight finish (a scrape of a run's last counts)
// for at most closeGrace, then closes every connection.
func (l *Listener) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), closeGrace)
	defer cancel()
	err := l.srv.Shutdown(ctx)
	if err != nil {
		err = l.srv.Close()
	}
	<-l.served
	return err
}

// Handler serves reg's exposition at Path (GET and HEAD) in the OpenMetrics text format.
func Handler(reg *Registry) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc(Path, func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed: GET "+Path, http.StatusMethodNotAllowed)
			return
		}
		w.Header().Set("Content-Type", openmetrics.ContentType)
		w.Header().Set("Cache-Control", "no-store")
		reg.Write(w)
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "not found: the metrics are at "+Path, http.StatusNotFound)
	})
	return mux
}
