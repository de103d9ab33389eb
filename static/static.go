// Package static holds the playground's CSS, JavaScript modules and images,
// embedded so that the binary is the whole deployment.
package static

import "embed"

// FS holds css/, js/ and img/. The web server serves it under /static/.
//
//go:embed css js img
var FS embed.FS
