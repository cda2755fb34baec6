package mcpserver

// Wire types of write_file: what agents send and read.
// Engine types never carry json tags; handlers convert (convert_*.go).

// WriteFileInput are write_file's arguments.
type WriteFileInput struct {
	SessionID string `json:"session_id,omitempty"`
	Path      string `json:"path"`
	Content   string `json:"content"`
	Encoding  string `json:"encoding,omitempty" jsonschema:"utf-8 (default) or base64"`
	Append    bool   `json:"append,omitempty"`
	MakeDirs  bool   `json:"make_dirs,omitempty" jsonschema:"create parent directories"`
}

// WriteFileResult is write_file's result.
type WriteFileResult struct {
	Path     string `json:"path" jsonschema:"absolute path written"`
	Bytes    int    `json:"bytes" jsonschema:"bytes written by this call"`
	Size     int64  `json:"size" jsonschema:"file size afterwards"`
	Appended bool   `json:"appended"`
	Created  bool   `json:"created"`
}
