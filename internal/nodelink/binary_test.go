package nodelink

import (
	"strings"
	"testing"
)

// A dynamically linked agentty cannot run in a container with other
// libraries: copying it is refused with how to build a static one.
func TestLoadBinary_RefusesDynamic(t *testing.T) {
	_, err := loadBinary("/bin/sh")
	if err == nil || !strings.Contains(err.Error(), "is dynamically linked") || !strings.Contains(err.Error(), "CGO_ENABLED=0") {
		t.Fatalf("err %v", err)
	}
	if _, err := loadBinary("/etc/passwd"); err == nil || !strings.Contains(err.Error(), "is not a Linux executable") {
		t.Fatalf("err %v", err)
	}
}
