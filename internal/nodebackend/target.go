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

// Target is a parsed host argument.
type Target struct {
	Scheme    string // SchemeDocker or SchemeK8s
	Container string // docker: name or id; k8s: the container in the pod ("" for the default)
	Namespace string // k8s
	Pod       string // k8s
}

// Key names the target in listings and as the pool's key.
func (t Target) Key() string {
	if t.Scheme == SchemeDocker {
		return SchemeDocker + t.Container
	}
	k := SchemeK8s + t.Namespace + "/" + t.Pod
	if t.Container != "" {
		k += "/" + t.Container
	}
	return k
}

// ParseTarget reads docker://CONTAINER or k8s://NAMESPACE/POD[/CONTAINER].
func ParseTarget(host string) (Target, error) {
	switch {
	case strings.HasPrefix(host, SchemeDocker):
		name := strings.TrimPrefix(host, SchemeDocker)
		if name == "" || strings.ContainsAny(name, "/ \t\n") {
			return Target{}, fmt.Errorf("%w %q: use docker://CONTAINER with the container's name or id", ErrHost, host)
		}
		return Target{Scheme: SchemeDocker, Container: name}, nil
	case strings.HasPrefix(host, SchemeK8s):
		parts := strings.Split(strings.TrimPrefix(host, SchemeK8s), "/")
		if len(parts) < 2 || len(parts) > 3 || parts[0] == "" || parts[1] == "" || (len(parts) == 3 && parts[2] == "") {
			return Target{}, fmt.Errorf("%w %q: use k8s://NAMESPACE/POD or k8s://NAMESPACE/POD/CONTAINER", ErrHost, host)
		}
		t := Target{Scheme: SchemeK8s, Namespace: parts[0], Pod: parts[1]}
		if len(parts) == 3 {
			t.Container = parts[2]
		}
		return t, nil
	}
	return Target{}, fmt.Errorf("%w %q: use docker://CONTAINER or k8s://NAMESPACE/POD[/CONTAINER]", ErrHost, host)
}
