package mcpserver

// Cursor is read_screen's cursor: the wire form of screen.Cursor.
type Cursor struct {
	Row     int  `json:"row"`
	Col     int  `json:"col"`
	Visible bool `json:"visible"`
}
