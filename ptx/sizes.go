package ptx

// nodeCounts bounds the nodes a token table parses to, so that the
// parser's arenas can be allocated once at (about) their final size: an
// arena sized from a looser bound wastes memory that the allocator clears
// and the garbage collector scans, and one sized too small grows in
// chunks. The counts are estimates from one pass over the token kinds
// (the text of a statement's first directive decides whether it declares
// variables); the parser stays correct whatever they are, as every arena
// grows when it runs out.
type nodeCounts struct {
	ins      int // instructions
	args     int // their top-level operands
	nested   int // operands inside {...}, (...) and texture [...] lists
	vars     int // VarDecls: declarations and parameters
	decls    int // Declarators
	comments int // COMMENT tokens (Comment nodes are a subset)
	labels   int // labels
	stmts    int // statements and declarations, comments included
}

// Statement classes of the scan.
const (
	clsNone   = iota // between statements
	clsIns           // an instruction
	clsVar           // a variable declaration
	clsHeader        // a function header, up to its body's '{' or its ';'
	clsOther         // any other directive: ends at ';' or at a line break
)

// countNodes scans the token kinds of src (raw, kinds) for nodeCounts.
// It follows the statement structure the parser sees: statements start
// after ';', '{', '}' and labels, and directives other than declarations
// end at a line break too.
func countNodes(src string, raw []rawTok, kinds []Kind) nodeCounts {
	var c nodeCounts
	cls := clsNone
	depth := 0     // nesting of ( [ { inside the statement
	need := 0      // instruction: names (guard, opcode) still to pass before its operands
	first := false // instruction: the next token is its first operand or ';'
	n := len(kinds)
	for i := 0; i < n; i++ {
		k := kinds[i]
		if k == COMMENT {
			c.comments++
			c.stmts++
			continue
		}
		if cls == clsOther && depth == 0 && i > 0 && newlineIn(src, raw, i) {
			cls = clsNone
		}
		if cls == clsNone {
			depth, need, first = 0, 0, false
			switch k {
			case LBRACE, RBRACE:
				continue
			case SEMI:
				c.stmts++
				continue
			case IDENT:
				if i+1 < n && kinds[i+1] == COLON {
					c.labels++
					c.stmts++
					i++
					continue
				}
				cls, first = clsIns, true
				c.ins++
				c.stmts++
				continue
			case AT:
				cls, need = clsIns, 2
				c.ins++
				c.stmts++
				continue
			case DIRECTIVE:
				c.stmts++
				cls = declClass(src, raw, kinds, i)
				if cls == clsVar {
					c.vars++
					c.decls++
				}
				continue
			}
			cls = clsOther
			c.stmts++
			continue
		}
		switch cls {
		case clsIns:
			if need > 0 {
				if k == IDENT {
					need--
					first = need == 0
				} else if k == SEMI {
					cls = clsNone
				}
				continue
			}
			if first {
				first = false
				if k != SEMI {
					c.args++
				}
			}
			switch k {
			case SEMI:
				cls = clsNone
			case COMMA:
				if depth == 0 {
					c.args++
				} else {
					c.nested++
				}
			case LBRACE, LPAREN:
				depth++
				c.nested++
			case LBRACK:
				depth++
			case RBRACE, RPAREN, RBRACK:
				if depth > 0 {
					depth--
				}
			}
		case clsVar, clsHeader:
			switch k {
			case SEMI:
				cls = clsNone
			case LBRACE:
				if cls == clsHeader && depth == 0 {
					cls = clsNone // the body
					continue
				}
				depth++
			case LPAREN, LBRACK:
				depth++
			case RBRACE, RPAREN, RBRACK:
				if depth > 0 {
					depth--
				}
			case COMMA:
				if cls == clsVar && depth == 0 {
					c.decls++
				}
			case DIRECTIVE:
				if cls == clsHeader && rawText(src, raw, i) == ".param" {
					c.vars++
					c.decls++
				}
			}
		case clsOther:
			switch k {
			case SEMI:
				if depth == 0 {
					cls = clsNone
				}
			case LPAREN:
				depth++
			case RPAREN:
				if depth > 0 {
					depth--
				}
			case LBRACE, RBRACE:
				if depth == 0 {
					cls = clsNone
					i-- // the brace is seen again between statements
				}
			}
		}
	}
	return c
}

// declClass classifies the statement that starts with the directive at
// i: a variable declaration, a function header, or another directive
// (parseDecl's and parseStmt's choice).
func declClass(src string, raw []rawTok, kinds []Kind, i int) int {
	for ; i < len(kinds); i++ {
		if kinds[i] == COMMENT {
			continue
		}
		if kinds[i] != DIRECTIVE {
			return clsOther
		}
		s := rawText(src, raw, i)
		if linkageOf(s) != 0 {
			continue
		}
		switch {
		case s == ".entry" || s == ".func":
			return clsHeader
		case spaceOf(s) != SpaceNone || s == ".texref" || s == ".samplerref" || s == ".surfref":
			return clsVar
		}
		return clsOther
	}
	return clsOther
}

func rawText(src string, raw []rawTok, i int) string {
	r := raw[i]
	return src[r.off : r.off+r.n]
}

// newlineIn reports whether a line break stands between tokens i-1 and i.
func newlineIn(src string, raw []rawTok, i int) bool {
	a, b := raw[i-1].off+raw[i-1].n, raw[i].off
	for j := a; j < b; j++ {
		if src[j] == '\n' {
			return true
		}
	}
	return false
}
