package mcpserver

import (
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"fmt"
	"strings"
	"sync"
)

// The terminal app is one self-contained HTML document: the web view's
// xterm.js and the MCP Apps app library (both vendored by
// scripts/vendor-ext-apps under app/vendor) and the app's own code, all
// inline, under a Content-Security-Policy that admits exactly those
// scripts by hash and no network at all.

//go:embed app/terminal.html app/terminal.css app/terminal.js app/vendor/xterm/xterm.css app/vendor/xterm/xterm.js app/vendor/ext-apps/app.js
var appFiles embed.FS

// appScripts are inlined in this order: xterm, the app library, the app.
var appScripts = []string{"app/vendor/xterm/xterm.js", "app/vendor/ext-apps/app.js", "app/terminal.js"}

// appHTML is the document, composed once.
var appHTML = sync.OnceValue(func() string {
	html, err := composeApp()
	if err != nil {
		panic(err) // the embedded files are fixed at build time; TestApp_HTML builds it
	}
	return html
})

func composeApp() (string, error) {
	read := func(name string) (string, error) {
		b, err := appFiles.ReadFile(name)
		return string(b), err
	}
	page, err := read("app/terminal.html")
	if err != nil {
		return "", err
	}
	var style strings.Builder
	for _, name := range []string{"app/vendor/xterm/xterm.css", "app/terminal.css"} {
		css, err := read(name)
		if err != nil {
			return "", err
		}
		if strings.Contains(strings.ToLower(css), "</style") {
			return "", fmt.Errorf("%s would end its inline <style>", name)
		}
		style.WriteString(css)
	}
	var scripts strings.Builder
	csp := []string{"default-src 'none'", "script-src"}
	for _, name := range appScripts {
		js, err := read(name)
		if err != nil {
			return "", err
		}
		if l := strings.ToLower(js); strings.Contains(l, "</script") || strings.Contains(l, "<!--") {
			return "", fmt.Errorf("%s would end or escape its inline <script>", name)
		}
		sum := sha256.Sum256([]byte(js))
		csp[1] += " 'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
		scripts.WriteString("<script>" + js + "</script>\n")
	}
	// xterm sets inline styles and style elements as it renders.
	csp = append(csp, "style-src 'unsafe-inline'", "img-src data:", "font-src data:", "connect-src 'none'",
		"frame-src 'none'", "base-uri 'none'", "form-action 'none'")
	r := strings.NewReplacer("{{CSP}}", strings.Join(csp, "; "), "{{STYLE}}", style.String(), "{{SCRIPTS}}", scripts.String())
	return r.Replace(page), nil
}
