package web

import (
	"bytes"
	"compress/gzip"
	"io"
	"math/rand/v2"
	"net/http"
	"strings"
	"testing"
)

// TestDeflatedPiecesMakeOneGzipBody: pieces deflated each on its own,
// laid end to end between gzipStream's header and end, read back as one
// gzip body holding the texts in order, with a right checksum, whatever
// their sizes (empty, small, and larger than deflate's 32 KB window).
func TestDeflatedPiecesMakeOneGzipBody(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var texts [][]byte
	for _, n := range []int{0, 1, 14, 300, 40_000, 0, 200_000, 5} {
		b := make([]byte, n)
		for i := range b {
			b[i] = "event: data{}\"0123456789 ,\n"[r.IntN(27)]
		}
		texts = append(texts, b)
	}
	var wire, want bytes.Buffer
	var z gzipStream
	for _, text := range texts {
		wire.Write(z.begin())
		z.count(text)
		wire.Write(deflateAlone(text))
		want.Write(text)
	}
	wire.Write(z.end())
	zr, err := gzip.NewReader(&wire)
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(zr)
	if err != nil {
		t.Fatalf("reading the body: %v", err)
	}
	if !bytes.Equal(got, want.Bytes()) {
		t.Fatalf("read %d bytes, want the %d sent", len(got), want.Len())
	}

	// A stream that sent nothing still ends as a whole (empty) body.
	var empty gzipStream
	zr, err = gzip.NewReader(bytes.NewReader(empty.end()))
	if err != nil {
		t.Fatal(err)
	}
	if got, err := io.ReadAll(zr); err != nil || len(got) != 0 {
		t.Errorf("an empty stream reads %q, %v", got, err)
	}
}

func TestAcceptsGzip(t *testing.T) {
	for accept, want := range map[string]bool{
		"":                        false,
		"gzip":                    true,
		"gzip, deflate, br, zstd": true,
		"br;q=1.0, GZIP;q=0.5":    true,
		"gzip;q=0":                false,
		"gzip; q=0.000, deflate":  false,
		"identity":                false,
		"x-gzip":                  false,
		"deflate, gzip ;q=0.1":    true,
		"gzip;Q=0":                false, // the parameter's name is case-insensitive
		"gzip;q=0.":               false,
		"gzip; Q = 0.0":           false,
		"gzip;q=0.001":            true,
	} {
		r, _ := http.NewRequest("GET", "/", nil)
		r.Header.Set("Accept-Encoding", accept)
		if got := acceptsGzip(r); got != want {
			t.Errorf("Accept-Encoding %q: gzip accepted %v, want %v", accept, got, want)
		}
	}
	r, _ := http.NewRequest("GET", "/", nil)
	r.Header.Add("Accept-Encoding", "br")
	r.Header.Add("Accept-Encoding", strings.ToUpper("gzip"))
	if !acceptsGzip(r) {
		t.Error("gzip in a second Accept-Encoding field is not read")
	}
}
