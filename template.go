// Package benchgate holds the files of this repository that the benchgate
// command writes into new leaderboard repositories, so that a new board
// gets exactly the submission template this one ships.
package benchgate

import "embed"

// Template is submissions/_template, the folder a contributor copies.
//
//go:embed submissions/_template
var Template embed.FS

// TemplateDir is Template's folder, as it is named in every leaderboard.
const TemplateDir = "submissions/_template"
