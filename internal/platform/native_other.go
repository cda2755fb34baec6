//go:build !linux && !darwin

package platform

// native: elsewhere (Windows) the platform's own mechanisms apply (Job
// Objects, settle waits); Env changes nothing.
func native(Strategies) Strategies { return Strategies{} }
