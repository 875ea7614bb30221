package ranking

import (
	"encoding/json"
	"io"
)

// RenderJSON writes leaderboard.json. Its shape is documented by
// schemas/leaderboard.schema.json.
func RenderJSON(w io.Writer, b *Board) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(b)
}
