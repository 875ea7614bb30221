// Package docs holds benchgate's documentation, and the one file of it that
// the program reads: the GitHub App's manifest, which `benchgate setup-app`
// posts to GitHub, so that the documented App and the created one never
// differ.
package docs

import _ "embed"

// AppManifest is app-manifest.json: the App's name, permissions and
// events, with example addresses that setup-app replaces.
//
//go:embed app-manifest.json
var AppManifest []byte
