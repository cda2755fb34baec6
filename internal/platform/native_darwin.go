package platform

// native: XNU shows no wait channel and has no parent-death signal or
// cgroups, so macOS always uses the portable strategies.
func native(Strategies) Strategies { return Strategies{Verdict: true, Tree: true, Guard: true} }
