package worker

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/hookctl/hookctl/internal/clip"
	"github.com/hookctl/hookctl/retriever"
)

// Prompt-injection heuristics. They flag content that talks to its reader as if the reader were an
// AI with tools: it is shown in the answer's header so that a caller learns the page tried, even
// when the distiller model missed it (and always for the extract backend, which has no model).
// The caller sees only which rule fired and how often (InjectionFlag.Brief); the quote of the
// matched text goes to the audit transcript, for the human, because the match is the attacker's
// instruction itself, and a short one is a whole command. A flag blocks nothing; a miss proves
// nothing. The rules favour few false alarms on ordinary documentation over catching
// paraphrases, which only a model can judge.
//
// Matching runs on an ASCII-lowercased copy (same byte offsets as the original, so snippets are
// cut from the original), with Go's RE2 regular expressions, which run in time linear in the
// input; the input is capped at maxInjectionScan bytes.

const (
	// maxInjectionScan is how much of a text is scanned. A distiller prompt carries at most
	// maxPromptContent bytes of all documents together, so text past this is never shown to any
	// model; the cap also bounds the scan to well under a second.
	maxInjectionScan = 512 << 10
	// maxSnippet is the longest quote of the content in a finding: enough for a person reading the
	// audit to recognise the attempt.
	maxSnippet = 60
	// maxMatchesPerRule caps the count reported for one rule.
	maxMatchesPerRule = 100
)

// injectionRule is one heuristic. A rule runs only when one of its needles occurs in the
// lowercased text, which keeps the common case (no hit) to a few substring searches.
type injectionRule struct {
	name    string
	what    string   // what the content does, shown to the caller
	needles []string // lowercase literals; the regexp runs only if one occurs
	re      *regexp.Regexp
	// reject, when set, discards a match that is a known benign form (lowercased text and the
	// match's byte range); RE2 has no lookaround.
	reject func(text string, start, end int) bool
}

// injectionRules are checked in order; each reports at most one finding, with a count. They are
// compiled on first use, like scrubRules.
var injectionRules = sync.OnceValue(func() []injectionRule {
	return []injectionRule{
		{
			name:    "ignore-instructions",
			what:    "tells the reader to ignore its instructions",
			needles: []string{"ignore", "disregard", "forget", "override", "bypass"},
			re: regexp.MustCompile(`\b(ignore|disregard|forget|override|bypass)\s+(?:(?:all|any|the|your|of|my|these|those|every|everything|previous|prior)\s+){0,3}` +
				`(previous|prior|above|earlier|preceding|foregoing|system|original|initial|safety|developer)\s+` +
				`(instructions?|prompts?|directions?|directives?|rules|guidelines|guardrails|context|messages?|commands?|constraints)\b` +
				`|\bdisregard\s+(?:everything|anything|all)\s+(?:above|before|else|previously|you\s+(?:were|have\s+been)\s+told)`),
		},
		{
			name:    "role-reassignment",
			what:    "tries to give the reader a new identity or mode",
			needles: []string{"you are now", "from now on", "pretend", "jailbr", "developer mode", "dan mode", "you are no longer"},
			re: regexp.MustCompile(`\byou\s+are\s+now\s+(?:an?\s+|the\s+|in\s+)?(?:ai|assistant|agent|model|chatbot|dan|jailbroken|unrestricted|unfiltered|uncensored|evil|developer\s+mode|god\s+mode|acting\s+as|operating\s+as)\b` +
				`|\bfrom\s+now\s+on,?\s+you\s+(?:are\s+(?:an?|the|my|no\s+longer)|will\s+(?:act|respond|answer|only|obey|follow|ignore)|must\s+(?:act|respond|answer|only|obey|follow|ignore)|shall)\b` +
				`|\bpretend\s+(?:that\s+)?you\s+(?:are|have)\s+(?:an?\s+)?(?:ai|assistant|model|unrestricted|unfiltered|no\s+(?:rules|restrictions|limits|guidelines)|dan|jailbroken|evil|different)\b` +
				`|\byou\s+are\s+no\s+longer\s+(?:an?\s+)?(?:ai|assistant|bound|restricted|claude|chatgpt)\b` +
				`|\b(?:jailbreak|jailbroken|developer\s+mode|dan\s+mode)\s+(?:enabled|activated|on)\b`),
		},
		{
			name:    "new-instructions",
			what:    "announces new instructions or a new task",
			needles: []string{"instruction", "task is", "goal is", "objective is", "job is", "purpose is"},
			re: regexp.MustCompile(`\b(?:your|the\s+following|these|follow\s+(?:these|the|my))\s+(?:new|updated|real|actual|true|secret|hidden|revised)\s+instructions?\b` +
				`|\bnew\s+instructions?\s*[:\-]` +
				`|\b(?:important|urgent|critical)\s+instructions?\s+(?:for|to)\s+(?:the\s+)?(?:ai|assistant|model|agent|llm)\b` +
				`|\byour\s+(?:new|real|actual|true|only|primary)\s+(?:task|goal|objective|job|purpose)\s+(?:is|now)\b`),
		},
		{
			name:    "system-prompt",
			what:    "refers to the reader's system prompt",
			needles: []string{"system prompt", "system message", "system_prompt", "system override", "initial prompt"},
			re: regexp.MustCompile(`\b(?:reveal|print|show|output|repeat|leak|disclose|display|recite|tell\s+me|what\s+is|dump)\s+(?:me\s+)?(?:your|the)\s+(?:full\s+|entire\s+|original\s+|hidden\s+)?(?:system\s+prompt|system\s+message|initial\s+prompt|instructions)\b` +
				`|\b(?:new|updated|override|replacement)\s+system\s+(?:prompt|message)\b` +
				`|\bsystem\s+override\b` +
				`|(?m:^[ \t>*#\[]*system[ _]prompt\s*\]?\s*:)`),
		},
		{
			name:    "addresses-ai",
			what:    "addresses an AI reader directly",
			needles: []string{"ai", "assistant", "llm", "language model", "claude", "chatgpt", "gpt", "gemini", "copilot", "agent"},
			re: regexp.MustCompile(`\bas\s+an\s+(?:ai|llm|a\.i\.)(?:\s+(?:language\s+model|assistant|model|agent))?\s*,\s*you\b` +
				`|\bif\s+you\s+(?:are|'re)\s+(?:an?\s+)?(?:ai|llm|large\s+language\s+model|language\s+model|ai\s+assistant|ai\s+agent|chatbot|bot)\b` +
				`|\b(?:attention|note\s+to|message\s+(?:to|for)|instructions?\s+for|dear|hey|hello)\s*,?\s+(?:the\s+)?(?:ai|llm|assistant|claude|chatgpt|gpt|gemini|copilot|language\s+model|ai\s+(?:assistants?|agents?|models?)|llms|agents?)\b` +
				`|\b(?:ai|llm)\s+(?:agents?|assistants?|models?|crawlers?)\s+(?:reading|processing|summari[sz]ing|parsing)\s+this\b`),
			reject: func(text string, start, end int) bool {
				// "Note to Copilot users", "Hello, agents team": people, not the reader.
				rest := strings.TrimLeft(text[end:min(len(text), end+20)], " \t")
				for _, w := range []string{"users", "user ", "customers", "developers", "team", "fans", "subscribers"} {
					if strings.HasPrefix(rest, w) {
						return true
					}
				}
				return false
			},
		},
		{
			name: "role-marker",
			what: "contains chat role markers that imitate a conversation turn",
			needles: []string{"<|", "[inst]", "<<sys>>", "<start_of_turn>", "human:", "assistant:", "###", "<system",
				"</system", "<instructions>", "[system]"},
			re: regexp.MustCompile(`<\|(?:im_start|im_end|system|user|assistant|endoftext|start_header_id|end_header_id|eot_id)\|>` +
				`|\[/?inst\]|<</?sys>>|<start_of_turn>|<end_of_turn>` +
				`|(?m:^[ \t>*]*(?:human|assistant)\s*:)` +
				`|(?m:^[ \t]*#{2,4}\s*(?:system|instruction|instructions|assistant|human|user)\s*:)` +
				`|</?(?:system|system-reminder|system_prompt|sys|instructions)>|\[system\]`),
		},
		{
			name: "tool-call",
			what: "contains text shaped like a model's tool call",
			needles: []string{"function_calls", "invoke", "tool_use", "tool_call", "function_call", "<parameter",
				"tool_code"},
			re: regexp.MustCompile(`</?(?:antml:)?(?:function_calls|invoke|tool_call|tool_use|tool_code|function_call)\b` +
				`|<(?:antml:)?parameter\s+name=` +
				`|"(?:tool_use|tool_calls|function_call)"`),
		},
		{
			name:    "run-command",
			what:    "asks for a command to be run",
			needles: []string{"curl", "wget", "fetch", "rm -", "iex", "invoke-expression", "without", "run the following", "execute the following", "run this", "execute this"},
			re: regexp.MustCompile(`\b(?:curl|wget|fetch)\b[^|\n]{0,300}\|\s*(?:sudo\s+)?(?:ba|z|da|k)?sh\b` +
				"|\\brm\\s+-(?:rf|fr|r\\s+-f)\\s+(?:--no-preserve-root\\s+)?(?:/\\*?|~/?\\*?|\\$home/?\\*?|\\*|\\.\\./?)(?:\\s|$|[\"';&|`])" +
				`|\b(?:iex|invoke-expression)\b[^\n]{0,40}(?:downloadstring|iwr|invoke-webrequest|irm)` +
				`|\b(?:run|execute)\b[^.\n]{0,80}\bwithout\s+(?:asking|confirmation|confirming|telling|informing|notifying)\b` +
				`|\b(?:you\s+(?:must|should|need\s+to)|now|immediately)\s+(?:run|execute)\s+(?:the\s+following|this)\s+(?:command|code|script)\s+(?:in|on|using)\s+(?:your|the\s+user'?s)\b`),
		},
		{
			name: "exfiltration",
			what: "asks for data to be sent somewhere",
			needles: []string{"send", "post", "upload", "exfiltrat", "transmit", "forward", "leak", "email", "paste",
				"id_rsa", "id_ed25519", ".ssh/", "credentials", ".env", "![", "contents of"},
			re: regexp.MustCompile(`\b(?:send|post|exfiltrate|transmit|forward|leak|email|paste)\s+(?:\S+\s+){0,5}?` +
				`(?:contents?|secrets?|tokens?|credentials?|passwords?|environment\s+variables|env\s+vars?|\.env|(?:api|private|secret|ssh)[_ -]?keys?|history|conversation|codebase|source\s+code)\b` +
				`[^.\n]{0,80}?\b(?:to|at|into)\s+(?:https?://|[\w.+-]+@[\w-]+\.|the\s+(?:url|endpoint|server|webhook|address))` +
				`|\bpost\s+the\s+contents\s+of\b` +
				`|\b(?:cat|print|type|send|upload|exfiltrate)\s+[^\n]{0,40}?(?:\.ssh/id_\w+|id_rsa|id_ed25519|id_ecdsa|\.aws/credentials|\.netrc|\.git-credentials|/etc/shadow)` +
				`|!\[[^\]\n]{0,100}\]\(https?://[^)\s]{0,300}[?&][\w-]+=(?:\{|\$|%7b|<)`),
			reject: func(text string, start, end int) bool {
				// "cat ~/.ssh/id_ed25519.pub": printing a public key is the documented way to add it.
				return strings.HasPrefix(text[end:], ".pub")
			},
		},
		{
			name:    "hide-from-user",
			what:    "asks the reader to hide something from the user",
			needles: []string{"user", "human"},
			re: regexp.MustCompile(`\b(?:do\s+not|don't|never)\s+(?:tell|inform|alert|notify|mention\s+(?:this|it)\s+to|reveal\s+(?:this|it)\s+to|show\s+(?:this|it)\s+to)\s+(?:the\s+)?(?:user|human|operator)\b` +
				`|\bwithout\s+(?:telling|informing|alerting|notifying)\s+(?:the\s+)?(?:user|human|operator)\b` +
				`|\bkeep\s+(?:this|it)\s+(?:secret|hidden)\s+from\s+(?:the\s+)?(?:user|human)\b`),
		},
		{
			name:    "tool-request",
			what:    "asks the reader to use tools or gain access",
			needles: []string{"tool", "permission", "access", "sudo"},
			re: regexp.MustCompile(`\b(?:use|call|invoke|enable|activate)\s+(?:your\s+|the\s+)?(?:bash|shell|terminal|webfetch|web_fetch|fetch|browser|computer|code\s+execution|write|edit)\s+tool\b` +
				`|\b(?:grant|give)\s+(?:me|yourself|this\s+(?:page|site|document))\s+(?:full\s+|more\s+|root\s+|admin\s+)?(?:access|permissions?)\b` +
				`|\brequest\s+(?:more|additional|elevated|full)\s+(?:access|permissions?|privileges)\b`),
		},
		{
			// A page steering a research model's next step: "before answering, fetch URL", or
			// "put the user's question into URL". The research loop refuses what such a step
			// would reach (research.go); this names the page that tried.
			name: "steer-request",
			what: "tells the reader to fetch an address or to put its question into a request",
			needles: []string{"before answering", "before responding", "before replying", "before you", "to answer",
				"question", "query", "prompt", "task", "conversation"},
			re: regexp.MustCompile(`\b(?:before\s+(?:answering|responding|replying|you\s+(?:answer|respond|reply))|to\s+answer(?:\s+this)?)\s*,?\s+` +
				`(?:you\s+(?:must|should|need\s+to)\s+)?(?:first\s+)?(?:fetch|visit|open|load|request|retrieve|browse\s+to|navigate\s+to|go\s+to|read)\s+` +
				`(?:the\s+(?:url|page|link|address)\s+)?(?:https?://|www\.)` +
				`|\b(?:put|append|add|include|insert|encode|pass)\s+(?:\S+\s+){0,3}?(?:question|query|request|prompt|task|need|conversation)\s+` +
				`(?:\S+\s+){0,4}?(?:in(?:to)?|to|as)\s+(?:\S+\s+){0,2}?(?:the\s+)?(?:url|link|query\s+string|parameter|https?://)`),
		},
		{
			name:    "fence-forgery",
			what:    "imitates the retriever's untrusted-content fence",
			needles: []string{"untrusted-content", "untrusted content"},
			re:      regexp.MustCompile(`untrusted[- ]content`),
		},
	}
})

// ScanDocuments runs DetectInjection over each document's title and text, keeping at most
// maxInjectionItems flags (a hundred hostile issue comments would otherwise flood the audit).
func ScanDocuments(docs []retriever.Document) []retriever.InjectionFlag {
	var out []retriever.InjectionFlag
	for i, d := range docs {
		if len(out) >= maxInjectionItems {
			break
		}
		where := oneLine(d.URL, 120)
		if where == "" {
			where = oneLine(d.Source, 120)
		}
		for _, f := range DetectInjection(d.Title + "\n" + d.Text) {
			f.Doc, f.N, f.Where = i+1, len(docs), where
			out = append(out, f)
		}
	}
	return out[:min(len(out), maxInjectionItems)]
}

// DetectInjection returns a finding for each kind of instruction-like text in text, each with
// a quote of at most maxSnippet characters, or nil. It runs in time linear in
// min(len(text), maxInjectionScan).
func DetectInjection(text string) []retriever.InjectionFlag {
	if len(text) > maxInjectionScan {
		text = clip.Prefix(text, maxInjectionScan)
	}
	lower := lowerASCII(text)
	var out []retriever.InjectionFlag
	rules := injectionRules()
	for i := range rules {
		r := &rules[i]
		if !containsAnyOf(lower, r.needles) {
			continue
		}
		first, count := -1, 0
		var firstEnd int
		for _, m := range r.re.FindAllStringIndex(lower, maxMatchesPerRule) {
			if r.reject != nil && r.reject(lower, m[0], m[1]) {
				continue
			}
			if first < 0 {
				first, firstEnd = m[0], m[1]
			}
			count++
		}
		if count == 0 {
			continue
		}
		out = append(out, retriever.InjectionFlag{Rule: r.name, What: r.what, Quote: quoteSnippet(text, first, firstEnd), Count: count})
	}
	if f, ok := hiddenCharacterFinding(text); ok {
		out = append(out, f)
	}
	return out
}

// hiddenCharacterFinding reports invisible characters that can hide text from a human reviewer while a
// model still reads it: zero-width characters next to ASCII text, bidirectional overrides (the
// "Trojan Source" trick), and Unicode tag characters (ASCII smuggling). Zero-width joiners and
// non-joiners between non-ASCII letters (emoji sequences, Persian, Indic scripts) and the tag
// characters of a subdivision flag emoji are legitimate and not counted.
func hiddenCharacterFinding(text string) (retriever.InjectionFlag, bool) {
	zeroWidth, bidi, tags := 0, 0, 0
	firstAt := -1
	prev := rune(0)
	inFlag := false // after U+1F3F4 WAVING BLACK FLAG, tag characters spell a region
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		next, _ := utf8.DecodeRuneInString(text[i+size:])
		switch {
		case r == '\u200b' || r == '\u200c' || r == '\u200d' || r == '\u2060' || r == '\u180e' || (r == '\ufeff' && i > 0):
			if asciiVisible(prev) || asciiVisible(next) {
				zeroWidth++
				if firstAt < 0 {
					firstAt = i
				}
			}
		case (r >= '\u202a' && r <= '\u202e') || (r >= '\u2066' && r <= '\u2069'):
			bidi++
			if firstAt < 0 {
				firstAt = i
			}
		case r >= 0xE0000 && r <= 0xE007F:
			if !inFlag {
				tags++
				if firstAt < 0 {
					firstAt = i
				}
			}
		}
		if r == 0x1F3F4 {
			inFlag = true
		} else if r < 0xE0000 || r > 0xE007F {
			inFlag = false
		}
		prev = r
		i += size // every iteration consumes one rune (or one invalid byte)
	}
	if zeroWidth+bidi+tags == 0 {
		return retriever.InjectionFlag{}, false
	}
	var parts []string
	if zeroWidth > 0 {
		parts = append(parts, fmt.Sprintf("%d zero-width", zeroWidth))
	}
	if bidi > 0 {
		parts = append(parts, fmt.Sprintf("%d bidirectional-override", bidi))
	}
	if tags > 0 {
		parts = append(parts, fmt.Sprintf("%d Unicode tag", tags))
	}
	return retriever.InjectionFlag{Rule: "hidden-text", Count: 1, Quote: quoteSnippet(text, firstAt, firstAt),
		What: fmt.Sprintf("contains invisible characters (%s) that can hide text from a person", strings.Join(parts, ", "))}, true
}

func asciiVisible(r rune) bool { return r > ' ' && r < 0x7f }

// quoteSnippet quotes the text around [start, end): from a little before start, at most maxSnippet
// runes, on one line, with invisible and control characters shown as spaces or dropped.
func quoteSnippet(text string, start, end int) string {
	from := max(0, start-10)
	for from > 0 && !utf8.RuneStart(text[from]) {
		from--
	}
	if end-start > maxSnippet-10 {
		from = start
	}
	var b strings.Builder
	n := 0
	for _, r := range text[from:] {
		if n >= maxSnippet {
			break
		}
		switch {
		case r == '\n' || r == '\r' || r == '\t':
			r = ' '
		case r < ' ' || r == 0x7f || (r >= 0x80 && r < 0xa0) || invisibleRune(r):
			continue
		}
		b.WriteRune(r)
		n++
	}
	return strings.TrimSpace(b.String())
}

func invisibleRune(r rune) bool {
	return r == '\u200b' || r == '\u200c' || r == '\u200d' || r == '\u2060' || r == '\u180e' || r == '\ufeff' ||
		(r >= '\u202a' && r <= '\u202e') || (r >= '\u2066' && r <= '\u2069') || (r >= 0xE0000 && r <= 0xE007F)
}

// lowerASCII lowercases ASCII letters only, so byte offsets into the result are offsets into s.
func lowerASCII(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + ('a' - 'A')
		}
	}
	return string(b)
}

func containsAnyOf(s string, needles []string) bool {
	for _, n := range needles {
		if strings.Contains(s, n) {
			return true
		}
	}
	return false
}
