// Package hookfile edits the JSON files other clients register hooks in (Codex's hooks.json,
// Qwen Code's and Gemini CLI's settings.json, Cursor's hooks.json): it adds one hook group to
// the array at a path such as hooks.PreToolUse, or takes hookctl's groups out again, splicing
// the text so that every other byte of the file stays as it was.
//
// Threat model: the file may hold anything the user, another tool or a model wrote. A file that
// is not one JSON object, holds a key twice (readers disagree on which counts) or whose path
// holds something other than objects and an array is refused, never rewritten. After each edit
// the result is read back and must hold the same values as before apart from hookctl's group.
// It runs in hookctl install, uninstall and doctor.
package hookfile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/hookctl/hookctl/internal/hookjson"
	"github.com/hookctl/hookctl/session"
)

// Ours reports whether a hook group is hookctl's.
type Ours func(group gjson.Result) bool

// Add returns text with group (JSON text) at the end of the array at path, which it creates
// where it is missing; any other group of hookctl's in that array is taken out. Blank text is a
// new file, begun as init (JSON text of an object, "" for {}). Text that already holds exactly
// group, and no other group of hookctl's, comes back unchanged with changed false.
func Add(text []byte, path []string, group string, ours Ours, init string) (out []byte, changed bool, err error) {
	if !gjson.Valid(group) {
		return nil, false, fmt.Errorf("hookctl's hook group is not JSON")
	}
	if len(bytes.TrimSpace(text)) == 0 {
		if init == "" {
			init = "{}"
		}
		out, _, err := Add([]byte(init), path, group, ours, "")
		if err != nil {
			return nil, false, err
		}
		return pretty(out), true, nil
	}
	root, err := parse(text)
	if err != nil {
		return nil, false, err
	}
	arr, err := walk(root, path)
	if err != nil {
		return nil, false, err
	}
	if arr.Exists() {
		n, exact := 0, false
		arr.ForEach(func(_, g gjson.Result) bool {
			if ours(g) {
				n++
				exact = compact(g.Raw) == compact(group)
			}
			return true
		})
		if n == 1 && exact {
			return text, false, nil
		}
	}
	before := text
	if text, _, err = Remove(text, path, ours); err != nil {
		return nil, false, err
	}
	root, _ = parse(text)
	// The deepest part of the path that exists, and what to put in it.
	cur, i := root, 0
	for ; i < len(path); i++ {
		next := cur.Get(hookjson.Key(path[i]))
		if !next.Exists() {
			break
		}
		cur = next
	}
	var edit []byte
	if i == len(path) {
		edit, err = insertElement(text, cur, group)
	} else {
		value := "[" + group + "]"
		for j := len(path) - 1; j > i; j-- {
			value = `{` + string(hookjson.AppendString(nil, path[j])) + `:` + value + `}`
		}
		edit, err = insertMember(text, cur, path[i], value)
	}
	if err != nil {
		return nil, false, err
	}
	if err := sameApartFromOurs(before, edit, path, ours); err != nil {
		return nil, false, err
	}
	return edit, true, nil
}

// Remove returns text without hookctl's groups in the array at path. Nothing else is taken out:
// an array or object left empty stays, so that a file hookctl did not create is left as it was
// apart from hookctl's entry (install's own record puts back a file it created).
func Remove(text []byte, path []string, ours Ours) (out []byte, changed bool, err error) {
	if len(bytes.TrimSpace(text)) == 0 {
		return text, false, nil
	}
	root, err := parse(text)
	if err != nil {
		return nil, false, err
	}
	arr, err := walk(root, path)
	if err != nil || !arr.Exists() {
		return text, false, err
	}
	type span struct{ start, end int }
	var elems []span
	var drop []bool
	arr.ForEach(func(_, g gjson.Result) bool {
		elems = append(elems, span{g.Index, g.Index + len(g.Raw)})
		drop = append(drop, ours(g))
		return true
	})
	out = append([]byte(nil), text...)
	// From the last, so that earlier offsets stay right. An element goes with the comma before
	// it, or, when it is the first kept-or-not element, with the comma after it.
	for k := len(elems) - 1; k >= 0; k-- {
		if !drop[k] {
			continue
		}
		start, end := elems[k].start, elems[k].end
		if k > 0 {
			start = elems[k-1].end
		} else if k+1 < len(elems) {
			end = elems[k+1].start
		} else {
			// The only element: keep the brackets, drop what lay between them.
			start, end = arr.Index+1, arr.Index+len(arr.Raw)-1
		}
		out = append(out[:start:start], out[end:]...)
		changed = true
		// Once an element went, the next one down the array is now the last before a removed
		// span; recomputing the spans is simpler than shifting them.
		if k > 0 {
			out, _, err = Remove(out, path, ours)
			return out, true, err
		}
	}
	return out, changed, nil
}

func parse(text []byte) (gjson.Result, error) {
	if !gjson.ValidBytes(text) {
		return gjson.Result{}, fmt.Errorf("the file is not valid JSON (comments and trailing commas are not read)")
	}
	root := gjson.ParseBytes(text)
	if !root.IsObject() {
		return gjson.Result{}, fmt.Errorf("the file does not hold a JSON object")
	}
	if k := session.DuplicateKey(root); k != "" {
		return gjson.Result{}, fmt.Errorf("the key %q appears twice", k)
	}
	return root, nil
}

// walk returns the array at path (absent if any part is missing), refusing a path through
// something other than objects.
func walk(root gjson.Result, path []string) (gjson.Result, error) {
	cur := root
	for i, k := range path {
		next := cur.Get(hookjson.Key(k))
		if !next.Exists() {
			return gjson.Result{}, nil
		}
		if i < len(path)-1 && !next.IsObject() || i == len(path)-1 && !next.IsArray() {
			return gjson.Result{}, fmt.Errorf("%s is not an %s", strings.Join(path[:i+1], "."), map[bool]string{true: "array", false: "object"}[i == len(path)-1])
		}
		cur = next
	}
	return cur, nil
}

// insertMember adds "key": value at the end of object obj.
func insertMember(text []byte, obj gjson.Result, key, value string) ([]byte, error) {
	if !obj.IsObject() {
		return nil, fmt.Errorf("%q's parent is not an object", key)
	}
	member := string(hookjson.AppendString(nil, key)) + ": " + value
	return insertLast(text, obj, member)
}

// insertElement adds value at the end of array arr.
func insertElement(text []byte, arr gjson.Result, value string) ([]byte, error) {
	if !arr.IsArray() {
		return nil, fmt.Errorf("not an array")
	}
	return insertLast(text, arr, value)
}

// insertLast puts item after the last member or element of container c, or alone in it.
func insertLast(text []byte, c gjson.Result, item string) ([]byte, error) {
	last := -1
	c.ForEach(func(_, v gjson.Result) bool {
		last = v.Index + len(v.Raw)
		return true
	})
	closing := c.Index + len(c.Raw) - 1
	if c.Index < 0 || closing >= len(text) || text[closing] != c.Raw[len(c.Raw)-1] {
		return nil, fmt.Errorf("failed to find where to add hookctl's entry")
	}
	var ins string
	at := closing
	if last >= 0 {
		at, ins = last, ", "+item
	} else {
		ins = item
	}
	out := make([]byte, 0, len(text)+len(ins))
	out = append(out, text[:at]...)
	out = append(out, ins...)
	return append(out, text[at:]...), nil
}

// sameApartFromOurs checks an edit: the two texts must hold the same values once hookctl's
// groups (and the containers only they filled) are taken out.
func sameApartFromOurs(a, b []byte, path []string, ours Ours) error {
	strip := func(text []byte) (string, error) {
		out, _, err := Remove(text, path, ours)
		if err != nil {
			return "", err
		}
		var v any
		if err := json.Unmarshal(out, &v); err != nil {
			return "", err
		}
		prune(v, path)
		c, _ := json.Marshal(v)
		return string(c), nil
	}
	x, err1 := strip(a)
	y, err2 := strip(b)
	if err1 != nil || err2 != nil || x != y {
		return fmt.Errorf("failed to edit: the result would change settings that are not hookctl's")
	}
	return nil
}

// prune removes the empty containers along path, which an edit may add.
func prune(v any, path []string) bool {
	m, ok := v.(map[string]any)
	if !ok || len(path) == 0 {
		return false
	}
	child := m[path[0]]
	if len(path) == 1 {
		if a, ok := child.([]any); ok && len(a) == 0 {
			delete(m, path[0])
		}
	} else if prune(child, path[1:]) {
		delete(m, path[0])
	}
	return len(m) == 0
}

func compact(s string) string {
	var b bytes.Buffer
	if json.Compact(&b, []byte(s)) != nil {
		return s
	}
	return b.String()
}

// pretty indents a new file two spaces, as the clients' own files are.
func pretty(text []byte) []byte {
	var b bytes.Buffer
	if json.Indent(&b, text, "", "  ") != nil {
		return text
	}
	return append(b.Bytes(), '\n')
}

// Pin returns text with the value at path (an object member, made with the objects above it
// where missing) set to value, JSON text: a setting hookctl's registration depends on, such as
// a client's switch for all hooks. Text that holds value there already comes back unchanged.
func Pin(text []byte, path []string, value string) (out []byte, changed bool, err error) {
	if !gjson.Valid(value) || len(path) == 0 {
		return nil, false, fmt.Errorf("a pinned setting must be JSON at a path")
	}
	if len(bytes.TrimSpace(text)) == 0 {
		text = []byte("{}")
	}
	root, err := parse(text)
	if err != nil {
		return nil, false, err
	}
	cur, i := root, 0
	for ; i < len(path); i++ {
		next := cur.Get(hookjson.Key(path[i]))
		if !next.Exists() {
			break
		}
		if i < len(path)-1 && !next.IsObject() {
			return nil, false, fmt.Errorf("%s is not an object", strings.Join(path[:i+1], "."))
		}
		cur = next
	}
	if i == len(path) {
		if compact(cur.Raw) == compact(value) {
			return text, false, nil
		}
		out = append(append(append([]byte{}, text[:cur.Index]...), value...), text[cur.Index+len(cur.Raw):]...)
	} else {
		v := value
		for j := len(path) - 1; j > i; j-- {
			v = `{` + string(hookjson.AppendString(nil, path[j])) + `:` + v + `}`
		}
		if out, err = insertMember(text, cur, path[i], v); err != nil {
			return nil, false, err
		}
	}
	got, err := parse(out)
	for _, k := range path {
		got = got.Get(hookjson.Key(k))
	}
	if err != nil || compact(got.Raw) != compact(value) {
		return nil, false, fmt.Errorf("failed to set %s", strings.Join(path, "."))
	}
	return out, true, nil
}
