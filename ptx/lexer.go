package ptx

import (
	"unicode/utf8"
)

// The lexer is a set of state functions in the style of text/template/parse:
// each state scans one token (or a run of whitespace) and returns the next
// state. Unlike text/template it does not hand tokens over a channel; it
// appends them to a slice, which the parser then walks. That keeps lexing
// allocation-free apart from the token slice itself.
//
// Invariants:
//   - Every byte of the input is either inside exactly one token or is
//     whitespace (' ', '\t', '\r', '\n', '\v', '\f') between tokens. The
//     Preserve printer relies on this to reproduce the input byte for byte.
//   - Tokens are stored as (offset, length) pairs and a parallel slice of
//     kinds, without pointers (9 bytes a token); Token values with Text
//     substrings of the input are made on demand.
//   - The lexer never fails: bytes that are not PTX become ILLEGAL tokens
//     and an error is reported through the error handler.

// lexer holds the scanning state.
type lexer struct {
	src   string
	base  int // position base of the file
	start int // start of the token being scanned
	pos   int // current offset
	toks  []rawTok
	kinds []Kind // kinds[i] is the kind of toks[i]
	err   func(off int, msg string)
}

type stateFn func(*lexer) stateFn

// lex tokenizes src. Tokens are appended to toks and their kinds to kinds
// (both may be pre-sized). err is called for every lexical error with the
// byte offset and a message.
func lex(src string, base int, toks []rawTok, kinds []Kind, err func(off int, msg string)) ([]rawTok, []Kind) {
	l := &lexer{src: src, base: base, toks: toks, kinds: kinds, err: err}
	for state := lexAny; state != nil; {
		state = state(l)
	}
	return l.toks, l.kinds
}

func (l *lexer) emit(k Kind) {
	l.toks = append(l.toks, rawTok{off: uint32(l.start), n: uint32(l.pos - l.start)})
	l.kinds = append(l.kinds, k)
	l.start = l.pos
}

// isSpace reports whether c is PTX whitespace.
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

// isNameByte reports whether c may continue a name ([A-Za-z0-9_$]).
func isNameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '$'
}

func isNameStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == '$' || c == '%'
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// lexAny skips whitespace and dispatches on the first byte of the next token.
func lexAny(l *lexer) stateFn {
	src := l.src
	i := l.pos
	for i < len(src) && isSpace(src[i]) {
		i++
	}
	l.pos, l.start = i, i
	if i >= len(src) {
		return nil
	}
	c := src[i]
	switch {
	case isNameStart(c):
		return lexName
	case isDigit(c):
		return lexNumber
	case c == '.':
		if i+1 < len(src) && isDigit(src[i+1]) {
			return lexNumber
		}
		return lexDirective
	case c == '/':
		if i+1 < len(src) {
			switch src[i+1] {
			case '/':
				return lexLineComment
			case '*':
				return lexBlockComment
			}
		}
		l.pos++
		l.emit(SLASH)
		return lexAny
	case c == '"':
		return lexString
	}
	return lexPunct
}

// lexName scans identifiers, registers and opcodes. Dots followed by a name
// byte stay inside the token ("ld.global.u32", "%tid.x"), and so does a "::"
// followed by a name byte (".shared::cluster" inside an opcode).
func lexName(l *lexer) stateFn {
	src := l.src
	i := l.pos + 1
	if src[l.pos] == '%' && (i >= len(src) || !isNameByte(src[i])) {
		l.pos = i
		l.emit(PERCENT)
		return lexAny
	}
	for i < len(src) {
		c := src[i]
		if isNameByte(c) {
			i++
			continue
		}
		if c == '.' && i+1 < len(src) && isNameByte(src[i+1]) {
			i += 2
			continue
		}
		if c == ':' && i+2 < len(src) && src[i+1] == ':' && isNameByte(src[i+2]) {
			i += 3
			continue
		}
		break
	}
	l.pos = i
	l.emit(IDENT)
	return lexAny
}

// lexDirective scans ".name" (with inner "::name" parts, as in
// ".shared::cta"). A lone '.' is ILLEGAL.
func lexDirective(l *lexer) stateFn {
	src := l.src
	i := l.pos + 1
	if i >= len(src) || !isNameByte(src[i]) {
		l.pos = i
		l.err(l.start, "unexpected '.'")
		l.emit(ILLEGAL)
		return lexAny
	}
	for i < len(src) {
		c := src[i]
		if isNameByte(c) {
			i++
			continue
		}
		if c == ':' && i+2 < len(src) && src[i+1] == ':' && isNameByte(src[i+2]) {
			i += 3
			continue
		}
		break
	}
	l.pos = i
	section := src[l.start:i] == ".section"
	l.emit(DIRECTIVE)
	if section {
		return lexSectionName
	}
	return lexAny
}

// lexSectionName scans the name after ".section"; the body that follows is
// kept verbatim as one RAW token (lexSectionBody), so debug sections cost
// one token however large they are.
func lexSectionName(l *lexer) stateFn {
	i := l.pos
	for i < len(l.src) && (l.src[i] == ' ' || l.src[i] == '\t') {
		i++
	}
	l.pos, l.start = i, i
	if i >= len(l.src) {
		return nil
	}
	switch c := l.src[i]; {
	case c == '.' && i+1 < len(l.src) && isNameByte(l.src[i+1]):
		lexDirective(l)
	case isNameStart(c) && c != '%':
		lexName(l)
	default:
		return lexAny
	}
	return lexSectionBody
}

// lexSectionBody scans "{ ... }" up to the matching brace, skipping
// comments and strings, as one RAW token. An unterminated body is left to
// the ordinary states (the parser reports it).
func lexSectionBody(l *lexer) stateFn {
	src := l.src
	i := l.pos
	for i < len(src) && isSpace(src[i]) {
		i++
	}
	if i >= len(src) || src[i] != '{' {
		return lexAny
	}
	depth := 0
	for j := i; j < len(src); j++ {
		switch src[j] {
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				l.pos, l.start = i, i
				l.pos = j + 1
				l.emit(RAW)
				return lexAny
			}
		case '/':
			if j+1 < len(src) && src[j+1] == '/' {
				for j < len(src) && src[j] != '\n' {
					j++
				}
			} else if j+1 < len(src) && src[j+1] == '*' {
				k := j + 2
				for k+1 < len(src) && !(src[k] == '*' && src[k+1] == '/') {
					k++
				}
				if k+1 >= len(src) {
					return lexAny
				}
				j = k + 1
			}
		case '"':
			k := j + 1
			for k < len(src) && src[k] != '"' && src[k] != '\n' {
				if src[k] == '\\' {
					k++
				}
				k++
			}
			if k >= len(src) || src[k] != '"' {
				return lexAny
			}
			j = k
		}
	}
	return lexAny
}

// lexNumber scans integer and floating-point literals:
// decimal, 0x hex, 0b binary, leading-0 octal, an optional U suffix,
// decimal floats with '.' and/or an exponent, and the hex float forms
// 0fXXXXXXXX (f32) and 0dXXXXXXXXXXXXXXXX (f64).
func lexNumber(l *lexer) stateFn {
	src := l.src
	i := l.pos
	kind := INT
	if src[i] == '0' && i+1 < len(src) {
		switch src[i+1] {
		case 'x', 'X':
			i += 2
			for i < len(src) && isHex(src[i]) {
				i++
			}
			if i == l.pos+2 {
				l.err(l.start, "hexadecimal literal has no digits")
			}
			goto suffix
		case 'b', 'B':
			if i+2 < len(src) && (src[i+2] == '0' || src[i+2] == '1') {
				i += 2
				for i < len(src) && (src[i] == '0' || src[i] == '1') {
					i++
				}
				goto suffix
			}
		case 'f', 'F', 'd', 'D':
			want := 8
			if src[i+1] == 'd' || src[i+1] == 'D' {
				want = 16
			}
			j := i + 2
			for j < len(src) && isHex(src[j]) {
				j++
			}
			if j-(i+2) == want {
				l.pos = j
				l.checkNameEnd()
				l.emit(FLOAT)
				return lexAny
			}
			if j > i+2 {
				l.pos = j
				l.err(l.start, "hexadecimal float literal must have "+itoa(want)+" digits")
				l.checkNameEnd()
				l.emit(FLOAT)
				return lexAny
			}
		}
	}
	for i < len(src) && isDigit(src[i]) {
		i++
	}
	if i < len(src) && src[i] == '.' && (i+1 >= len(src) || !isNameStart(src[i+1]) || src[i+1] == 'e' || src[i+1] == 'E') {
		kind = FLOAT
		i++
		for i < len(src) && isDigit(src[i]) {
			i++
		}
	}
	if i < len(src) && (src[i] == 'e' || src[i] == 'E') {
		j := i + 1
		if j < len(src) && (src[j] == '+' || src[j] == '-') {
			j++
		}
		if j < len(src) && isDigit(src[j]) {
			kind = FLOAT
			i = j
			for i < len(src) && isDigit(src[i]) {
				i++
			}
		}
	}
	if kind == FLOAT {
		if i < len(src) && (src[i] == 'f' || src[i] == 'F') {
			i++
		}
		l.pos = i
		l.checkNameEnd()
		l.emit(FLOAT)
		return lexAny
	}
suffix:
	if i < len(src) && (src[i] == 'U' || src[i] == 'u') {
		i++
	}
	l.pos = i
	l.checkNameEnd()
	l.emit(kind)
	return lexAny
}

// checkNameEnd reports a literal run into a name ("12abc") and swallows the
// rest so the error is reported once.
func (l *lexer) checkNameEnd() {
	if l.pos < len(l.src) && isNameByte(l.src[l.pos]) {
		l.err(l.start, "invalid character "+quoteByte(l.src[l.pos])+" in number")
		for l.pos < len(l.src) && isNameByte(l.src[l.pos]) {
			l.pos++
		}
	}
}

func lexLineComment(l *lexer) stateFn {
	src := l.src
	i := l.pos + 2
	for i < len(src) && src[i] != '\n' {
		i++
	}
	if i > l.pos && src[i-1] == '\r' {
		i--
	}
	l.pos = i
	l.emit(COMMENT)
	return lexAny
}

func lexBlockComment(l *lexer) stateFn {
	src := l.src
	i := l.pos + 2
	for i+1 < len(src) && !(src[i] == '*' && src[i+1] == '/') {
		i++
	}
	if i+1 >= len(src) {
		l.err(l.start, "comment not terminated")
		l.pos = len(src)
		l.emit(COMMENT)
		return nil
	}
	l.pos = i + 2
	l.emit(COMMENT)
	return lexAny
}

func lexString(l *lexer) stateFn {
	src := l.src
	i := l.pos + 1
	for i < len(src) {
		switch src[i] {
		case '"':
			l.pos = i + 1
			l.emit(STRING)
			return lexAny
		case '\\':
			// A backslash escapes the next byte. (Windows paths in .file
			// strings name files, so they never end in a backslash.)
			if i+1 < len(src) && src[i+1] == '\n' {
				i++ // reported below as unterminated
				continue
			}
			i += 2
			continue
		case '\n':
			l.err(l.start, "string literal not terminated")
			l.pos = i
			l.emit(STRING)
			return lexAny
		}
		i++
	}
	l.err(l.start, "string literal not terminated")
	l.pos = len(src)
	l.emit(STRING)
	return nil
}

// lexPunct scans punctuation and operators, one or two bytes long.
func lexPunct(l *lexer) stateFn {
	src := l.src
	c := src[l.pos]
	var n byte
	if l.pos+1 < len(src) {
		n = src[l.pos+1]
	}
	k := ILLEGAL
	w := 1
	switch c {
	case '{':
		k = LBRACE
	case '}':
		k = RBRACE
	case '(':
		k = LPAREN
	case ')':
		k = RPAREN
	case '[':
		k = LBRACK
	case ']':
		k = RBRACK
	case ',':
		k = COMMA
	case ';':
		k = SEMI
	case ':':
		k = COLON
	case '@':
		k = AT
	case '+':
		k = PLUS
	case '-':
		k = MINUS
	case '*':
		k = STAR
	case '^':
		k = XOR
	case '~':
		k = TILDE
	case '?':
		k = QUESTION
	case '!':
		k = NOT
		if n == '=' {
			k, w = NEQ, 2
		}
	case '=':
		k = ASSIGN
		if n == '=' {
			k, w = EQL, 2
		}
	case '<':
		k = LT
		switch n {
		case '<':
			k, w = SHL, 2
		case '=':
			k, w = LEQ, 2
		}
	case '>':
		k = GT
		switch n {
		case '>':
			k, w = SHR, 2
		case '=':
			k, w = GEQ, 2
		}
	case '&':
		k = AND
		if n == '&' {
			k, w = LAND, 2
		}
	case '|':
		k = OR
		if n == '|' {
			k, w = LOR, 2
		}
	}
	if k == ILLEGAL {
		r, size := utf8.DecodeRuneInString(src[l.pos:])
		if r == utf8.RuneError && size <= 1 {
			l.err(l.start, "invalid byte "+quoteByte(c))
			size = 1
		} else {
			l.err(l.start, "invalid character "+quoteRune(r))
		}
		l.pos += size
		l.emit(ILLEGAL)
		return lexAny
	}
	l.pos += w
	l.emit(k)
	return lexAny
}

const hexDigits = "0123456789abcdef"

func quoteByte(c byte) string {
	if c >= 0x20 && c < 0x7f && c != '\'' && c != '\\' {
		return "'" + string(c) + "'"
	}
	return "0x" + string([]byte{hexDigits[c>>4], hexDigits[c&15]})
}

func quoteRune(r rune) string {
	if r < 0x80 {
		return quoteByte(byte(r))
	}
	return "'" + string(r) + "'"
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	neg := n < 0
	if neg {
		n = -n
	}
	var b [20]byte
	i := len(b)
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	if neg {
		i--
		b[i] = '-'
	}
	return string(b[i:])
}
