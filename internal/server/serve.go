package server

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentty/agentty/internal/peers"
)

// ShutdownWait bounds how long Serve waits for a front end to stop once it
// was told to: a client that stopped reading can leave a transport blocked
// in a write forever, and shutdown must still go on.
const ShutdownWait = 3 * time.Second

// ErrClosed is returned by Serve after Close.
var ErrClosed = errors.New("server closed")

// ErrStart marks a front end that could not start, so nothing was served
// (an unusable address, a port in use); the error reads as the cause.
var ErrStart = errors.New("front end did not start")

type startError struct{ error }

func (e startError) Is(target error) bool { return target == ErrStart }
func (e startError) Unwrap() error        { return e.error }

// A Transport is a front end: how MCP clients reach the server core.
// Stdio and HTTP are here; a unix socket for a daemon plugs in the same way.
type Transport interface {
	// Serve carries clients to ep.MCP until ctx ends or the front end
	// fails. Once ctx ends it stops accepting, ends the calls in flight and
	// closes its connections before it returns. The context it hands the
	// SDK (Server.Run or Connect) must derive from ctx: the core ends the
	// calls made over it when ctx ends. An error that matches ErrStart
	// means nothing was served.
	Serve(ctx context.Context, ep Endpoint) error
}

// Endpoint is what a front end carries clients to.
type Endpoint struct {
	MCP     *mcp.Server
	Logger  *slog.Logger
	Version string
	// Console is the person's API (session list, live stream, input lease,
	// logs, kill, export; internal/console) that front ends mount under
	// /v1/ (mux.Handle("/v1/", ep.Console), prefix not stripped), behind
	// their own authentication.
	Console http.Handler
	// Guard checks every connection's peer at accept: a process of a
	// session held in a sandbox or under limits is refused (internal/peers).
	Guard *peers.Guard
}

// Serve runs t until ctx ends, Close is called, or t stops on its own (a
// stdio client hung up). It returns nil after such an end, ErrClosed after
// Close, or the front end's error; an error matching ErrStart means t never
// served. Serve may run several front ends at once, all on the same
// sessions.
func (s *Server) Serve(ctx context.Context, t Transport) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return ErrClosed
	}
	s.serving.Add(1)
	s.mu.Unlock()
	defer s.serving.Done()

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(s.done, cancel)()
	ctx = context.WithValue(ctx, callsKey{}, ctx)
	// The front end's goroutine ends when t.Serve returns; if it is stuck
	// in a write past ShutdownWait it is left to end with that write.
	served := make(chan error, 1)
	go func() {
		served <- t.Serve(ctx, Endpoint{MCP: s.mcp, Logger: s.log, Version: s.version, Console: s.console, Guard: s.doors})
	}()
	var err error
	select {
	case err = <-served:
	case <-ctx.Done():
		wait := time.NewTimer(ShutdownWait)
		defer wait.Stop()
		select {
		case err = <-served:
		case <-wait.C:
			s.log.Warn("transport did not stop; shutting down anyway")
			return nil
		}
	}
	if errors.Is(err, ErrStart) {
		return err
	}
	if ctx.Err() != nil || errors.Is(err, context.Canceled) || errors.Is(err, io.EOF) {
		return nil
	}
	return err
}

// callsKey carries, in the context a front end hands the SDK, that front
// end's serving context.
type callsKey struct{}

// endCalls is MCP receiving middleware that ends a call's context when the
// Serve that carried it stops. The SDK detaches request contexts from their
// connection and, closing a connection, waits for the calls in flight, so
// without this a wait would hold the shutdown until its own timeout.
func endCalls(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		stop, ok := ctx.Value(callsKey{}).(context.Context)
		if !ok {
			return next(ctx, method, req)
		}
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		defer context.AfterFunc(stop, cancel)()
		return next(ctx, method, req)
	}
}
