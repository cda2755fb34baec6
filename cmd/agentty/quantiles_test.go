package main

import (
	"slices"
	"testing"
	"time"
)

// quantiles reports the median and p95 of d in microseconds.
func quantiles(b *testing.B, d []time.Duration) {
	slices.Sort(d)
	b.ReportMetric(float64(d[len(d)/2].Microseconds()), "median-us")
	b.ReportMetric(float64(d[len(d)*95/100].Microseconds()), "p95-us")
}
