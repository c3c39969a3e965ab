package ptx

import (
	"go/token"
)

// Kind is the lexical class of a token.
type Kind uint8

// Token kinds. Punctuation kinds are named after their spelling.
const (
	ILLEGAL   Kind = iota // a byte sequence that is not PTX
	EOF                   // end of input
	COMMENT               // "// ..." up to the line end, or "/* ... */"
	IDENT                 // foo, %r1, $L__BB0_1, _, %tid.x, ld.global.u32 (dots inside are kept)
	DIRECTIVE             // .reg, .u32, .version: a dot followed by a name
	INT                   // 42, 0x1F, 017, 0b101, 42U
	FLOAT                 // 1.5, 1e-3, 0f3F800000, 0d3FF0000000000000
	STRING                // "..." with C-style escapes
	RAW                   // verbatim text kept as one token (the body of a .section block)
	LBRACE                // {
	RBRACE                // }
	LPAREN                // (
	RPAREN                // )
	LBRACK                // [
	RBRACK                // ]
	LT                    // <
	GT                    // >
	COMMA                 // ,
	SEMI                  // ;
	COLON                 // :
	AT                    // @
	NOT                   // !
	PLUS                  // +
	MINUS                 // -
	STAR                  // *
	SLASH                 // /
	PERCENT               // %  (only where not starting a register)
	AND                   // &
	OR                    // |
	XOR                   // ^
	TILDE                 // ~
	ASSIGN                // =
	QUESTION              // ?
	SHL                   // <<
	SHR                   // >>
	LAND                  // &&
	LOR                   // ||
	EQL                   // ==
	NEQ                   // !=
	LEQ                   // <=
	GEQ                   // >=
	kindCount
)

var kindNames = [...]string{
	ILLEGAL: "ILLEGAL", EOF: "EOF", COMMENT: "COMMENT", IDENT: "IDENT", DIRECTIVE: "DIRECTIVE",
	INT: "INT", FLOAT: "FLOAT", STRING: "STRING", RAW: "RAW",
	LBRACE: "{", RBRACE: "}", LPAREN: "(", RPAREN: ")", LBRACK: "[", RBRACK: "]", LT: "<", GT: ">",
	COMMA: ",", SEMI: ";", COLON: ":", AT: "@", NOT: "!", PLUS: "+", MINUS: "-", STAR: "*",
	SLASH: "/", PERCENT: "%", AND: "&", OR: "|", XOR: "^", TILDE: "~", ASSIGN: "=", QUESTION: "?",
	SHL: "<<", SHR: ">>", LAND: "&&", LOR: "||", EQL: "==", NEQ: "!=", LEQ: "<=", GEQ: ">=",
}

func (k Kind) String() string {
	if int(k) < len(kindNames) && kindNames[k] != "" {
		return kindNames[k]
	}
	return "Kind(?)"
}

// Token is one lexical token. Text is the exact source spelling (for
// synthesized tokens, the spelling to print). Pos is token.NoPos for tokens
// that did not come from the source.
type Token struct {
	Pos  token.Pos
	Kind Kind
	Text string
}

// End returns the position just after the token, or NoPos.
func (t Token) End() token.Pos {
	if !t.Pos.IsValid() {
		return token.NoPos
	}
	return t.Pos + token.Pos(len(t.Text))
}

// Tok makes an unpositioned token for use by passes that build new nodes.
func Tok(kind Kind, text string) Token { return Token{Kind: kind, Text: text} }

// rawTok is a token's place as the lexer stores it: an offset into the
// source and a length. Its kind is kept in a parallel []Kind (a struct
// with the kind would be padded to 12 bytes). Neither holds pointers, so a
// file's token table costs the garbage collector nothing to scan.
type rawTok struct {
	off uint32
	n   uint32
}

// tokTable is the token table of one parsed file. Inputs are limited to
// 4 GiB by the 32-bit offsets.
type tokTable struct {
	src   string
	base  int
	raw   []rawTok
	kinds []Kind
}

func (t *tokTable) token(i int) Token {
	r := t.raw[i]
	return Token{Pos: token.Pos(t.base + int(r.off)), Kind: t.kinds[i], Text: t.src[r.off : r.off+r.n]}
}

// Toks is the token sequence a parsed node was read from: a span of its
// file's token table, or an explicit list for tokens a pass spliced in.
// Printing in Preserve mode replays these tokens, so a parsed node prints
// exactly as it was written. A pass that edits the typed fields of a parsed
// node must clear its Toks (n.Toks = ptx.Toks{}) so the printer makes tokens
// from the fields; a node built from scratch leaves Toks zero.
//
// It is 24 bytes, in every parsed node: an explicit list (rare) is held
// through a pointer so that it does not widen every node by a slice
// header.
type Toks struct {
	tab    *tokTable
	lo, hi int32
	list   *[]Token // non-nil for MakeToks of a non-nil list
}

// MakeToks makes a token sequence from an explicit list.
func MakeToks(list []Token) Toks {
	if list == nil {
		return Toks{}
	}
	return Toks{list: &list}
}

// IsZero reports whether ts holds no tokens (the node prints from its
// fields).
func (ts Toks) IsZero() bool { return ts.list == nil && ts.tab == nil }

// Len returns the number of tokens.
func (ts Toks) Len() int {
	if ts.list != nil {
		return len(*ts.list)
	}
	return int(ts.hi - ts.lo)
}

// At returns token i.
func (ts Toks) At(i int) Token {
	if ts.list != nil {
		return (*ts.list)[i]
	}
	return ts.tab.token(int(ts.lo) + i)
}

// Slice returns the tokens as a new slice.
func (ts Toks) Slice() []Token {
	out := make([]Token, ts.Len())
	for i := range out {
		out[i] = ts.At(i)
	}
	return out
}

func (ts Toks) pos() token.Pos {
	if ts.Len() == 0 {
		return token.NoPos
	}
	return ts.At(0).Pos
}

func (ts Toks) end() token.Pos {
	if ts.Len() == 0 {
		return token.NoPos
	}
	return ts.At(ts.Len() - 1).End()
}
