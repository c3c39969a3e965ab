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
