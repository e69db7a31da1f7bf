package retriever

import (
	"strings"

	"github.com/hookctl/hookctl/internal/wordlist"
)

// How the retriever reads a media type. The worker reads content by it; the front names a type
// to the agent only through ShownMediaType, since the server chose it.

// MediaKind is how a media type is read.
type MediaKind int

const (
	MediaBinary MediaKind = iota // not read: refused
	MediaHTML                    // converted to text
	MediaText                    // read as text
)

// mediaTextTypes are the application/ types read as text, space-separated (a string, not a
// map: a map literal is built on every start of the hook process, which links this package). JavaScript is included: it is text a
// reader may ask about, and the distiller reads every document as data, never as instructions.
var mediaTextTypes = "application/json application/xml application/javascript application/x-javascript application/ecmascript application/yaml application/x-yaml application/toml application/x-ndjson application/x-sh application/sql application/graphql"

// mediaKnownTypes are the media types named to the agent. The server chooses the type, and
// text/<anything> is read, so any other is shown only by its class.
var mediaKnownTypes = "text/html text/plain text/markdown text/x-markdown text/csv text/xml text/css text/javascript application/xhtml+xml application/pdf application/octet-stream application/zip application/gzip application/x-tar application/wasm application/msword image/png image/jpeg image/gif image/webp image/svg+xml image/x-icon audio/mpeg video/mp4 font/woff2"

// ShownMediaType is a media type as the agent may see it: a well-known type by name, any other
// only as "an unrecognised text type" or "an unrecognised type".
func ShownMediaType(media string) string {
	switch {
	case wordlist.Has(mediaKnownTypes, media) || wordlist.Has(mediaTextTypes, media):
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
	case wordlist.Has(mediaTextTypes, media):
		return MediaText
	case strings.HasPrefix(media, "application/") &&
		(strings.HasSuffix(media, "+json") || strings.HasSuffix(media, "+xml")):
		return MediaText
	}
	return MediaBinary
}
