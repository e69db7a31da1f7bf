package proxy

import (
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The model APIs the credential broker speaks, as tables. A request goes to the model only if
// its method, path and query keys are one of its backend's requests and its body has the shape
// of that request: every field, block and tool is admitted by name, and anything else is
// refused with its place in the body. What is left out is everything that makes the provider
// reach the network or another service for the agent — server tools (web search and fetch,
// code execution, MCP toolsets), MCP connectors, URL and Files API sources, containers, stored
// prompts and conversations, batches — since with the user's key the provider would fetch the
// agent's URL, which can carry the repository's secrets, from outside the run's sandbox.
//
// Field names: Anthropic's Messages API and OpenAI's Chat Completions and Responses APIs as
// their SDKs (anthropic-sdk-python, openai-python) define them, and the requests Claude Code
// 2.1.328 sends (seen live).

// apiRequest is one request a backend admits.
type apiRequest struct {
	method string
	// path is exact, or ends in "/*": one more segment (a model's id).
	path string
	// query is the admitted query keys, space-separated.
	query string
	// body is the shape of its JSON body; nil: the request has no body.
	body shape
}

// apiBackend is one model API.
type apiBackend struct {
	requests []apiRequest
	// betaHeader names the header that switches features on (Anthropic's anthropic-beta), and
	// refusedBetas the prefixes of the features it refuses by name. A beta alone reaches
	// nothing: every feature that reaches the network also needs a field or a path the
	// tables refuse. The header is judged by a deny list because an allowlist would refuse
	// each client release's new betas (Claude Code 2.1.328 sends eight, four of them from
	// 2026); the body is where the allowlist holds.
	betaHeader   string
	refusedBetas []string
}

var modelAPIs = map[string]*apiBackend{
	"anthropic": {
		requests: []apiRequest{
			{"POST", "/v1/messages", "beta", anthropicMessages},
			{"POST", "/v1/messages/count_tokens", "beta", anthropicMessages},
			{"GET", "/v1/models", "beta limit after_id before_id", nil},
			{"GET", "/v1/models/*", "beta", nil},
		},
		betaHeader: "Anthropic-Beta",
		refusedBetas: []string{"mcp-client-", "web-fetch-", "web-search-", "code-execution-", "files-api-",
			"skills-", "message-batches-", "container-"},
	},
	"openai": {
		requests: []apiRequest{
			{"POST", "/v1/responses", "", openAIResponses},
			{"POST", "/v1/responses/compact", "", openAIResponses},
			{"POST", "/v1/chat/completions", "", openAIChat},
			{"GET", "/v1/models", "", nil},
			{"GET", "/v1/models/*", "", nil},
		},
	},
}

// Why a field is refused, where the name says more than "not admitted": the features that
// reach the network or another service, by field name or type.
var refusedWhy = []struct{ prefix, why string }{
	{"mcp_servers", "MCP connectors make the provider connect to servers for the agent"},
	{"container", "a code-execution container runs at the provider, with its own network and files"},
	{"web_search", "a server tool: the provider searches the web for the agent"},
	{"web_fetch", "a server tool: the provider fetches URLs for the agent"},
	{"code_execution", "a server tool: the provider runs code, with network, for the agent"},
	{"code_interpreter", "a server tool: the provider runs code, with network, for the agent"},
	{"mcp", "a remote MCP server the provider connects to for the agent"},
	{"file_search", "a server tool over files stored at the provider"},
	{"image_generation", "a server tool: another service of the provider"},
	{"url", "a URL source: the provider fetches it"},
	{"file", "the Files API: content stored at the provider, outside the run"},
	{"file_id", "the Files API: content stored at the provider, outside the run"},
	{"file_url", "a URL source: the provider fetches it"},
	{"image_url", "an image by URL: the provider fetches it (a data: URL is admitted)"},
	{"conversation", "a conversation stored at the provider"},
	{"prompt", "a prompt stored at the provider, with its own tools and files"},
	{"background", "a background response, read back through paths the broker refuses"},
	{"web_search_options", "the provider searches the web for the agent"},
	{"environment", "a hosted container runs the shell at the provider"},
	{"server_tool_use", "a server tool's call"},
	{"container_upload", "a file uploaded to a code-execution container"},
}

func whyRefused(name string) string {
	for _, r := range refusedWhy {
		if name == r.prefix || strings.HasPrefix(name, r.prefix+"_") {
			return r.why
		}
	}
	return "not a field the broker admits"
}

// bodyRefusal is what the broker does not admit in a request: where in the body, and why.
type bodyRefusal struct{ at, why string }

func (r *bodyRefusal) Error() string { return r.at + ": " + r.why }

// shape is what a JSON value may be. check consumes one value from the scanner and reports
// the first thing in it the shape does not admit, at its place.
type shape interface {
	check(s *scanner, at string) *bodyRefusal
}

// anyValue admits any value (the model's own parameters: numbers, schemas, tool inputs).
type anyValue struct{}

func (anyValue) check(s *scanner, at string) *bodyRefusal { return s.skipValue(at) }

// modelName admits the request's model, a string, and keeps it for the broker's record.
type modelName struct{}

func (modelName) check(s *scanner, at string) *bodyRefusal {
	if s.peek() != '"' {
		return s.skipValue(at)
	}
	v, bad := s.stringValue(at)
	s.model = v
	return bad
}

// object admits an object with these keys, each with its value's shape.
type object map[string]shape

func (o object) check(s *scanner, at string) *bodyRefusal {
	return s.object(at, func(key, where string) *bodyRefusal {
		sh, ok := o[key]
		if !ok {
			return &bodyRefusal{where, whyRefused(key)}
		}
		return sh.check(s, where)
	})
}

// kinds admits an object whose "type" names one of its kinds (a name ending in "*" is a
// prefix); one without a type is of kind untyped, if that is set.
type kinds struct {
	of      map[string]object
	untyped string
}

func (k kinds) check(s *scanner, at string) *bodyRefusal {
	if s.peek() != '{' {
		return &bodyRefusal{at, "not an object"}
	}
	// The type may come after the other keys: find it first, then check the object again
	// by its kind's shape.
	start, name, typed := s.pos, "", false
	bad := s.object(at, func(key, where string) *bodyRefusal {
		if key != "type" {
			return s.skipValue(where)
		}
		if s.peek() != '"' {
			return &bodyRefusal{where, "not a string"}
		}
		var bad *bodyRefusal
		name, bad = s.stringValue(where)
		typed = true
		return bad
	})
	if bad != nil {
		return bad
	}
	s.pos = start
	if !typed {
		if k.untyped == "" {
			return &bodyRefusal{join(at, "type"), "missing"}
		}
		name = k.untyped
	}
	o, ok := k.of[name]
	if !ok {
		for p, po := range k.of {
			if base, wild := strings.CutSuffix(p, "*"); wild && strings.HasPrefix(name, base) {
				o, ok = po, true
				break
			}
		}
	}
	if !ok {
		return &bodyRefusal{join(at, "type") + " " + strconv.Quote(clip(name, 60)), whyRefused(name)}
	}
	return o.check(s, at)
}

// list admits an array of one shape.
type list struct{ of shape }

func (l list) check(s *scanner, at string) *bodyRefusal {
	return s.array(at, func(where string) *bodyRefusal { return l.of.check(s, where) })
}

// textOr admits a string, or the shape.
type textOr struct{ of shape }

func (t textOr) check(s *scanner, at string) *bodyRefusal {
	if s.peek() == '"' {
		return s.skipValue(at)
	}
	return t.of.check(s, at)
}

// oneOf admits one of these strings.
type oneOf []string

func (o oneOf) check(s *scanner, at string) *bodyRefusal {
	if s.peek() != '"' {
		return &bodyRefusal{at, "not a string"}
	}
	v, bad := s.stringValue(at)
	if bad == nil && !slices.Contains(o, v) {
		bad = &bodyRefusal{at + " " + strconv.Quote(clip(v, 60)), whyRefused(v)}
	}
	return bad
}

// dataURL admits a data: URL, whose content is in the request, not at an address.
type dataURL struct{}

func (dataURL) check(s *scanner, at string) *bodyRefusal {
	if s.peek() == '"' {
		start := s.pos
		if bad := s.skipValue(at); bad != nil {
			return bad
		}
		// The scheme, as a URL parser reads it: after leading blanks, before the first colon;
		// escapes decoded.
		v, _ := (&scanner{data: s.data[start:s.pos]}).stringValue(at)
		if scheme, _, ok := strings.Cut(strings.TrimLeft(v, " \t\r\n\f"), ":"); ok && strings.EqualFold(scheme, "data") {
			return nil
		}
	}
	return &bodyRefusal{at, "an address the provider would fetch (only data: URLs are admitted)"}
}

func join(at, key string) string {
	if at == "" {
		return key
	}
	return at + "." + key
}

// with is o plus more keys.
func (o object) with(more object) object {
	n := object{}
	for k, v := range o {
		n[k] = v
	}
	for k, v := range more {
		n[k] = v
	}
	return n
}

var any_ = anyValue{}

// Anthropic's Messages API.
var (
	anthropicText = object{"type": any_, "text": any_, "cache_control": any_, "citations": any_}
	// Sources inline in the request; "url" and "file" (the Files API) are not.
	anthropicImage = object{"type": any_, "cache_control": any_,
		"source": kinds{of: map[string]object{"base64": {"type": any_, "media_type": any_, "data": any_}}}}
	anthropicDocument = object{"type": any_, "title": any_, "context": any_, "citations": any_, "cache_control": any_,
		"source": kinds{of: map[string]object{
			"base64":  {"type": any_, "media_type": any_, "data": any_},
			"text":    {"type": any_, "media_type": any_, "data": any_},
			"content": {"type": any_, "content": textOr{list{kinds{of: map[string]object{"text": anthropicText, "image": anthropicImage}}}}},
		}}}
	anthropicSearchResult = object{"type": any_, "source": any_, "title": any_, "citations": any_, "cache_control": any_,
		"content": list{kinds{of: map[string]object{"text": anthropicText}}}}
	anthropicToolReference = object{"type": any_, "tool_name": any_, "cache_control": any_}
	anthropicBlock         = kinds{of: map[string]object{
		"text":              anthropicText,
		"image":             anthropicImage,
		"document":          anthropicDocument,
		"search_result":     anthropicSearchResult,
		"thinking":          {"type": any_, "thinking": any_, "signature": any_},
		"redacted_thinking": {"type": any_, "data": any_},
		"tool_use": {"type": any_, "id": any_, "name": any_, "input": any_, "cache_control": any_,
			"caller": kinds{of: map[string]object{"direct": {"type": any_}}}},
		"tool_result": {"type": any_, "tool_use_id": any_, "is_error": any_, "cache_control": any_,
			"content": textOr{list{kinds{of: map[string]object{"text": anthropicText, "image": anthropicImage,
				"document": anthropicDocument, "search_result": anthropicSearchResult, "tool_reference": anthropicToolReference}}}}},
		"tool_reference":  anthropicToolReference,
		"compaction":      {"type": any_, "content": any_, "encrypted_content": any_, "cache_control": any_},
		"mid_conv_system": {"type": any_, "content": list{kinds{of: map[string]object{"text": anthropicText}}}, "cache_control": any_},
		"fallback":        {"type": any_, "from": any_, "to": any_},
	}}
	// Tools the client runs: its own (no type, or "custom") and Anthropic's client tools
	// (bash, the text editor, computer use, memory), which the model asks the client to run.
	// Server tools — web search and fetch, code execution, tool search, MCP toolsets — are
	// not here.
	anthropicClientTool = object{"type": any_, "name": any_, "cache_control": any_, "defer_loading": any_, "strict": any_,
		"input_examples": any_, "allowed_callers": list{oneOf{"direct"}}}
	anthropicTool = kinds{untyped: "custom", of: map[string]object{
		"custom":        anthropicClientTool.with(object{"description": any_, "input_schema": any_, "eager_input_streaming": any_}),
		"bash_*":        anthropicClientTool,
		"text_editor_*": anthropicClientTool.with(object{"max_characters": any_}),
		"computer_*":    anthropicClientTool.with(object{"display_width_px": any_, "display_height_px": any_, "display_number": any_, "enable_zoom": any_}),
		"memory_*":      anthropicClientTool,
	}}
	anthropicMessages = object{
		"model": modelName{}, "max_tokens": any_, "metadata": any_, "stop_sequences": any_, "stream": any_,
		"temperature": any_, "top_k": any_, "top_p": any_, "thinking": any_, "tool_choice": any_,
		"service_tier": any_, "context_management": any_, "output_config": any_, "output_format": any_,
		"cache_control": any_, "inference_geo": any_, "speed": any_,
		"system": textOr{list{kinds{of: map[string]object{"text": anthropicText}}}},
		// A message's own output_config (its effort): Claude Code 2.1.328 sends one on its
		// mid-conversation system message.
		"messages": list{object{"role": any_, "content": textOr{list{anthropicBlock}}, "output_config": any_}},
		"tools":    list{anthropicTool},
	}
)

// OpenAI's Chat Completions API.
var (
	openAIChatPart = kinds{of: map[string]object{
		"text":        {"type": any_, "text": any_},
		"refusal":     {"type": any_, "refusal": any_},
		"image_url":   {"type": any_, "image_url": object{"url": dataURL{}, "detail": any_}},
		"input_audio": {"type": any_, "input_audio": any_},
		"file":        {"type": any_, "file": object{"file_data": any_, "filename": any_}},
	}}
	openAIChat = object{
		"model": modelName{}, "max_tokens": any_, "max_completion_tokens": any_, "temperature": any_, "top_p": any_,
		"n": any_, "stream": any_, "stream_options": any_, "stop": any_, "presence_penalty": any_,
		"frequency_penalty": any_, "logit_bias": any_, "logprobs": any_, "top_logprobs": any_, "user": any_,
		"seed": any_, "tool_choice": any_, "parallel_tool_calls": any_, "response_format": any_,
		"reasoning_effort": any_, "service_tier": any_, "metadata": any_, "prompt_cache_key": any_,
		"safety_identifier": any_, "verbosity": any_, "store": any_, "modalities": any_, "audio": any_, "prediction": any_,
		"messages": list{object{"role": any_, "name": any_, "tool_calls": any_, "tool_call_id": any_, "refusal": any_,
			"function_call": any_, "audio": any_, "content": textOr{list{openAIChatPart}}}},
		"tools": list{kinds{of: map[string]object{
			"function": {"type": any_, "function": any_},
			"custom":   {"type": any_, "custom": any_},
		}}},
	}
)

// OpenAI's Responses API.
var (
	openAIContent = kinds{of: map[string]object{
		"input_text":     {"type": any_, "text": any_},
		"output_text":    {"type": any_, "text": any_, "annotations": any_, "logprobs": any_},
		"refusal":        {"type": any_, "refusal": any_},
		"summary_text":   {"type": any_, "text": any_},
		"reasoning_text": {"type": any_, "text": any_},
		"input_image":    {"type": any_, "image_url": dataURL{}, "detail": any_},
		"input_file":     {"type": any_, "file_data": any_, "filename": any_},
	}}
	openAIOutput = textOr{list{openAIContent}}
	openAIItem   = kinds{untyped: "message", of: map[string]object{
		"message":                 {"type": any_, "id": any_, "role": any_, "status": any_, "phase": any_, "content": openAIOutput},
		"function_call":           {"type": any_, "id": any_, "call_id": any_, "name": any_, "namespace": any_, "arguments": any_, "status": any_},
		"function_call_output":    {"type": any_, "id": any_, "call_id": any_, "output": openAIOutput, "status": any_},
		"custom_tool_call":        {"type": any_, "id": any_, "call_id": any_, "name": any_, "namespace": any_, "input": any_, "status": any_},
		"custom_tool_call_output": {"type": any_, "id": any_, "call_id": any_, "output": openAIOutput, "status": any_},
		"local_shell_call":        {"type": any_, "id": any_, "call_id": any_, "action": any_, "status": any_},
		"local_shell_call_output": {"type": any_, "id": any_, "call_id": any_, "output": any_, "status": any_},
		"reasoning":               {"type": any_, "id": any_, "summary": any_, "content": any_, "encrypted_content": any_, "status": any_},
		"compaction":              {"type": any_, "id": any_, "encrypted_content": any_},
		"item_reference":          {"type": any_, "id": any_},
	}}
	// Tools the client runs; the hosted ones (web search, file search, MCP, code
	// interpreter, image generation, a shell in a hosted container) are not here.
	openAITool = kinds{of: map[string]object{
		"function":    {"type": any_, "name": any_, "description": any_, "parameters": any_, "strict": any_, "defer_loading": any_},
		"custom":      {"type": any_, "name": any_, "description": any_, "format": any_, "defer_loading": any_},
		"local_shell": {"type": any_},
		"shell":       {"type": any_, "environment": kinds{of: map[string]object{"local": {"type": any_}}}},
		"apply_patch": {"type": any_},
	}}
	openAIResponses = object{
		"model": modelName{}, "instructions": any_, "max_output_tokens": any_, "metadata": any_, "parallel_tool_calls": any_,
		"previous_response_id": any_, "reasoning": any_, "store": any_, "temperature": any_, "text": any_,
		"tool_choice": any_, "top_p": any_, "truncation": any_, "user": any_, "stream": any_, "stream_options": any_,
		"include": any_, "prompt_cache_key": any_, "safety_identifier": any_, "service_tier": any_,
		"max_tool_calls": any_, "top_logprobs": any_, "context_management": any_,
		"input": textOr{list{openAIItem}},
		"tools": list{openAITool},
	}
)

// maxJSONDepth bounds how deeply a request's JSON nests: a conversation nests a dozen levels
// (tool inputs a few more); deeper is not a model request, and the checks recurse.
const maxJSONDepth = 128

// checkBody judges a request body against its shape, in one pass: one JSON value, UTF-8, no key
// twice in any object (the provider would read one of the two and the broker might judge the
// other), nested no deeper than maxJSONDepth, of the shape's fields only. It returns the
// request's model, if the shape keeps it.
func checkBody(data []byte, sh shape) (string, *bodyRefusal) {
	if !utf8.Valid(data) {
		return "", &bodyRefusal{"the body", "not UTF-8"}
	}
	s := &scanner{data: data}
	s.space()
	if s.pos == len(data) {
		return "", &bodyRefusal{"the body", "not JSON"}
	}
	if bad := sh.check(s, ""); bad != nil {
		return "", bad
	}
	if s.space(); s.pos != len(data) {
		return "", &bodyRefusal{"the body", "not JSON (more after its value)"}
	}
	return s.model, nil
}
