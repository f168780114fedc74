package console

import (
	"embed"
	"io/fs"
	"net/http"
)

// web holds the page: index.html, its ES modules and its style sheet.
//
//go:embed web
var web embed.FS

// Assets are the embedded files of the page, rooted at web/.
func Assets() fs.FS {
	sub, err := fs.Sub(web, "web")
	if err != nil {
		panic(err) // the embed pattern above guarantees web/
	}
	return sub
}

// assetHandler serves the page's files under Prefix; every other path
// under it that is not an API path gets index.html.
func assetHandler() http.Handler {
	files := http.StripPrefix(Prefix, http.FileServerFS(Assets()))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-cache")
		files.ServeHTTP(w, r)
	})
}
