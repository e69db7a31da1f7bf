package retriever

import "strings"

// How the retriever reads a media type. The worker reads content by it; the front names a type
// to the agent only through ShownMediaType, since the server chose it.

// MediaKind is how a media type is read.
type MediaKind int

const (
	MediaBinary MediaKind = iota // not read: refused
	MediaHTML                    // converted to text
	MediaText                    // read as text
)

// mediaTextTypes are the application/ types read as text. JavaScript is included: it is text a
// reader may ask about, and the distiller reads every document as data, never as instructions.
var mediaTextTypes = map[string]bool{
	"application/json": true, "application/xml": true, "application/javascript": true,
	"application/x-javascript": true, "application/ecmascript": true, "application/yaml": true,
	"application/x-yaml": true, "application/toml": true, "application/x-ndjson": true,
	"application/x-sh": true, "application/sql": true, "application/graphql": true,
}

// mediaKnownTypes are the media types named to the agent. The server chooses the type, and
// text/<anything> is read, so any other is shown only by its class.
var mediaKnownTypes = map[string]bool{
	"text/html": true, "text/plain": true, "text/markdown": true, "text/x-markdown": true, "text/csv": true,
	"text/xml": true, "text/css": true, "text/javascript": true, "application/xhtml+xml": true,
	"application/pdf": true, "application/octet-stream": true, "application/zip": true, "application/gzip": true,
	"application/x-tar": true, "application/wasm": true, "application/msword": true,
	"image/png": true, "image/jpeg": true, "image/gif": true, "image/webp": true, "image/svg+xml": true,
	"image/x-icon": true, "audio/mpeg": true, "video/mp4": true, "font/woff2": true,
}

// ShownMediaType is a media type as the agent may see it: a well-known type by name, any other
// only as "an unrecognised text type" or "an unrecognised type".
func ShownMediaType(media string) string {
	switch {
	case mediaKnownTypes[media] || mediaTextTypes[media]:
		return media
	case ClassifyMedia(media) != MediaBinary:
		return "an unrecognised text type"
	}
	return "an unrecognised type"
}

// ClassifyMedia says how a media type is read. The default denies.
func ClassifyMedia(media string) MediaKind {
	switch {
	case media == "text/html" || media == "application/xhtml+xml":
		return MediaHTML
	case strings.HasPrefix(media, "text/"):
		return MediaText
	case mediaTextTypes[media]:
		return MediaText
	case strings.HasPrefix(media, "application/") &&
		(strings.HasSuffix(media, "+json") || strings.HasSuffix(media, "+xml")):
		return MediaText
	}
	return MediaBinary
}
