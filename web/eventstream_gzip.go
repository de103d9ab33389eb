package web

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"hash/crc32"
	"net/http"
	"strconv"
	"strings"
)

// A live dashboard is sent whole on every change, hundreds of kilobytes
// for a large class, to every stream of the class, so its stream is
// gzip-compressed for a browser that accepts it. Compressing per stream
// would cost the server once per stream and change, which a feed exists
// to avoid; instead each event is deflated once, for every stream, on
// its own: a fresh compressor (nothing refers back before the event)
// ended by a sync flush (byte-aligned, not final). Such pieces laid end
// to end form one valid deflate stream, so a stream's body is a gzip
// header, the pieces of the events it sends, and, when it ends, a final
// empty block and the trailer; each stream only keeps the checksum and
// length of what it sent.

// deflateAlone deflates text as such a piece.
func deflateAlone(text []byte) []byte {
	var b bytes.Buffer
	zw, _ := flate.NewWriter(&b, flate.DefaultCompression) // the level is valid
	_, _ = zw.Write(text)                                  // a bytes.Buffer does not fail
	_ = zw.Flush()
	return b.Bytes()
}

// gzipHeader is a gzip member's header: deflate, no name, no time, an
// unknown OS.
var gzipHeader = []byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff}

// gzipFinal is a final, empty, fixed-Huffman deflate block: it ends the
// deflate stream the pieces make.
var gzipFinal = []byte{0x03, 0x00}

// gzipStream is what one compressed stream keeps: whether its header
// went out, and the checksum and length of the text its pieces hold.
type gzipStream struct {
	started bool
	crc     uint32
	size    uint32
}

// begin is what goes before the stream's first piece: the header, once.
func (z *gzipStream) begin() []byte {
	if z.started {
		return nil
	}
	z.started = true
	return gzipHeader
}

// count adds text, whose piece is being sent, to the trailer's sums.
func (z *gzipStream) count(text []byte) {
	z.crc = crc32.Update(z.crc, crc32.IEEETable, text)
	z.size += uint32(len(text)) // gzip's ISIZE is the length modulo 2^32
}

// end is the stream's last bytes: the header if nothing went before, the
// final block and the trailer.
func (z *gzipStream) end() []byte {
	out := append([]byte(nil), z.begin()...)
	out = append(out, gzipFinal...)
	out = binary.LittleEndian.AppendUint32(out, z.crc)
	return binary.LittleEndian.AppendUint32(out, z.size)
}

// acceptsGzip says whether the request's Accept-Encoding takes gzip (and
// does not refuse it with q=0).
func acceptsGzip(r *http.Request) bool {
	for _, field := range r.Header.Values("Accept-Encoding") {
		for part := range strings.SplitSeq(field, ",") {
			coding, params, _ := strings.Cut(strings.TrimSpace(part), ";")
			if !strings.EqualFold(strings.TrimSpace(coding), "gzip") {
				continue
			}
			// A weight of 0 (q=0, Q=0.0, q=0.) refuses it; the
			// parameter's name is case-insensitive.
			q, isWeight := strings.CutPrefix(strings.ToLower(strings.ReplaceAll(strings.TrimSpace(params), " ", "")), "q=")
			w, err := strconv.ParseFloat(strings.TrimSuffix(q, "."), 64)
			return !isWeight || err != nil || w != 0
		}
	}
	return false
}
