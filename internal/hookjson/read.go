package hookjson

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/tidwall/gjson"
)

// Str reads a string member of obj; a required one must be present and non-empty. A member
// that is null counts as absent; any other type is an error.
func Str(obj gjson.Result, key string, required bool) (string, error) {
	v := obj.Get(Key(key))
	switch {
	case !v.Exists() || v.Type == gjson.Null:
		if required {
			return "", fmt.Errorf("%s is missing", key)
		}
		return "", nil
	case v.Type != gjson.String:
		return "", fmt.Errorf("%s is not a string", key)
	case required && v.Str == "":
		return "", fmt.Errorf("%s is empty", key)
	}
	return v.Str, nil
}

// Key escapes the characters gjson treats as path syntax, so that a key is read as a key.
func Key(k string) string {
	if !strings.ContainsAny(k, `.*?|#@\`) {
		return k
	}
	var b strings.Builder
	for i := 0; i < len(k); i++ {
		if strings.IndexByte(`.*?|#@\`, k[i]) >= 0 {
			b.WriteByte('\\')
		}
		b.WriteByte(k[i])
	}
	return b.String()
}

// ReplaceString returns the object in with the string member key replaced by value: the new
// string spliced in where the old one's value stood, every other byte as the client sent it.
// The member replaced is the one gjson reads (the one a decoder judged, when it refused
// duplicate keys), so the value judged is the value the client runs.
func ReplaceString(in json.RawMessage, key, value string) (json.RawMessage, error) {
	old := gjson.GetBytes(in, Key(key))
	if old.Type != gjson.String || old.Index <= 0 || old.Index+len(old.Raw) > len(in) || string(in[old.Index:old.Index+len(old.Raw)]) != old.Raw {
		return nil, fmt.Errorf("failed to find the %s in the tool input", key)
	}
	out := make([]byte, 0, len(in)+len(value)+16)
	out = append(out, in[:old.Index]...)
	out = AppendString(out, value)
	out = append(out, in[old.Index+len(old.Raw):]...)
	return out, nil
}
