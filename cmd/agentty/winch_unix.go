//go:build unix

package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

// watchResize sends on resized whenever the terminal is resized
// (SIGWINCH), until ctx ends; stop stops the signal's delivery.
func watchResize(ctx context.Context, _ int, resized chan<- struct{}) (stop func()) {
	winch := make(chan os.Signal, 1)
	signal.Notify(winch, syscall.SIGWINCH)
	go forwardWinch(ctx, winch, resized)
	return func() { signal.Stop(winch) }
}

// forwardWinch turns SIGWINCH into resize requests until ctx ends.
func forwardWinch(ctx context.Context, winch <-chan os.Signal, resized chan<- struct{}) {
	for {
		select {
		case <-winch:
			select {
			case resized <- struct{}{}:
			default:
			}
		case <-ctx.Done():
			return
		}
	}
}
