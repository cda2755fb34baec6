package shell

import (
	"context"
	"regexp"
	"time"
)

// Retry limits: every attempt and pause happen inside one tool call.
const (
	MaxRetries   = 20
	MaxRetryWait = 60 * time.Second
)

// How the pause between attempts grows.
const (
	BackoffFixed       = "fixed"       // the base pause every time
	BackoffLinear      = "linear"      // base, 2×base, 3×base, ...
	BackoffExponential = "exponential" // base, 2×base, 4×base, ... capped at MaxRetryWait
)

// Retry says how to repeat a command until it succeeds.
type Retry struct {
	Retries int           // attempts after the first
	Backoff string        // a Backoff constant; anything else is exponential
	Delay   time.Duration // base pause between attempts
	// SuccessExitCode is the exit code that counts as success; with
	// SuccessPattern set the output must also match it.
	SuccessExitCode int
	SuccessPattern  *regexp.Regexp
}

// Attempt is one try of a Retry.
type Attempt struct {
	N       int           // 1-based
	Delay   time.Duration // pause before this attempt
	Result  Result
	Matched *bool // SuccessPattern matched the output; nil without one
	Success bool
}

// Run calls exec (one command in a shell, Exec or an admitted wrapper of
// it) until an attempt succeeds, Retries more attempts have failed, or an
// attempt does not finish (still running, waiting for input, or the shell
// died: a retry cannot start then). It pauses before each retry as Backoff
// says. It returns the attempts made; on an error from exec or ctx it
// returns those before it and the error.
func (r Retry) Run(ctx context.Context, exec func(context.Context) (Result, error)) ([]Attempt, error) {
	var done []Attempt
	for n := 1; n <= r.Retries+1; n++ {
		a := Attempt{N: n}
		if n > 1 {
			a.Delay = backoffDelay(r.Backoff, r.Delay, n)
			if err := pause(ctx, a.Delay); err != nil {
				return done, err
			}
		}
		res, err := exec(ctx)
		if err != nil {
			return done, err
		}
		a.Result = res
		a.Success = res.ExitCode != nil && *res.ExitCode == r.SuccessExitCode
		if r.SuccessPattern != nil {
			m := r.SuccessPattern.MatchString(res.Output)
			a.Matched = &m
			a.Success = a.Success && m
		}
		done = append(done, a)
		if a.Success || res.ExitCode == nil {
			break
		}
	}
	return done, nil
}

// backoffDelay is the pause before attempt n (n >= 2).
func backoffDelay(kind string, base time.Duration, n int) time.Duration {
	switch kind {
	case BackoffFixed:
		return base
	case BackoffLinear:
		return base * time.Duration(n-1)
	}
	return min(base<<(n-2), MaxRetryWait)
}

// pause waits d, or until ctx ends.
func pause(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
