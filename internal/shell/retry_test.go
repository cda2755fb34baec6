package shell

import (
	"context"
	"errors"
	"regexp"
	"testing"
	"time"
)

func TestBackoffDelay_Kinds(t *testing.T) {
	const s = time.Second
	for _, tc := range []struct {
		kind string
		base time.Duration
		n    int
		want time.Duration
	}{
		{BackoffFixed, s, 2, s},
		{BackoffFixed, s, 9, s},
		{BackoffLinear, s, 2, s},
		{BackoffLinear, s, 5, 4 * s},
		{BackoffLinear, 0, 5, 0},
		{BackoffExponential, s, 2, s},
		{BackoffExponential, s, 3, 2 * s},
		{BackoffExponential, s, 5, 8 * s},
		{BackoffExponential, s, 8, MaxRetryWait}, // 64 s is capped
		{BackoffExponential, 50 * time.Millisecond, 21, MaxRetryWait},
		{"", 100 * time.Millisecond, 4, 400 * time.Millisecond}, // anything else is exponential
	} {
		if got := backoffDelay(tc.kind, tc.base, tc.n); got != tc.want {
			t.Errorf("backoffDelay(%q, %v, %d) = %v, want %v", tc.kind, tc.base, tc.n, got, tc.want)
		}
	}
}

// script is a fake exec: it returns results in order and counts calls.
type script struct {
	results []Result
	calls   int
}

func (s *script) exec(context.Context) (Result, error) {
	r := s.results[s.calls]
	s.calls++
	return r, nil
}

func exited(code int, out string) Result { return Result{ExitCode: &code, Output: out} }

func TestRetry_Run(t *testing.T) {
	running := Result{Running: true, Output: "still going"}
	for _, tc := range []struct {
		name    string
		r       Retry
		results []Result
		// want is each attempt's success; matched its Matched (-1 nil, 0 false, 1 true).
		want    []bool
		matched []int
		delays  []time.Duration
	}{
		{"first try succeeds", Retry{Retries: 3}, []Result{exited(0, "")}, []bool{true}, []int{-1}, []time.Duration{0}},
		{"success on the third", Retry{Retries: 3, Backoff: BackoffLinear},
			[]Result{exited(1, ""), exited(2, ""), exited(0, "")}, []bool{false, false, true}, []int{-1, -1, -1}, []time.Duration{0, 0, 0}},
		{"all fail", Retry{Retries: 2}, []Result{exited(1, ""), exited(1, ""), exited(1, "")},
			[]bool{false, false, false}, []int{-1, -1, -1}, []time.Duration{0, 0, 0}},
		{"no retries", Retry{}, []Result{exited(1, "")}, []bool{false}, []int{-1}, []time.Duration{0}},
		{"other success code", Retry{Retries: 1, SuccessExitCode: 3}, []Result{exited(0, ""), exited(3, "")},
			[]bool{false, true}, []int{-1, -1}, []time.Duration{0, 0}},
		{"pattern must match too", Retry{Retries: 2, SuccessPattern: regexp.MustCompile(`(?m)^ready$`)},
			[]Result{exited(1, "ready\n"), exited(0, "not yet\n"), exited(0, "x\nready\n")},
			[]bool{false, false, true}, []int{1, 0, 1}, []time.Duration{0, 0, 0}},
		{"unfinished attempt stops", Retry{Retries: 5}, []Result{exited(1, ""), running},
			[]bool{false, false}, []int{-1, -1}, []time.Duration{0, 0}},
		{"pattern matched but still running", Retry{Retries: 5, SuccessPattern: regexp.MustCompile("going")}, []Result{running},
			[]bool{false}, []int{1}, []time.Duration{0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &script{results: tc.results}
			got, err := tc.r.Run(context.Background(), s.exec)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tc.want) || s.calls != len(tc.want) {
				t.Fatalf("%d attempts, %d calls; want %d", len(got), s.calls, len(tc.want))
			}
			for i, a := range got {
				m := -1
				if a.Matched != nil {
					m = map[bool]int{false: 0, true: 1}[*a.Matched]
				}
				if a.N != i+1 || a.Success != tc.want[i] || m != tc.matched[i] || a.Delay != tc.delays[i] ||
					a.Result.Output != tc.results[i].Output {
					t.Errorf("attempt %d: %+v (matched %d), want success %v matched %d delay %v",
						i+1, a, m, tc.want[i], tc.matched[i], tc.delays[i])
				}
			}
		})
	}
}

// The pauses follow Backoff, and a context that ends during one stops the
// run with the attempts made so far.
func TestRetry_PauseAndCancel(t *testing.T) {
	t.Run("delays", func(t *testing.T) {
		s := &script{results: []Result{exited(1, ""), exited(1, ""), exited(1, "")}}
		got, err := Retry{Retries: 2, Backoff: BackoffLinear, Delay: time.Millisecond}.Run(context.Background(), s.exec)
		if err != nil || len(got) != 3 {
			t.Fatalf("%d attempts, %v", len(got), err)
		}
		for i, want := range []time.Duration{0, time.Millisecond, 2 * time.Millisecond} {
			if got[i].Delay != want {
				t.Errorf("attempt %d paused %v, want %v", i+1, got[i].Delay, want)
			}
		}
	})
	t.Run("cancelled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		s := &script{results: []Result{exited(1, ""), exited(0, "")}}
		exec := func(ctx context.Context) (Result, error) {
			defer cancel() // ends the context before the pause
			return s.exec(ctx)
		}
		got, err := Retry{Retries: 3, Delay: time.Hour}.Run(ctx, exec)
		if !errors.Is(err, context.Canceled) || len(got) != 1 || s.calls != 1 {
			t.Fatalf("%d attempts, %d calls, %v", len(got), s.calls, err)
		}
	})
	t.Run("exec error", func(t *testing.T) {
		boom := errors.New("boom")
		calls := 0
		got, err := Retry{Retries: 3}.Run(context.Background(), func(context.Context) (Result, error) {
			calls++
			if calls == 2 {
				return Result{}, boom
			}
			return exited(1, ""), nil
		})
		if !errors.Is(err, boom) || len(got) != 1 || calls != 2 {
			t.Fatalf("%d attempts, %d calls, %v", len(got), calls, err)
		}
	})
}
