package mcpserver

// Wire types of write_file: what agents send and read.
// Engine types never carry json tags; handlers convert (convert_*.go).

// WriteFileInput are write_file's arguments.
type WriteFileInput struct {
	SessionID string `json:"session_id,omitempty" jsonschema:"shell session whose current directory a relative path is resolved against (default: the server's directory)"`
	Path      string `json:"path" jsonschema:"file path, relative or absolute"`
	Content   string `json:"content" jsonschema:"what to write"`
	Encoding  string `json:"encoding,omitempty" jsonschema:"utf-8 (default: content is the text) or base64 (content is base64 of the bytes)"`
	Append    bool   `json:"append,omitempty" jsonschema:"append instead of replacing"`
	MakeDirs  bool   `json:"make_dirs,omitempty" jsonschema:"create missing parent directories"`
}

// WriteFileResult is write_file's result.
type WriteFileResult struct {
	Path     string `json:"path" jsonschema:"absolute path written"`
	Bytes    int    `json:"bytes" jsonschema:"bytes written by this call"`
	Size     int64  `json:"size" jsonschema:"file size afterwards"`
	Appended bool   `json:"appended"`
	Created  bool   `json:"created"`
}
