package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// mdLink is a relative markdown link: [text](path#anchor), no scheme.
var mdLink = regexp.MustCompile(`\]\(([^):#\s]*)(#[^)\s]*)?\)`)

// TestDocs_LinksResolve checks that every relative link in README.md and
// docs/*.md names a file that exists and, with #anchor, a heading in it.
func TestDocs_LinksResolve(t *testing.T) {
	docs, err := filepath.Glob("../../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, doc := range append(docs, "../../README.md") {
		b, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range mdLink.FindAllStringSubmatch(stripCode(string(b)), -1) {
			target := doc
			if m[1] != "" {
				target = filepath.Join(filepath.Dir(doc), m[1])
			}
			tb, err := os.ReadFile(target)
			if err != nil {
				t.Errorf("%s: link %s%s: %v", doc, m[1], m[2], err)
				continue
			}
			if a := strings.TrimPrefix(m[2], "#"); a != "" && !headingAnchors(string(tb))[a] {
				t.Errorf("%s: link %s%s: no such heading in %s", doc, m[1], m[2], target)
			}
		}
	}
}

var fence = regexp.MustCompile("(?ms)^```.*?^```")

// stripCode drops fenced blocks, where brackets are not links.
func stripCode(s string) string { return fence.ReplaceAllString(s, "") }

// headingAnchors are the anchors GitHub gives a document's headings:
// lower case, punctuation other than - and _ dropped, spaces as -.
func headingAnchors(doc string) map[string]bool {
	out := map[string]bool{}
	for _, line := range strings.Split(stripCode(doc), "\n") {
		if !strings.HasPrefix(line, "#") {
			continue
		}
		h := strings.ToLower(strings.TrimSpace(strings.TrimLeft(line, "#")))
		var a strings.Builder
		for _, r := range h {
			switch {
			case r == ' ':
				a.WriteRune('-')
			case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127:
				a.WriteRune(r)
			}
		}
		out[a.String()] = true
	}
	return out
}
