package ptx

import "go/token"

// Arena is memory that parses carve their nodes and token tables from
// and that can be used again: a caller parsing many pieces whose trees
// die in turn (a stream's batches, printed one after another) parses
// them into an Arena, and once none of their Files is used any more,
// Reset hands it all back for the next ones. The Arena grows to what the
// pieces parsed between two Resets need; memory it outgrew stays with
// the Files carved from it.
//
// What a parse shares with later ones is not carved from the Arena: the
// decoded opcodes (ParseRangeShared's map) and their modifier and type
// lists.
type Arena struct {
	p     parser // the parser's own state, for one parse at a time
	files []File
	tabs  []tokTable
	raw   []rawTok
	kinds []Kind
	ins   []Instruction
	args  []Operand
	ops   []Operand
	stmts []Stmt
	vars  []VarDecl
	dcls  []Declarator
	coms  []Comment
	lbls  []Label
}

// Reset makes all of a's memory free again. The Files parsed into a
// since the last Reset must no longer be used: their nodes are
// overwritten by the next parses.
func (a *Arena) Reset() {
	// The parser takes the nodes it is handed for zero (it sets only
	// some fields); the token tables hold no pointers and are written
	// whole.
	a.raw, a.kinds = a.raw[:0], a.kinds[:0]
	a.p = parser{}
	resetArena(&a.files)
	resetArena(&a.tabs)
	resetArena(&a.ins)
	resetArena(&a.args)
	resetArena(&a.ops)
	resetArena(&a.stmts)
	resetArena(&a.vars)
	resetArena(&a.dcls)
	resetArena(&a.coms)
	resetArena(&a.lbls)
}

func resetArena[T any](s *[]T) {
	clear(*s)
	*s = (*s)[:0]
}

// carve returns an empty slice with room for n elements, zero, from *s:
// after its free room, or else from a new chunk that replaces *s (of
// twice its size at least, so that the Arena soon holds what a batch
// needs). The room is taken whether it is used or not.
func carve[T any](s *[]T, n int) []T {
	if n == 0 {
		return nil
	}
	l := len(*s)
	if cap(*s)-l < n {
		*s = make([]T, 0, max(n, 2*cap(*s), 64))
		l = 0
	}
	*s = (*s)[:l+n]
	return (*s)[l : l : l+n]
}

// ParseRangeIn is ParseRangeShared with the File, its nodes and its
// token table carved from a (nil: allocated as ParseRangeShared's): the
// File is valid until a.Reset. One parse at a time uses a.
func ParseRangeIn(a *Arena, tf *token.File, src []byte, lo, hi int, mode Mode, opcodes map[string]*Opcode) (*File, error) {
	return parseRangeIn(a, tf, src, lo, hi, mode, opcodes)
}

// one returns a zero T from the chunk *s (see carve).
func one[T any](s *[]T) *T {
	c := carve(s, 1)
	return &c[:1][0]
}
