package nodebackend

import (
	"errors"
	"fmt"
	"strings"
)

// Schemes of host arguments that name a node's target.
const (
	SchemeDocker = "docker://"
	SchemeK8s    = "k8s://"
)

// ErrHost is returned for a host argument that names no target.
var ErrHost = errors.New("bad container host")

// IsNode says whether host names a container or pod (a node's target)
// rather than an SSH host.
func IsNode(host string) bool {
	return strings.HasPrefix(host, SchemeDocker) || strings.HasPrefix(host, SchemeK8s)
}

// target is a parsed host argument.
type target struct {
	scheme    string // SchemeDocker or SchemeK8s
	container string // docker: name or id; k8s: the container in the pod ("" for the default)
	namespace string // k8s
	pod       string // k8s
}

// key names the target in listings and as the pool's key.
func (t target) key() string {
	if t.scheme == SchemeDocker {
		return SchemeDocker + t.container
	}
	k := SchemeK8s + t.namespace + "/" + t.pod
	if t.container != "" {
		k += "/" + t.container
	}
	return k
}

// parseTarget reads docker://CONTAINER or k8s://NAMESPACE/POD[/CONTAINER].
func parseTarget(host string) (target, error) {
	switch {
	case strings.HasPrefix(host, SchemeDocker):
		name := strings.TrimPrefix(host, SchemeDocker)
		if name == "" || strings.ContainsAny(name, "/ \t\n") {
			return target{}, fmt.Errorf("%w %q: use docker://CONTAINER with the container's name or id", ErrHost, host)
		}
		return target{scheme: SchemeDocker, container: name}, nil
	case strings.HasPrefix(host, SchemeK8s):
		parts := strings.Split(strings.TrimPrefix(host, SchemeK8s), "/")
		if len(parts) < 2 || len(parts) > 3 || parts[0] == "" || parts[1] == "" || (len(parts) == 3 && parts[2] == "") {
			return target{}, fmt.Errorf("%w %q: use k8s://NAMESPACE/POD or k8s://NAMESPACE/POD/CONTAINER", ErrHost, host)
		}
		t := target{scheme: SchemeK8s, namespace: parts[0], pod: parts[1]}
		if len(parts) == 3 {
			t.container = parts[2]
		}
		return t, nil
	}
	return target{}, fmt.Errorf("%w %q: use docker://CONTAINER or k8s://NAMESPACE/POD[/CONTAINER]", ErrHost, host)
}
