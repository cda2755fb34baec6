package main

// browserOpener is the URL handler behind "start", called directly: cmd's
// start would read the & between query parameters as a command separator.
func browserOpener(url string) (string, []string) {
	return "rundll32", []string{"url.dll,FileProtocolHandler", url}
}
