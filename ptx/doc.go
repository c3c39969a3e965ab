// Package ptx reads and writes NVIDIA PTX assembly: a lexer, a parser that
// builds an AST for the language as real compilers emit it (nvcc's Open64
// and NVVM back ends, clang/LLVM, Triton, numba, …, PTX ISA 1.x–9.x), a
// printer, and the analyses other packages need (control-flow graph,
// register def/use, an opcode fact table, a module summary).
//
// # Model
//
// ParseFile lexes the whole file into a compact token table (offset and
// length, and a parallel slice of kinds; no pointers) and parses it into a File: a list of Decls
// (directives, variables, functions, debug sections, comments). Function
// bodies are Blocks of Stmts (instructions, labels, declarations,
// directives, nested blocks, comments). Positions are go/token positions in
// a token.FileSet, so errors print as file:line:col.
//
// Every parsed node carries its Toks: the span of the token table it was
// read from. Typed fields (Opcode modifiers, Operands, Declarators, the
// typed views of directives such as Loc or Version) are a decoded view of
// those tokens. With the SkipOperands mode the parser checks operands but
// keeps no Instruction.Args (what a caller that only prints needs: fmt).
//
// Memory: a parsed file costs about 9 bytes a token, 96 bytes an
// instruction and 104 an operand, carved from a few arena chunks (sized
// from the ';' and ',' counts of the token table) rather than one
// allocation per node; statements collect on a parser stack and move to
// exactly sized slices. The printer writes to its io.Writer in 64 kB
// pieces and reads the source through the File without copying it. For a
// short-lived process these bytes are most of the cost (docs/startup.md).
// A caller whose parsed pieces die in turn (a stream's batches) parses
// them into an Arena (ParseRangeIn) and Resets it once none of their
// Files is used any more: the chunks are then used again, cleared.
//
// # Printing
//
// The printer has two modes. Preserve replays each node's tokens and copies
// the text between two tokens from the source only when that text is pure
// whitespace and the two tokens were adjacent in the source; otherwise it
// uses the canonical separator (or the whitespace the source had before the
// next token). As a consequence:
//
//   - a tree the parser returned and nobody changed prints byte for byte as
//     its input, CRLF line ends, odd spacing and comments included;
//   - a deleted statement takes its text with it, and the surrounding text
//     keeps its layout;
//   - inserted nodes (built with NewInstruction, Reg, Imm, Addr, NewBlock,
//     NewDirective or struct literals, without Toks) print from their typed
//     fields in the canonical layout.
//
// Canonical lays everything out afresh (one statement per line, Indent per
// level, labels in column 0, parameters one per line, single spaces); its
// output parses to an Equal tree.
//
// # Invariants
//
//   - Every byte of the input is in exactly one token or in the whitespace
//     between tokens (the lexer never drops bytes; invalid bytes become
//     ILLEGAL tokens with an error).
//   - ParseFile always returns a File covering the whole input; text that
//     does not parse becomes BadDecl/BadStmt nodes, so even a file with
//     errors prints back unchanged. Errors are a go/scanner.ErrorList sorted
//     by position, capped at MaxErrors unless AllErrors is set. No input
//     makes the parser panic (fuzzed), and nesting deeper than 1000 blocks is
//     reported rather than recursed into.
//   - The File keeps the source buffer; tokens refer into it without
//     copies, so the caller must not modify it after parsing.
//   - Instructions with the same opcode spelling share one *Opcode: treat it
//     as immutable and assign a new one (DecodeOpcode) to change an
//     opcode. A pass that edits typed fields of a parsed node clears its
//     Toks (n.Toks = Toks{}) so the printer uses the fields.
//   - Nothing in the package keeps global mutable state; Files are
//     independent and may be parsed and printed concurrently.
//   - Streaming (stream.go): Split cuts a module after function bodies;
//     ParseRange parses one piece with the whole file's positions, and the
//     pieces' declarations are those ParseFile gives when every piece
//     parses (ParseRangeShared: the pieces share their decoded Opcodes,
//     which are read-only); DeclPrinter prints declarations one by one to Fprint's bytes
//     (and can report each instruction's output line); Checker is Check
//     one declaration at a time.
package ptx
