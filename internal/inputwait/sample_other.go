//go:build !darwin && (!linux || !(amd64 || arm64))

package inputwait

import "errors"

// inferBuilt: no sampler for the inferred verdict in this build.
const inferBuilt = false

// sampleScratch is empty without a sampler.
type sampleScratch struct{}

var errNoSampler = errors.New("inputwait: no sampler in this build")

func (*sampleScratch) take(Target) (*sample, error) { return nil, errNoSampler }
func (*sampleScratch) deep(Target, *sample) error   { return errNoSampler }
func (*sampleScratch) close()                       {}
