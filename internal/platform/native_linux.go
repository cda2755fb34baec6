package platform

// native: Linux has an exact strategy for each guarantee and uses a
// portable one only when asked.
func native(asked Strategies) Strategies { return asked }
