package ptx

import (
	"unicode/utf8"
)

// The lexer is one loop over the bytes of the input: whitespace, names,
// directives and one-byte punctuation (nearly every token of real PTX) are
// scanned inline with a byte-class table; numbers, comments, strings,
// operators and .section bodies by the methods below. It appends tokens to
// a slice, which the parser then walks, and allocates nothing else.
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

// lexer holds the scanning state of the methods that scan the rarer
// tokens; the main loop keeps its offset in a local.
type lexer struct {
	src   string
	start int // start of the token being scanned
	pos   int // current offset
	toks  []rawTok
	kinds []Kind // kinds[i] is the kind of toks[i]
	err   func(off int, msg string)
}

// Byte classes (byteClass).
const (
	bcSpace     = 1 << iota // PTX whitespace
	bcName                  // may continue a name: [A-Za-z0-9_$]
	bcNameStart             // may start a name: [A-Za-z_$%]
	bcDigit                 // [0-9]
	bcHex                   // [0-9a-fA-F]
)

// byteClass holds the bc* bits of each byte value.
const byteClass = "" +
	"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x01\x01\x01\x01\x01\x00\x00" +
	"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00" +
	"\x01\x00\x00\x00\x06\x04\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00" +
	"\x1a\x1a\x1a\x1a\x1a\x1a\x1a\x1a\x1a\x1a\x00\x00\x00\x00\x00\x00" +
	"\x00\x16\x16\x16\x16\x16\x16\x06\x06\x06\x06\x06\x06\x06\x06\x06" +
	"\x06\x06\x06\x06\x06\x06\x06\x06\x06\x06\x06\x00\x00\x00\x00\x06" +
	"\x00\x16\x16\x16\x16\x16\x16\x06\x06\x06\x06\x06\x06\x06\x06\x06" +
	"\x06\x06\x06\x06\x06\x06\x06\x06\x06\x06\x06\x00\x00\x00\x00\x00" +
	"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00" +
	"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00" +
	"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00" +
	"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00" +
	"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00" +
	"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00" +
	"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00" +
	"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"

// oneByte gives the kind of the punctuation bytes that are a token by
// themselves whatever follows them (ILLEGAL, 0, for the others).
func oneByte(c byte) Kind {
	switch c {
	case '{':
		return LBRACE
	case '}':
		return RBRACE
	case '(':
		return LPAREN
	case ')':
		return RPAREN
	case '[':
		return LBRACK
	case ']':
		return RBRACK
	case ',':
		return COMMA
	case ';':
		return SEMI
	case ':':
		return COLON
	case '@':
		return AT
	case '+':
		return PLUS
	case '-':
		return MINUS
	}
	return ILLEGAL
}

// lex tokenizes src. Tokens are appended to toks and their kinds to kinds
// (both may be pre-sized). err is called for every lexical error with the
// byte offset and a message. base is unused by the scan (offsets are
// relative to src) and kept for the callers' symmetry with parseRange.
func lex(src string, base int, toks []rawTok, kinds []Kind, err func(off int, msg string)) ([]rawTok, []Kind) {
	_ = base
	n := len(src)
	i := 0
	for {
		for i < n && byteClass[src[i]]&bcSpace != 0 {
			i++
		}
		if i >= n {
			break
		}
		start := i
		c := src[i]
		if cl := byteClass[c]; cl&bcNameStart != 0 {
			// Names: identifiers, registers and opcodes. Dots followed by
			// a name byte stay inside the token ("ld.global.u32",
			// "%tid.x"), and so does a "::" followed by a name byte
			// (".shared::cluster" inside an opcode).
			i++
			if c == '%' && (i >= n || byteClass[src[i]]&bcName == 0) {
				toks = append(toks, rawTok{off: uint32(start), n: 1})
				kinds = append(kinds, PERCENT)
				continue
			}
			i = scanName(src, i, true)
			toks = append(toks, rawTok{off: uint32(start), n: uint32(i - start)})
			kinds = append(kinds, IDENT)
			continue
		}
		if c == '.' && i+1 < n && byteClass[src[i+1]]&bcName != 0 && byteClass[src[i+1]]&bcDigit == 0 {
			// Directives: ".name" with inner "::name" parts.
			i = scanName(src, i+1, false)
			toks = append(toks, rawTok{off: uint32(start), n: uint32(i - start)})
			kinds = append(kinds, DIRECTIVE)
			if i-start == len(".section") && src[start:i] == ".section" {
				l := lexer{src: src, pos: i, toks: toks, kinds: kinds, err: err}
				l.section()
				toks, kinds, i = l.toks, l.kinds, l.pos
			}
			continue
		}
		if k := oneByte(c); k != ILLEGAL {
			i++
			toks = append(toks, rawTok{off: uint32(start), n: 1})
			kinds = append(kinds, k)
			continue
		}
		l := lexer{src: src, start: start, pos: start, toks: toks, kinds: kinds, err: err}
		switch {
		case byteClass[c]&bcDigit != 0 || c == '.' && i+1 < n && byteClass[src[i+1]]&bcDigit != 0:
			l.number()
		case c == '.':
			l.pos++
			l.err(l.start, "unexpected '.'")
			l.emit(ILLEGAL)
		case c == '/' && i+1 < n && src[i+1] == '/':
			l.lineComment()
		case c == '/' && i+1 < n && src[i+1] == '*':
			l.blockComment()
		case c == '/':
			l.pos++
			l.emit(SLASH)
		case c == '"':
			l.str()
		default:
			l.punct()
		}
		toks, kinds, i = l.toks, l.kinds, l.pos
	}
	return toks, kinds
}

// scanName returns the end of the name whose bytes continue at i. Dots
// followed by a name byte continue it when dots is set (names, not
// directives); "::" followed by a name byte always does.
func scanName(src string, i int, dots bool) int {
	n := len(src)
	for i < n {
		c := src[i]
		if byteClass[c]&bcName != 0 {
			i++
			continue
		}
		if c == '.' && dots && i+1 < n && byteClass[src[i+1]]&bcName != 0 {
			i += 2
			continue
		}
		if c == ':' && i+2 < n && src[i+1] == ':' && byteClass[src[i+2]]&bcName != 0 {
			i += 3
			continue
		}
		break
	}
	return i
}

func (l *lexer) emit(k Kind) {
	l.toks = append(l.toks, rawTok{off: uint32(l.start), n: uint32(l.pos - l.start)})
	l.kinds = append(l.kinds, k)
	l.start = l.pos
}

// isSpace reports whether c is PTX whitespace.
func isSpace(c byte) bool { return byteClass[c]&bcSpace != 0 }

// isNameByte reports whether c may continue a name ([A-Za-z0-9_$]).
func isNameByte(c byte) bool { return byteClass[c]&bcName != 0 }

func isNameStart(c byte) bool { return byteClass[c]&bcNameStart != 0 }

func isDigit(c byte) bool { return byteClass[c]&bcDigit != 0 }

func isHex(c byte) bool { return byteClass[c]&bcHex != 0 }

// section scans what follows ".section" (at l.pos): the section's name,
// then its body "{ ... }" up to the matching brace, skipping comments and
// strings, as one RAW token, so debug sections cost one token however
// large they are. When the name or the body is missing or unterminated,
// the main loop scans on from where it stopped (the parser reports it).
func (l *lexer) section() {
	i := l.pos
	for i < len(l.src) && (l.src[i] == ' ' || l.src[i] == '\t') {
		i++
	}
	l.pos, l.start = i, i
	if i >= len(l.src) {
		return
	}
	switch c := l.src[i]; {
	case c == '.' && i+1 < len(l.src) && isNameByte(l.src[i+1]):
		l.pos = scanName(l.src, i+1, false)
		l.emit(DIRECTIVE)
	case isNameStart(c) && c != '%':
		l.pos = scanName(l.src, i+1, true)
		l.emit(IDENT)
	default:
		return
	}
	l.sectionBody()
}

// sectionBody scans "{ ... }" up to the matching brace as one RAW token.
func (l *lexer) sectionBody() {
	src := l.src
	i := l.pos
	for i < len(src) && isSpace(src[i]) {
		i++
	}
	if i >= len(src) || src[i] != '{' {
		return
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
				return
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
					return
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
				return
			}
			j = k
		}
	}
}

// number scans integer and floating-point literals:
// decimal, 0x hex, 0b binary, leading-0 octal, an optional U suffix,
// decimal floats with '.' and/or an exponent, and the hex float forms
// 0fXXXXXXXX (f32) and 0dXXXXXXXXXXXXXXXX (f64).
func (l *lexer) number() {
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
				return
			}
			if j > i+2 {
				l.pos = j
				l.err(l.start, "hexadecimal float literal must have "+itoa(want)+" digits")
				l.checkNameEnd()
				l.emit(FLOAT)
				return
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
		return
	}
suffix:
	if i < len(src) && (src[i] == 'U' || src[i] == 'u') {
		i++
	}
	l.pos = i
	l.checkNameEnd()
	l.emit(kind)
	return
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

func (l *lexer) lineComment() {
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
	return
}

func (l *lexer) blockComment() {
	src := l.src
	i := l.pos + 2
	for i+1 < len(src) && !(src[i] == '*' && src[i+1] == '/') {
		i++
	}
	if i+1 >= len(src) {
		l.err(l.start, "comment not terminated")
		l.pos = len(src)
		l.emit(COMMENT)
		return
	}
	l.pos = i + 2
	l.emit(COMMENT)
	return
}

func (l *lexer) str() {
	src := l.src
	i := l.pos + 1
	for i < len(src) {
		switch src[i] {
		case '"':
			l.pos = i + 1
			l.emit(STRING)
			return
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
			return
		}
		i++
	}
	l.err(l.start, "string literal not terminated")
	l.pos = len(src)
	l.emit(STRING)
	return
}

// punct scans punctuation and operators, one or two bytes long.
func (l *lexer) punct() {
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
		return
	}
	l.pos += w
	l.emit(k)
	return
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
