package web

import (
	"bytes"
	"compress/gzip"
	"io/fs"
	"sync"

	"github.com/leaselab/playground/static"
)

// staticPlain holds every static file as it is, read once: an embedded
// file read with fs.ReadFile is a fresh copy, which every request for it
// would make and drop again.
var staticPlain = sync.OnceValue(func() map[string][]byte {
	out := map[string][]byte{}
	_ = fs.WalkDir(static.FS, ".", func(name string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if data, err := fs.ReadFile(static.FS, name); err == nil {
				out[name] = data
			}
		}
		return nil
	})
	return out
})

// staticGzipped holds the static files worth compressing, gzipped once
// for the life of the process: every learner's first page loads the
// scripts and style sheets, a class of 200 arriving at once on one
// school's wifi among them. A file is kept only when gzip makes it at
// least a tenth smaller (the images mostly are not). Static files hold no
// secret and nothing a visitor sends, so compressing them tells nobody
// anything by the length.
var staticGzipped = sync.OnceValue(func() map[string][]byte {
	out := map[string][]byte{}
	_ = fs.WalkDir(static.FS, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		data, ok := staticPlain()[name]
		if !ok {
			return nil
		}
		var b bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&b, gzip.BestCompression) // the level is valid
		_, _ = zw.Write(data)                                  // a bytes.Buffer does not fail
		_ = zw.Close()
		if b.Len()*10 <= len(data)*9 {
			out[name] = b.Bytes()
		}
		return nil
	})
	return out
})
