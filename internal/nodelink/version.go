package nodelink

import "strings"

// isVersion says whether out, what `agentty version` printed in the
// target, comes from an agentty of version v. The line starts "agentty v"
// and goes on with the build's commit, date and platform, which differ
// between builds of one version (a release and a clone), so only the
// version is compared; the node's hello checks the wire protocol.
func isVersion(out, v string) bool {
	f := strings.Fields(out)
	return len(f) >= 2 && f[0] == "agentty" && f[1] == v
}
